"""Dialects written as tool calls: Qwen's computer_use, Claude's computer tool, OpenAI function tools and OpenAI
computer use over the Responses API. Replies are built from the formats the models' publishers show; each
block names its source."""
import json

import pytest

from cockpit.core.actions.dialects import Reply, parse
from cockpit.core.actions.grammar import CENTRE, SCROLL_STEP, Action
from tests.core.actions.dialect_helpers import DRAG_1234, _call, _format_error, _qwen_text, _responses, _scroll

# ---------- Qwen ----------
# QwenLM/Qwen2.5-VL cookbooks/computer_use.ipynb and qwen-agent's ComputerUse tool: the model answers
#   <tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1240, 783]}}\n</tool_call>
# with actions key(keys), type(text), mouse_move, left_click, left_click_drag, right_click, middle_click,
# double_click, scroll(pixels: positive up), wait(time), terminate(status); Qwen3-VL adds triple_click, answer(text).

@pytest.mark.parametrize("arguments,expected", [
    ({"action": "left_click", "coordinate": [1240, 783]}, Action("click", point=(1240, 783))),
    ({"action": "double_click", "coordinate": [10, 20]}, Action("double_click", point=(10, 20))),
    ({"action": "right_click", "coordinate": [10, 20]}, Action("right_click", point=(10, 20))),
    ({"action": "triple_click", "coordinate": [10, 20]}, Action("click", point=(10, 20))),
    ({"action": "mouse_move", "coordinate": [10, 20]}, Action("hover", point=(10, 20))),
    ({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]}, DRAG_1234),
    ({"action": "type", "text": "red shoes"}, Action("type", text="red shoes", focused=True)),
    ({"action": "type", "text": "x", "coordinate": [5, 6]}, Action("type", text="x", point=(5, 6))),
    ({"action": "key", "keys": ["ctrl", "a"]}, Action("press", text="Ctrl+a")),
    ({"action": "key", "keys": ["Return"]}, Action("press", text="Enter")),
    ({"action": "scroll", "pixels": -500}, Action("scroll", point=CENTRE, delta=(0, 500))),
    ({"action": "scroll", "pixels": 300, "coordinate": [100, 200]}, _scroll(100, 200, 0, -300)),
    ({"action": "hscroll", "pixels": 200}, Action("scroll", point=CENTRE, delta=(200, 0))),
    ({"action": "wait", "time": 2}, Action("wait")),
    ({"action": "answer", "text": "42 results"}, Action("answer", text="42 results")),
    ({"action": "terminate", "status": "success"}, Action("answer", text="")),
    ({"action": "terminate", "status": "failure"}, Action("answer", text="N/A")),
    ({"action": "goto", "url": "https://example.com"}, Action("goto", text="https://example.com")),
    ({"action": "go_back"}, Action("back")),
])
def test_qwen_text_tool_call(arguments, expected):
    p = parse("qwen", Reply(text=_qwen_text(arguments)))
    assert p.error == ""
    assert p.action == expected
    assert p.thought == "I will click the search box."
    assert json.loads(p.action_text)["arguments"] == arguments


def test_qwen_as_parsed_tool_calls():
    # vLLM with --tool-call-parser hermes hands the same call back as an OpenAI tool_calls entry.
    reply = Reply(tool_calls=[_call("computer_use", {"action": "left_click", "coordinate": [7, 8]}, "chatcmpl-tool-1")])
    p = parse("qwen", reply)
    assert p.action == Action("click", point=(7, 8))
    assert p.call_id == "chatcmpl-tool-1"
    assert p.action_text.startswith("computer_use {")


def test_qwen_call_without_closing_tag_thought_label_and_answer_line():
    text = 'Thought: go on\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "wait", "time": 1}}'
    p = parse("qwen", Reply(text=text))
    assert p.action == Action("wait")
    assert p.thought == "go on"
    assert parse("qwen", Reply(text="Done.\nANSWER: 3 items")).action == Action("answer", text="3 items")


@pytest.mark.parametrize("reply,names", [
    (Reply(text="<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", "
                "\"coordinate\": [1, 2]\n</tool_call>"), "not valid JSON"),
    (Reply(text=_qwen_text({"action": "fly", "coordinate": [1, 2]})), "'fly' is not a computer_use action"),
    (Reply(text=_qwen_text({"action": "left_click"})), "left_click needs its coordinate"),
    (Reply(text=_qwen_text({"action": "left_click_drag", "coordinate": [1, 2]})), "start_coordinate"),
    (Reply(text=_qwen_text({"action": "scroll"})), "pixels"),
    (Reply(text="I think I am done."), "no tool call"),
    (Reply(tool_calls=[_call("web_search", {"q": "x"})]), "'web_search' is not the computer_use function"),
    (Reply(tool_calls=[{"id": "c", "function": {"name": "computer_use", "arguments": "{oops"}}]), "not valid JSON"),
])
def test_qwen_malformed(reply, names):
    error = _format_error(parse("qwen", reply))
    assert names in error
    assert '"name": "computer_use"' in error


# ---------- Claude (Anthropic computer tool over chat completions) ----------
# Anthropic's computer-use tool documentation (computer_20250124): {"action": "left_click", "coordinate": [x, y]},
# {"action": "type", "text": "Hello, world!"}, {"action": "key", "text": "ctrl+s"} (xdotool syntax: "Return",
# "alt+Tab", "KP_0"), {"action": "scroll", "coordinate": [x, y], "scroll_direction": "down", "scroll_amount": 3},
# {"action": "left_click_drag", "start_coordinate": [x1, y1], "coordinate": [x2, y2]}, triple_click, screenshot, wait.

@pytest.mark.parametrize("arguments,expected", [
    ({"action": "left_click", "coordinate": [500, 300]}, Action("click", point=(500, 300))),
    ({"action": "triple_click", "coordinate": [5, 6]}, Action("click", point=(5, 6))),
    ({"action": "right_click", "coordinate": [5, 6]}, Action("right_click", point=(5, 6))),
    ({"action": "middle_click", "coordinate": [5, 6]}, Action("click", point=(5, 6))),
    ({"action": "mouse_move", "coordinate": [5, 6]}, Action("hover", point=(5, 6))),
    ({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]}, DRAG_1234),
    ({"action": "type", "text": "Hello, world!"}, Action("type", text="Hello, world!", focused=True)),
    ({"action": "key", "text": "ctrl+s"}, Action("press", text="Ctrl+s")),
    ({"action": "key", "text": "Return"}, Action("press", text="Enter")),
    ({"action": "key", "text": "super+l"}, Action("press", text="Meta+l")),
    ({"action": "key", "text": "alt+Left"}, Action("press", text="Alt+Left")),
    ({"action": "scroll", "coordinate": [64, 40], "scroll_direction": "down", "scroll_amount": 3}, _scroll(64, 40, 0, 300)),
    ({"action": "scroll", "coordinate": [64, 40], "scroll_direction": "up", "scroll_amount": 5}, _scroll(64, 40, 0, -500)),
    ({"action": "scroll", "scroll_direction": "right"}, Action("scroll", point=CENTRE, delta=(SCROLL_STEP, 0))),
    ({"action": "screenshot"}, Action("wait")),
    ({"action": "wait", "duration": 2}, Action("wait")),
    ({"action": "goto", "text": "https://example.com"}, Action("goto", text="https://example.com")),
    ({"action": "go_back"}, Action("back")),
    ({"action": "answer", "text": "It costs $5"}, Action("answer", text="It costs $5")),
])
def test_claude_actions(arguments, expected):
    reply = Reply(text="I'll click the search field.", tool_calls=[_call("computer", arguments, "toolu_01")])
    p = parse("claude", reply)
    assert p.error == ""
    assert p.action == expected
    assert p.thought == "I'll click the search field."
    assert p.call_id == "toolu_01"
    assert p.action_text == "computer " + json.dumps(arguments)


@pytest.mark.parametrize("arguments,names", [
    ({"action": "left_click"}, "needs its coordinate"),
    ({"action": "left_click_drag", "coordinate": [3, 4]}, "start_coordinate"),
    ({"action": "key", "text": "ctrl+a Delete"}, "one key or combination"),
    ({"action": "cursor_position"}, "not available here"),
    ({"action": "teleport"}, "'teleport' is not a computer action"),
    ({"action": "scroll", "coordinate": [1, 2]}, "scroll_direction"),
    ({"coordinate": [1, 2]}, "no 'action'"),
])
def test_claude_malformed(arguments, names):
    error = _format_error(parse("claude", Reply(tool_calls=[_call("computer", arguments)])))
    assert names in error
    assert '{"action": "left_click", "coordinate": [x, y]}' in error


def test_claude_decoded_arguments_bad_json_and_no_call():
    decoded = Reply(tool_calls=[_call("computer", {"action": "left_click", "coordinate": [1, 2]}, as_string=False)])
    assert parse("claude", decoded).action == Action("click", point=(1, 2))
    bad = Reply(tool_calls=[{"id": "t", "type": "function", "function": {"name": "computer", "arguments": "{"}}])
    assert "not valid JSON" in _format_error(parse("claude", bad))
    assert "no tool call" in _format_error(parse("claude", Reply(text="Let me think about it.")))
    done = parse("claude", Reply(text="I found it.\n\nANSWER: the blue one"))
    assert done.action == Action("answer", text="the blue one")


# ---------- OpenAI tools (Cockpit's function set over chat completions) ----------
# OpenAI chat completions: message.tool_calls = [{"id", "type": "function", "function": {"name", "arguments": "<json>"}}].

@pytest.mark.parametrize("name,arguments,expected", [
    ("click", {"x": 10, "y": 20}, Action("click", point=(10, 20))),
    ("double_click", {"x": 10, "y": 20}, Action("double_click", point=(10, 20))),
    ("right_click", {"x": 10, "y": 20}, Action("right_click", point=(10, 20))),
    ("hover", {"x": 10.5, "y": 20.0}, Action("hover", point=(10.5, 20))),
    ("drag", {"x": 1, "y": 2, "end_x": 3, "end_y": 4}, DRAG_1234),
    ("scroll", {"direction": "down"}, Action("scroll", point=CENTRE, delta=(0, SCROLL_STEP))),
    ("scroll", {"direction": "up", "pixels": 200, "x": 5, "y": 6}, _scroll(5, 6, 0, -200)),
    ("type", {"text": "hello"}, Action("type", text="hello", focused=True)),
    ("type", {"text": "hello", "x": 1, "y": 2}, Action("type", text="hello", point=(1, 2))),
    ("press", {"key": "Ctrl+A"}, Action("press", text="Ctrl+A")),
    ("press", {"key": "page down"}, Action("press", text="PageDown")),
    ("press", {"key": "ArrowDown"}, Action("press", text="Down")),
    ("goto", {"url": "https://example.com"}, Action("goto", text="https://example.com")),
    ("back", {}, Action("back")),
    ("wait", {}, Action("wait")),
    ("answer", {"text": "done"}, Action("answer", text="done")),
])
def test_openai_tools_actions(name, arguments, expected):
    p = parse("openai_tools", Reply(text="", tool_calls=[_call(name, arguments, "call_abc")]))
    assert p.error == ""
    assert p.action == expected
    assert p.call_id == "call_abc"


@pytest.mark.parametrize("reply,names", [
    (Reply(tool_calls=[_call("click", {"x": 1})]), 'click needs "x" and "y"'),
    (Reply(tool_calls=[_call("jump", {})]), "'jump' is not one of the functions"),
    (Reply(tool_calls=[_call("scroll", {})]), "direction"),
    (Reply(tool_calls=[_call("press", {})]), "press needs"),
    (Reply(tool_calls=[{"id": "c", "function": {"name": "click", "arguments": "x=1"}}]), "not valid JSON"),
    (Reply(text="Clicking the button now."), "no tool call"),
])
def test_openai_tools_malformed(reply, names):
    error = _format_error(parse("openai_tools", reply))
    assert names in error and "click, double_click" in error


# ---------- OpenAI computer use (Responses API) ----------
# OpenAI computer-use guide / Responses API reference: output items reasoning {summary: [{type: summary_text}]},
# computer_call {id, call_id, action: {type: click, button: left, x: 156, y: 50}, pending_safety_checks: [],
# status}, message {content: [{type: output_text, text}]}; actions click, double_click, scroll{scroll_x, scroll_y},
# type{text}, keypress{keys}, wait, move, drag{path}, screenshot.

@pytest.mark.parametrize("action,expected", [
    ({"type": "click", "button": "left", "x": 156, "y": 50}, Action("click", point=(156, 50))),
    ({"type": "click", "button": "right", "x": 1, "y": 2}, Action("right_click", point=(1, 2))),
    ({"type": "click", "button": "wheel", "x": 1, "y": 2}, Action("click", point=(1, 2))),
    ({"type": "click", "button": "back", "x": 1, "y": 2}, Action("back")),
    ({"type": "double_click", "x": 1, "y": 2}, Action("double_click", point=(1, 2))),
    ({"type": "scroll", "x": 300, "y": 400, "scroll_x": 0, "scroll_y": 600}, _scroll(300, 400, 0, 600)),
    ({"type": "scroll", "x": 300, "y": 400, "scroll_x": 0, "scroll_y": -200}, _scroll(300, 400, 0, -200)),
    ({"type": "type", "text": "hello world"}, Action("type", text="hello world", focused=True)),
    ({"type": "keypress", "keys": ["CTRL", "A"]}, Action("press", text="Ctrl+A")),
    ({"type": "keypress", "keys": ["ENTER"]}, Action("press", text="Enter")),
    ({"type": "keypress", "keys": ["CMD", "SHIFT", "T"]}, Action("press", text="Shift+Meta+T")),
    ({"type": "wait"}, Action("wait")),
    ({"type": "screenshot"}, Action("wait")),
    ({"type": "move", "x": 3, "y": 4}, Action("hover", point=(3, 4))),
    ({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 5, "y": 5}, {"x": 3, "y": 4}]}, DRAG_1234),
])
def test_openai_computer_actions(action, expected):
    p = parse("openai_computer", _responses(action))
    assert p.error == ""
    assert p.action == expected
    assert p.call_id == "call_zw3"
    assert p.thought == "Clicking on the browser address bar."
    assert json.loads(p.action_text) == action


def test_openai_computer_safety_checks_kept_verbatim():
    check = {"id": "cu_sc_67cb", "code": "malicious_instructions",
             "message": "We've detected instructions that may cause your application to perform malicious "
                        "or unauthorized actions."}
    p = parse("openai_computer", _responses({"type": "click", "button": "left", "x": 1, "y": 2}, [check]))
    assert p.safety_checks == [check]
    assert p.action == Action("click", point=(1, 2))


def test_openai_computer_message_and_answer():
    ask = Reply(output=[{"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": "Should I proceed with the purchase?"}]}])
    p = parse("openai_computer", ask)
    assert "no computer_call" in _format_error(p)
    assert "ANSWER:" in p.error
    assert p.thought == "Should I proceed with the purchase?"
    done = Reply(output=[{"type": "message", "role": "assistant",
                          "content": [{"type": "output_text", "text": "I found it.\nANSWER: 4.5 stars"}]}])
    assert parse("openai_computer", done).action == Action("answer", text="4.5 stars")


@pytest.mark.parametrize("action,names", [
    ({"type": "click", "button": "forward", "x": 1, "y": 2}, "'forward' mouse button"),
    ({"type": "click", "button": "left"}, "click needs x and y"),
    ({"type": "drag", "path": [{"x": 1, "y": 2}]}, "two points"),
    ({"type": "keypress", "keys": []}, "keypress needs"),
    ({"type": "juggle"}, "'juggle' is not a computer-use action"),
    (None, "no action"),
])
def test_openai_computer_malformed(action, names):
    error = _format_error(parse("openai_computer", _responses(action)))
    assert names in error and "computer_call" in error


def test_openai_computer_batched_actions_take_the_first():
    reply = Reply(output=[{"type": "computer_call", "call_id": "c1", "actions": [
        {"type": "click", "button": "left", "x": 1, "y": 2}, {"type": "type", "text": "x"}]}])
    p = parse("openai_computer", reply)
    assert p.action == Action("click", point=(1, 2))
    assert '"type": "type"' in p.action_text
