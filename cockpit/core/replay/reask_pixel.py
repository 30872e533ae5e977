"""Re-asking a pixel-grounded model (issue #27): the step's request as recorded, the dialect's tools with it,
the reply read in the dialect and its point converted against the step's own frame, so the new action is
comparable with the recorded one (both in viewport CSS pixels). A Responses API step (OpenAI computer use)
is sent again as recorded, chained to the same previous response (the server must still hold it)."""
from __future__ import annotations

import threading

from cockpit.core.actions import coords
from cockpit.core.agent.protocol import PixelProtocol
from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult, ModelClient
from cockpit.core.store import Store


def ask(store: Store, run_id: str, row: dict, request, client: ModelClient, load_image,
        cancel: threading.Event | None) -> tuple[ChatResult, prompt.ParsedReply, str]:
    """(the reply, its parse in the run's dialect, the reply as recorded) for a pixel run's step."""
    proto = PixelProtocol(client)
    # the step's own frame: its screenshot, and the Qwen budget it was read with (else the client's)
    frame = coords.Frame.from_dict((row.get("pointer") or {}).get("frame"), client.config.qwen_budget())
    proto.conversation(1, frame)  # sets the dialect's tools
    proto.frame = frame
    result = proto.call(request, load_image, cancel=cancel)
    parsed, _ = proto.parse(result)
    return result, parsed, proto.recorded_reply(result)


def check_request(request, where: str) -> None:
    if isinstance(request, dict) and isinstance(request.get("input"), list):
        return
    if not isinstance(request, list):
        raise CockpitError(f"the request recorded for {where} is neither messages nor a Responses API body")
