"""Parsing the actions models write: tolerant of format, strict about meaning."""
import pytest

from cockpit.core.actions import Action, parse_action
from cockpit.core.errors import ActionParseError


@pytest.mark.parametrize("text,expected", [
    ("Click [12]", Action("click", 12)),
    ("click 12", Action("click", 12)),
    ("**Click [7]**", Action("click", 7)),
    ("`Click [3]`.", Action("click", 3)),
    ("Type [5]; red shoes", Action("type", 5, "red shoes")),
    ("Type [5]; [red shoes]", Action("type", 5, "red shoes")),
    ("type 5; a; b", Action("type", 5, "a; b")),
    ("Type [5] hello", Action("type", 5, "hello")),
    ("Scroll [WINDOW]; down", Action("scroll", None, "down")),
    ("scroll window; UP", Action("scroll", None, "up")),
    ("Scroll [4]; down", Action("scroll", 4, "down")),
    ("Scroll down", Action("scroll", None, "down")),
    ("Wait", Action("wait")),
    ("GoBack", Action("back")),
    ("Go back", Action("back")),
    ("Google", Action("google")),
    ("ANSWER; 42", Action("answer", text="42")),
    ("Answer: [The price is $5]", Action("answer", text="The price is $5")),
    ("Select [2]; Large", Action("select", 2, "Large")),
    ("Hover [9]", Action("hover", 9)),
    ("Press [Enter]", Action("press", text="Enter")),
    ("Goto [https://example.com]", Action("goto", text="https://example.com")),
])
def test_parses_what_models_write(text, expected):
    assert parse_action(text) == expected


@pytest.mark.parametrize("action", [
    Action("click", 12), Action("type", 5, "red shoes"), Action("scroll", None, "down"),
    Action("scroll", 4, "up"), Action("wait"), Action("back"), Action("google"),
    Action("answer", text="42"), Action("select", 2, "Large"), Action("hover", 9),
    Action("press", text="Ctrl+A"), Action("goto", text="https://example.com"),
])
def test_canonical_text_parses_back_to_the_same_action(action):
    assert parse_action(str(action)) == action


def test_canonical_forms_match_webvoyager():
    assert str(Action("click", 12)) == "Click [12]"
    assert str(Action("type", 3, "hi")) == "Type [3]; hi"
    assert str(Action("scroll", None, "down")) == "Scroll [WINDOW]; down"
    assert str(Action("back")) == "GoBack"
    assert str(Action("answer", text="x")) == "ANSWER; x"


@pytest.mark.parametrize("text,msg", [
    ("Fly [3]", "is not an action"),
    ("Click", "needs an element number"),
    ("Click [abc]", "needs an element number"),
    ("Scroll [3]; sideways", "needs a direction"),
    ("Press", "needs a key"),
    ("", "is not an action"),
])
def test_bad_actions_get_helpful_errors(text, msg):
    with pytest.raises(ActionParseError, match=msg):
        parse_action(text)


@pytest.mark.parametrize("text,expected", [
    ("Type [3] Hello; world", Action("type", 3, "Hello; world")),
    ("Scroll [3] down", Action("scroll", 3, "down")),
    ("Scroll [WINDOW] down", Action("scroll", None, "down")),
    ("ANSWER; [A] is right, not [B]", Action("answer", text="[A] is right, not [B]")),
    ("ANSWER; __init__", Action("answer", text="__init__")),
    ("__Click [3]__", Action("click", 3)),
])
def test_review_findings_parse_as_meant(text, expected):
    assert parse_action(text) == expected
