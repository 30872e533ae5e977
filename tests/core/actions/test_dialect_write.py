"""Writing an action in each dialect (issue #43): what a dialect's parser reads back is the action written."""
import pytest

from cockpit.core.actions import dialects
from cockpit.core.actions.dialects.write import WRITABLE, write
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.llm.prompt import parse_reply

POINTED = [Action("click", point=(412, 230)), Action("double_click", point=(5, 6)),
           Action("right_click", point=(700, 40)), Action("hover", point=(10, 999)),
           Action("drag", point=(100, 200), end=(300, 210)), Action("type", text="it's \"new\"", point=(50, 60)),
           Action("type", text="Ada Lovelace", focused=True), Action("press", text="Ctrl+a"),
           Action("press", text="Enter"), Action("scroll", point=(512, 384), delta=(0, 500)),
           Action("scroll", point=(512, 384), delta=(0, -500)), Action("wait"), Action("back"),
           Action("answer", text="42 items"), Action("goto", text="https://example.com/a?b=1")]


@pytest.mark.parametrize("dialect", [d for d in WRITABLE if d != "marks"])
@pytest.mark.parametrize("action", POINTED, ids=str)
def test_each_pixel_dialect_reads_back_what_was_written(dialect, action):
    if dialect == "uitars" and action.kind == "scroll":  # UI-TARS scrolls by direction: its step is the size
        action = Action("scroll", point=action.point, delta=(0, 500 if action.delta[1] > 0 else -500))
    reply = write(dialect, "I aim at the button.", action)
    parsed = dialects.parse(dialect, reply)
    assert parsed.error == "" and parsed.action == action, (reply, parsed)
    assert parsed.thought == "I aim at the button."
    assert dialects.detect(reply) in (dialect, None)  # a click in plain text is plain; Wait is anyone's


def test_qwen_writes_a_tool_call_block_in_the_text_when_its_server_does_not_parse_calls():
    reply = write("qwen", "There it is.", Action("click", point=(140, 56)), tool_call=False)
    assert reply.tool_calls == [] and "<tool_call>" in reply.text
    assert dialects.parse("qwen", reply).action == Action("click", point=(140, 56))


@pytest.mark.parametrize("text", ["Click [7]", "Type [3]; Ada", "Scroll [WINDOW]; down", "Select [4]; Blue",
                                  "ANSWER; done", "GoBack", "Press [Enter]"])
def test_marks_replies_are_webvoyagers_thought_and_action(text):
    reply = write("marks", "the right one", parse_action(text, pixel=False))
    parsed = parse_reply(reply.text)
    assert parsed.thought == "the right one" and str(parsed.action) == str(parse_action(text, pixel=False))


def test_what_a_dialect_cannot_say_is_refused():
    with pytest.raises(ValueError, match="numbered mark"):
        write("uitars", "t", Action("click", 7))
    with pytest.raises(ValueError, match="openai_computer"):
        write("openai_computer", "t", Action("click", point=(1, 2)))
