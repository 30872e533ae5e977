"""Tooltips of text from models and pages: shown literally, and kept short."""
import pytest
from PySide6.QtCore import Qt

from cockpit.core.agent import events as ev
from cockpit.ui.live.step_log import StepLogPanel
from cockpit.ui.plaintext import shown_text


def _log(qtbot, thought):
    log = StepLogPanel()
    qtbot.addWidget(log)
    log.add_event(ev.StepStarted("r1", 1))
    log.add_event(ev.ModelReplied("r1", 1, text=f"Thought: {thought}\nAction: Click [3]", thought=thought,
                                  action_text="Click [3]"))
    row = log.items[1]
    thought_row = row.child(0)
    assert thought_row.text(0).startswith("thought: ")
    return row.toolTip(1), thought_row.toolTip(0)


@pytest.mark.fault("model")
def test_a_huge_thought_makes_a_short_tooltip(qtbot):
    line = "<b>I should</b> look at the page again & compare every row of the table. "
    thought = "\n".join(f"{i}: {line}" for i in range(3000))  # about 230 KB
    assert len(thought) > 200_000
    for tooltip in _log(qtbot, thought):
        seen = shown_text(tooltip, Qt.AutoText)  # what the person reads
        assert len(tooltip) < 5000
        assert seen.startswith("0: <b>I should</b> look")  # the markup is shown as characters
        assert len(seen.splitlines()) <= 41
        hidden = len(thought) - len(seen.rsplit("\n", 1)[0])
        assert seen.splitlines()[-1] == f"… ({hidden:,} more characters; see the step's details)"


def test_one_long_line_is_cut_too(qtbot):
    thought = "word " * 40_000
    for tooltip in _log(qtbot, thought):
        assert len(tooltip) < 2200 and shown_text(tooltip).endswith("more characters; see the step's details)")


def test_a_short_thought_is_unchanged(qtbot):
    thought = "The search box is [5]; type the city.\nThen press Enter."
    assert _log(qtbot, thought) == (thought, thought)
    markup = "<i>click</i> the <b>first</b> result"
    for tooltip in _log(qtbot, markup):
        assert shown_text(tooltip, Qt.AutoText).strip() == markup


def test_the_cut_note_says_where_to_read_the_rest_only_where_there_is_such_a_place():
    from cockpit.ui.plaintext import tip
    long = "x" * 5000
    assert shown_text(tip(long)).endswith("… (3,000 more characters)")  # the approval panel, the plan table
    assert shown_text(tip(long, "open the run to read it all")).endswith(
        "more characters; open the run to read it all)")


def test_a_long_line_wraps_in_its_tooltip_and_keeps_its_characters(qtbot):
    """Qt's escaping made every space non-breaking, so a 1,500-character thought was one tooltip line wider
    than the screen."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication, QLabel, QToolTip

    from cockpit.ui.plaintext import tip
    thought = "<b>Plan</b> " + ("The cart shows 2 items & the total is $30;  I will press [12]. " * 18).strip()
    assert shown_text(tip(thought)) == thought  # markup, '&' and the double space shown as typed
    owner = QLabel("x")
    qtbot.addWidget(owner)
    owner.show()
    QToolTip.showText(owner.mapToGlobal(QPoint(1, 1)), tip(thought), owner)
    label = next(w for w in QApplication.topLevelWidgets() if w.inherits("QLabel") and w.isVisible()
                 and "cart" in w.text())
    screen = owner.screen().availableGeometry().width()
    assert label.width() < min(screen, 900) and label.height() > 3 * label.fontMetrics().height()
    QToolTip.hideText()
