"""The grounding leftovers of issue #32 on real Chromium: rows with their own listener that hold
marked icons, icon-only controls named from what draws them, and text typed into a <select>.

inbox.html is a web-mail list: each row opens its message (a listener on the row) and holds a star
and a trash button of its own; a toolbar of icon-only controls with no text, title or aria-label
(a class, an SVG <use href="#icon-delete">, a background image); a <select> of recipients.
"""
import pytest

from cockpit.core.actions import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.errors import ActionError
from cockpit.core.page.marks import element_text
from cockpit.core.page.observation import observe
from cockpit.core.safety.risk import IRREVERSIBLE, classify


def marks_named(obs, text):
    return [m for m in obs.marks if m.text == text]


def test_each_row_is_a_mark_beside_its_star_and_trash(page, browser):
    obs = observe(page("inbox.html"))
    rows = [m for m in obs.marks if m.text.startswith(("Bettine", "Anselm", "Corinna", "Dario"))]
    assert [m.text for m in rows] == ["Bettine Meeting notes for Thursday", "Anselm Your order has shipped",
                                      "Corinna Lunch?", "Dario Quarterly report draft"], element_text(obs.marks)
    assert len(marks_named(obs, "star icon")) == 4 and len(marks_named(obs, "trash icon")) == 4
    # the row opens the message; its box is the row's, the icons keep theirs inside it
    row = rows[0]
    Executor(browser).run(parse_action(f"Click [{row.id}]"), obs.marks)
    assert browser.js("return document.getElementById('opened').textContent") == "Bettine"
    # clicking the row is not taken for its trash icon by the gate; the trash button is
    assert not classify(parse_action(f"Click [{row.id}]"), row, obs.marks, browser.url).at_least(IRREVERSIBLE)
    trash = marks_named(obs, "trash icon")[0]
    risk = classify(parse_action(f"Click [{trash.id}]"), trash, obs.marks, browser.url)
    assert risk.at_least(IRREVERSIBLE) and any("trash" in e for e in risk.evidence), risk


def test_icon_only_controls_are_named_from_class_svg_and_background(page, browser):
    obs = observe(page("inbox.html"))
    text = element_text(obs.marks)
    assert '<span clickable> "retweet icon"' in text  # a class naming the thing itself
    assert '<a> "delete icon"' in text  # <use href="#icon-delete">
    assert '<div clickable> "archive icon"' in text  # background-image: url(img/archive.svg)
    assert '<button> "trash icon"' in text  # <i class="fa fa-trash">
    delete = marks_named(obs, "delete icon")[0]
    risk = classify(parse_action(f"Click [{delete.id}]"), delete, obs.marks, browser.url)
    assert any("delete" in e for e in risk.evidence), risk


def test_typing_into_a_select_chooses_the_option_it_starts(page, browser):
    obs = observe(page("inbox.html"))
    to = next(m for m in obs.marks if m.tag == "select")
    assert to.text == "To: Anne"  # named by its label, not by the options the label wraps
    out = Executor(browser).run(parse_action(f"Type [{to.id}]; bobine"), obs.marks)
    assert browser.js("return document.getElementById('to').value") == "Bobine"
    assert 'selected "Bobine"' in out.message and "is what was typed" in out.message
    out = Executor(browser).run(parse_action(f"Type [{to.id}]; Bet"), observe(browser).marks)
    assert browser.js("return document.getElementById('to').value") == "Bettine"
    assert "starts with" in out.message


def test_typing_no_option_into_a_select_lists_the_options(page, browser):
    obs = observe(page("inbox.html"))
    to = next(m for m in obs.marks if m.tag == "select")
    with pytest.raises(ActionError) as err:
        Executor(browser).run(parse_action(f"Type [{to.id}]; Zelda"), obs.marks)
    assert 'no option starting with "Zelda"' in str(err.value) and '"Anne", "Bobine", "Bettine"' in str(err.value)
    assert browser.js("return document.getElementById('to').value") == "Anne"  # nothing chosen


def test_nothing_under_a_dialog_is_a_target(page, browser):
    """Rows whose centre the dialog covers are not marked, though they show on both sides of it; rows
    clear of it are; once the dialog is gone, every row is."""
    obs = observe(page("modal_over_list.html"))
    texts = [m.text for m in obs.marks]
    assert "Got it" in texts
    top, bottom = browser.js("const r = document.querySelector('.whatsnew').getBoundingClientRect();"
                             " return [r.top, r.bottom]")
    for m in obs.marks:
        if m.text.startswith("Open night"):
            centre = m.bbox[1] + m.bbox[3] / 2
            assert not top <= centre <= bottom, (m.text, m.bbox, top, bottom)
    under = [t for t in browser.js("return [...document.querySelectorAll('.night')].filter(b => {"
                                   " const r = b.getBoundingClientRect(); const c = (r.top + r.bottom) / 2;"
                                   f" return c >= {top} && c <= {bottom}; }}).map(b => b.textContent)")]
    assert under and not set(under) & set(texts)
    assert any(t.startswith("Open night") for t in texts)  # those clear of the dialog are still marked
    Executor(browser).run(parse_action(f"Click [{next(m.id for m in obs.marks if m.text == 'Got it')}]"), obs.marks)
    texts = [m.text for m in observe(browser).marks]
    assert set(under) <= set(texts)
