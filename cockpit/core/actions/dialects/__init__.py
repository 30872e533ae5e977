"""Dialects: how pixel-grounded (computer-use) models write their actions, read into Cockpit actions.

    plain            Cockpit's own Thought/Action text with pixel actions (``Click (600, 475)``)
    uitars           UI-TARS: ``Thought: ...`` / ``Action: click(start_box='<|box_start|>(x,y)<|box_end|>')``
    qwen             Qwen2.5-VL / Qwen3-VL: one ``computer_use`` call (``<tool_call>`` text or tool_calls)
    claude           Anthropic's computer tool as a chat-completions function ``computer``
    openai_tools     Cockpit's function set (click, type, scroll, ...) over chat-completions tool calls
    openai_computer  OpenAI's computer-use tool over the Responses API (``computer_call`` items)

:func:`parse` reads a :class:`Reply` in a dialect; :func:`detect` names the dialect of a reply
(for "auto"); :func:`system_prompt` and :func:`tools` give what to send with the request. Points
stay in the model's own coordinates; :mod:`cockpit.core.actions.coords` converts them. Each
module's docstring names the published source of its format and the mapping decisions.
"""
from __future__ import annotations

from cockpit.core.actions.dialects import claude, openai_computer, openai_tools, plain, qwen, uitars
from cockpit.core.actions.dialects.common import DialectParse, Reply, tool_call_names

DIALECTS = ("plain", "uitars", "qwen", "claude", "openai_tools", "openai_computer")

_MODULES = {"plain": plain, "uitars": uitars, "qwen": qwen, "claude": claude,
            "openai_tools": openai_tools, "openai_computer": openai_computer}


def _module(dialect: str):
    try:
        return _MODULES[dialect]
    except KeyError:
        raise ValueError(f"unknown dialect {dialect!r}; one of {', '.join(DIALECTS)}") from None


def _reply(reply: Reply | str | None) -> Reply:
    if isinstance(reply, Reply):
        return reply
    return Reply(text=reply or "")


def parse(dialect: str, reply: Reply) -> DialectParse:
    """The action in `reply`, read as `dialect` writes it. A malformed reply gives action None and an
    `error` for the model ('Format ERROR: ...', naming what the dialect expects)."""
    return _module(dialect).parse(_reply(reply))


def detect(reply: Reply) -> str | None:
    """The dialect `reply` is written in, or None when it fits none of them.

    Responses output items: openai_computer. A tool call: by its function's name (computer_use:
    qwen, computer: claude, one of Cockpit's functions: openai_tools). Text: a ``<tool_call>`` is
    qwen, an ``Action:`` line with a UI-TARS call (click(start_box=...), wait()) is uitars, an
    ``Action:`` line with a pixel action in Cockpit's grammar is plain. A mark action
    (``Action: Click [12]``), or one that needs no point (Wait, ANSWER, Press), gives None: the
    caller's marks dialect reads those."""
    reply = _reply(reply)
    if openai_computer.looks_like(reply):
        return "openai_computer"
    names = [n for n in tool_call_names(reply) if n]
    if names:
        if names[0] == qwen.FUNCTION:
            return "qwen"
        if names[0] == claude.FUNCTION:
            return "claude"
        if names[0] in openai_tools.FUNCTIONS:
            return "openai_tools"
        return None
    if qwen.looks_like(reply):
        return "qwen"
    if uitars.looks_like(reply):
        return "uitars"
    if plain.looks_like(reply):
        return "plain"
    return None


def system_prompt(dialect: str, *, width: int, height: int, space_words: str) -> str:
    """The dialect's system prompt, stating the screenshot's size and the coordinate convention
    (`space_words`, e.g. coords.describe(space, frame)). openai_computer's is a short instruction:
    its tool carries the size."""
    return _module(dialect).system_prompt(width=width, height=height, space_words=space_words)


def tools(dialect: str, *, width: int, height: int) -> list[dict] | None:
    """Tool definitions to send with the request; None for the text dialects (plain, uitars)."""
    module = _module(dialect)
    fn = getattr(module, "tools", None)
    return fn(width=width, height=height) if fn is not None else None


__all__ = ["DIALECTS", "DialectParse", "Reply", "detect", "parse", "system_prompt", "tools"]
