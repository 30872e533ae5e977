"""Dialects written as text: UI-TARS and plain Thought/Action replies, detecting a reply's dialect, the dialects'
prompts and tools, and key names. Replies are built from the formats the models' publishers show; each block
names its source."""
import json

import pytest

from cockpit.core.actions.dialects import DIALECTS, Reply, detect, keys, parse, system_prompt, tools
from cockpit.core.actions.grammar import CENTRE, SCROLL_STEP, Action, parse_action
from tests.core.actions.dialect_helpers import DRAG, _call, _format_error, _qwen_text, _responses, _scroll

# ---------- UI-TARS ----------
# bytedance/UI-TARS: README_coordinates / coordinate_processing_script example output
#   "Thought: xxx\nAction: click(start_box='(197,525)')";
# codes/prompt.py COMPUTER_USE action space (start_box='<|box_start|>(x1,y1)<|box_end|>', hotkey(key='ctrl c'),
# type(content='xxx'), scroll(..., direction=...), wait(), finished(content='xxx'));
# the newer COMPUTER_USE_DOUBAO template: click(point='<point>x1 y1</point>'), drag(start_point=..., end_point=...).

@pytest.mark.parametrize("action_text,expected", [
    ("click(start_box='(197,525)')", Action("click", point=(197, 525))),
    ("click(start_box='<|box_start|>(112,224)<|box_end|>')", Action("click", point=(112, 224))),
    ("click(point='<point>200 300</point>')", Action("click", point=(200, 300))),
    ("click(start_box='[100, 200, 300, 400]')", Action("click", point=(200, 300))),
    ("click(start_box='(101,200,200,300)')", Action("click", point=(150.5, 250))),
    ("left_double(start_box='<|box_start|>(10,20)<|box_end|>')", Action("double_click", point=(10, 20))),
    ("right_single(start_box='<|box_start|>(10,20)<|box_end|>')", Action("right_click", point=(10, 20))),
    ("drag(start_box='<|box_start|>(10,20)<|box_end|>', end_box='<|box_start|>(30,40)<|box_end|>')", DRAG),
    ("drag(start_point='<point>10 20</point>', end_point='<point>30 40</point>')", DRAG),
    ("hotkey(key='ctrl c')", Action("press", text="Ctrl+c")),
    ("hotkey(key='enter')", Action("press", text="Enter")),
    ("hotkey(key='pagedown')", Action("press", text="PageDown")),
    ("type(content='red shoes')", Action("type", text="red shoes", focused=True)),
    ("type(content='red shoes\\n')", Action("type", text="red shoes\n", focused=True)),
    ("type(content='it\\'s \\\"here\\\"')", Action("type", text="it's \"here\"", focused=True)),
    ("type(content='it's here')", Action("type", text="it's here", focused=True)),  # unescaped apostrophe
    ("scroll(start_box='<|box_start|>(500,400)<|box_end|>', direction='down')", _scroll(500, 400, 0, SCROLL_STEP)),
    ("scroll(point='<point>500 400</point>', direction='up')", _scroll(500, 400, 0, -SCROLL_STEP)),
    ("scroll(direction='left')", Action("scroll", point=CENTRE, delta=(-SCROLL_STEP, 0))),
    ("wait()", Action("wait")),
    ("finished(content='The cheapest is $12.99')", Action("answer", text="The cheapest is $12.99")),
    ("finished()", Action("answer", text="")),
    ("call_user()", Action("answer", text="N/A")),
    ("goto(url='https://example.com/a')", Action("goto", text="https://example.com/a")),
    ("go_back()", Action("back")),
    ("click(start_box='(197,525)'", Action("click", point=(197, 525))),  # closing parenthesis cut off
])
def test_uitars_actions(action_text, expected):
    p = parse("uitars", Reply(text=f"Thought: I see the page and act.\nAction: {action_text}"))
    assert p.error == ""
    assert p.action == expected
    assert p.thought == "I see the page and act."
    assert p.action_text == action_text


def test_uitars_decimal_points_and_first_of_several_actions():
    # UI-TARS 1.0 style 0..1000 points arrive as written; several actions are separated by ')\n\n'.
    text = "Thought: two steps\nAction: click(start_box='(0.25,0.5)')\n\ntype(content='abc')"
    p = parse("uitars", Reply(text=text))
    assert p.action == Action("click", point=(0.25, 0.5))


def test_uitars_reply_in_a_code_fence_with_reflection():
    text = "Reflection: the menu opened\nAction_Summary: pick the item\nAction: ```click(start_box='(5,6)')```"
    p = parse("uitars", Reply(text=text))
    assert p.action == Action("click", point=(5, 6))
    assert "the menu opened" in p.thought and "pick the item" in p.thought


def test_uitars_whole_reply_in_a_fence_and_action_word_in_thought():
    text = "```\nThought: the next action: click Search.\nAction: click(start_box='(5,6)')\n```"
    p = parse("uitars", text)  # a bare string is read as the reply's text
    assert p.action == Action("click", point=(5, 6))
    assert p.thought == "the next action: click Search."


@pytest.mark.parametrize("text,names", [
    ("Thought: I am not sure what to do.", "no 'Action:'"),
    ("Thought: x\nAction: clack(start_box='(1,2)')", "'clack' is not a UI-TARS action"),
    ("Thought: x\nAction: click()", "start_box is missing"),
    ("Thought: x\nAction: click(start_box='(x1,y1)')", "not a point"),
    ("Thought: x\nAction: drag(start_box='(1,2)')", "end_box"),
    ("Thought: x\nAction: scroll(start_box='(1,2)', direction='sideways')", "direction"),
    ("Thought: x\nAction: hotkey(key='')", "hotkey needs a key"),
    ("Thought: x\nAction: Click [12]", "not a function call"),
    ("Thought: x\nAction:", "nothing follows"),
])
def test_uitars_malformed(text, names):
    error = _format_error(parse("uitars", Reply(text=text)))
    assert names in error
    assert "click(start_box='(x,y)')" in error and "finished(content='...')" in error


# ---------- plain (Cockpit's grammar) ----------

@pytest.mark.parametrize("action_text,expected", [
    ("Click (600, 475)", Action("click", point=(600, 475))),
    ("Click at (600, 475)", Action("click", point=(600, 475))),
    ("DoubleClick (1, 2)", Action("double_click", point=(1, 2))),
    ("Drag (1, 2) to (3, 4)", Action("drag", point=(1, 2), end=(3, 4))),
    ("Scroll (512, 384) by (0, 400)", Action("scroll", point=(512, 384), delta=(0, 400))),
    ("Type (5, 6); hello", Action("type", text="hello", point=(5, 6))),
    ("Type; hello", Action("type", text="hello", focused=True)),
    ("Press [Enter]", Action("press", text="Enter")),
    ("Scroll [WINDOW]; down", Action("scroll", None, "down")),
    ("ANSWER; 42", Action("answer", text="42")),
])
def test_plain_actions(action_text, expected):
    p = parse("plain", Reply(text=f"Thought: act\nAction: {action_text}"))
    assert p.error == ""
    assert p.action == expected
    assert p.thought == "act"


@pytest.mark.parametrize("text,names", [
    ("Thought: hmm", "no 'Action:'"),
    ("Thought: x\nAction: Click [12]", "numbered element"),
    ("Thought: x\nAction: Fly (1, 2)", "is not an action"),
])
def test_plain_malformed(text, names):
    error = _format_error(parse("plain", Reply(text=text)))
    assert names in error and "Click (x, y)" in error


def test_plain_round_trips_canonical_text():
    for a in (Action("click", point=(1, 2)), Action("drag", point=(1, 2), end=(3, 4)),
              Action("scroll", point=CENTRE, delta=(0, 500)), Action("type", text="x y", focused=True)):
        assert parse("plain", Reply(text=f"Thought: t\nAction: {a}")).action == a


# ---------- detect ----------

@pytest.mark.parametrize("reply,dialect", [
    (Reply(text="Thought: xxx\nAction: click(start_box='(197,525)')"), "uitars"),
    (Reply(text="Thought: done\nAction: finished(content='ok')"), "uitars"),
    (Reply(text="Thought: x\nAction: wait()"), "uitars"),
    (Reply(text=_qwen_text({"action": "left_click", "coordinate": [1, 2]})), "qwen"),
    (Reply(tool_calls=[_call("computer_use", {"action": "wait"})]), "qwen"),
    (Reply(text="ok", tool_calls=[_call("computer", {"action": "screenshot"})]), "claude"),
    (Reply(tool_calls=[_call("click", {"x": 1, "y": 2})]), "openai_tools"),
    (_responses({"type": "wait"}), "openai_computer"),
    (Reply(output=[{"type": "message", "content": [{"type": "output_text", "text": "hi"}]}]), "openai_computer"),
    (Reply(text="Thought: x\nAction: Click (600, 475)"), "plain"),
    (Reply(text="Thought: x\nAction: Type; hello"), "plain"),
    (Reply(text="Thought: x\nAction: Click [12]"), None),  # marks: the caller's dialect
    (Reply(text="Thought: x\nAction: Type [3]; red shoes"), None),
    (Reply(text="Thought: x\nAction: ANSWER; 42"), None),
    (Reply(text="I am thinking."), None),
    (Reply(tool_calls=[_call("web_search", {"q": "x"})]), None),
])
def test_detect(reply, dialect):
    assert detect(reply) == dialect


def test_detected_replies_parse_in_their_dialect():
    for reply in (Reply(text="Thought: a\nAction: click(start_box='(1,2)')"),
                  Reply(text=_qwen_text({"action": "left_click", "coordinate": [1, 2]})),
                  Reply(tool_calls=[_call("computer", {"action": "left_click", "coordinate": [1, 2]})]),
                  Reply(tool_calls=[_call("click", {"x": 1, "y": 2})]),
                  _responses({"type": "click", "button": "left", "x": 1, "y": 2}),
                  Reply(text="Thought: a\nAction: Click (1, 2)")):
        dialect = detect(reply)
        assert parse(dialect, reply).action == Action("click", point=(1, 2)), dialect


# ---------- prompts and tools ----------

@pytest.mark.parametrize("dialect", DIALECTS)
def test_system_prompt_states_size_and_space(dialect):
    text = system_prompt(dialect, width=1288, height=728, space_words="pixels of the 1288x728 screenshot")
    assert text.strip()
    if dialect != "openai_computer":
        assert "1288x728" in text and "pixels of the 1288x728 screenshot" in text


def test_tools_per_dialect_and_unknown_dialects():
    assert tools("plain", width=10, height=20) is None and tools("uitars", width=10, height=20) is None
    assert tools("openai_computer", width=1024, height=768) == [
        {"type": "computer_use_preview", "display_width": 1024, "display_height": 768, "environment": "browser"}]
    qwen = tools("qwen", width=1288, height=728)
    assert [t["function"]["name"] for t in qwen] == ["computer_use"]
    assert "1288x728" in qwen[0]["function"]["description"]
    assert "left_click" in qwen[0]["function"]["parameters"]["properties"]["action"]["enum"]
    (claude,) = tools("claude", width=1280, height=800)
    assert claude["function"]["name"] == "computer"
    assert {"coordinate", "start_coordinate", "text", "scroll_direction", "scroll_amount"} <= set(
        claude["function"]["parameters"]["properties"])
    names = [t["function"]["name"] for t in tools("openai_tools", width=1280, height=800)]
    assert names == "click double_click right_click hover drag scroll type press goto back wait answer".split()
    for dialect in DIALECTS:
        json.dumps(tools(dialect, width=1, height=1))  # sendable as JSON
    with pytest.raises(ValueError):
        parse("marks", Reply(text="Action: Click [1]"))
    with pytest.raises(ValueError):
        system_prompt("nope", width=1, height=1, space_words="")


# ---------- key names ----------

@pytest.mark.parametrize("given,expected", [
    (["ctrl", "c"], "Ctrl+c"), (["CTRL", "A"], "Ctrl+A"), (["shift", "Tab"], "Shift+Tab"),
    (["Return"], "Enter"), (["KP_Enter"], "Enter"), (["Page_Down"], "PageDown"), (["Prior"], "PageUp"),
    (["BackSpace"], "Backspace"), (["Escape"], "Escape"), (["esc"], "Escape"), (["ArrowDown"], "Down"),
    (["super", "l"], "Meta+l"), (["win"], "Meta"), (["cmd", "c"], "Meta+c"), (["option", "x"], "Alt+x"),
    (["KP_5"], "5"), (["F5"], "F5"), (["space"], "Space"), ([" "], "Space"), (["minus"], "-"),
    (["a", "ctrl"], "Ctrl+a"), (["ctrl+a"], "Ctrl+a"), (["CTRL+SHIFT+T"], "Ctrl+Shift+T"), (["+"], "+"),
])
def test_key_combinations(given, expected):
    assert keys.combination(given) == expected


def test_key_spellings():
    assert keys.from_xdotool("ctrl+shift+t") == "Ctrl+Shift+t"
    assert keys.from_words("ctrl c") == "Ctrl+c"
    assert keys.from_words("ctrl+c") == "Ctrl+c"
    assert keys.from_cockpit("Ctrl + A") == "Ctrl+A"
    assert keys.from_cockpit("Page Down") == "PageDown"
    with pytest.raises(keys.KeyNameError):
        keys.from_xdotool("ctrl+a Delete")
    with pytest.raises(keys.KeyNameError):
        keys.combination([])
    for text in ("Ctrl+c", "Enter", "PageDown", "Shift+Tab", "Meta+l"):  # Press text reads back in the grammar
        assert parse_action(str(Action("press", text=text))) == Action("press", text=text)
