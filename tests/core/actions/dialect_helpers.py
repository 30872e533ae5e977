"""Helpers shared by the dialect tests (test_dialects_text.py, test_dialects_tools.py)."""
import json

from cockpit.core.actions.dialects import DialectParse, Reply
from cockpit.core.actions.grammar import Action


def _call(name, arguments, call_id="call_1", as_string=True):
    """An OpenAI chat-completions tool_calls entry (arguments are a JSON string in the API)."""
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments) if as_string else arguments}}


DRAG = Action("drag", point=(10, 20), end=(30, 40))
DRAG_1234 = Action("drag", point=(1, 2), end=(3, 4))


def _scroll(x, y, dx, dy):
    return Action("scroll", point=(x, y), delta=(dx, dy))


def _format_error(p: DialectParse):
    assert p.action is None
    assert p.error.startswith("Format ERROR:"), p.error
    return p.error


def _qwen_text(arguments, before="I will click the search box."):
    return f'{before}\n<tool_call>\n{json.dumps({"name": "computer_use", "arguments": arguments})}\n</tool_call>'


def _responses(action, checks=(), summary="Clicking on the browser address bar."):
    return Reply(output=[
        {"type": "reasoning", "id": "rs_67cc", "summary": [{"type": "summary_text", "text": summary}]},
        {"type": "computer_call", "id": "cu_67cc", "call_id": "call_zw3", "action": action,
         "pending_safety_checks": list(checks), "status": "completed"}])
