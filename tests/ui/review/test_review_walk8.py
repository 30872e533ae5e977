"""Review, as walkthrough 8 found it awkward: Compare with… clickable with nothing to compare, the Category box
cut at its start, an empty pale-green box with no run open, and a search that missed tasks with words in
between. A real store, Review offscreen at 1280x800; what is read is what a person sees."""
from PySide6.QtCore import Qt

from cockpit.core.store.newrun import NewRun
from tests.ui.review.review_keys import key_in_review
from tests.ui.windowtools import run_shown


def finished_run(store, task: str, steps: int = 1, url: str = "https://shop.test/") -> str:
    rid = store.new_run(NewRun(task, url, model="m"))
    for i in range(1, steps + 1):
        store.commit_step(rid, dict(step=i, thought="Looking.", action="Scroll [WINDOW]; down",
                                    action_text="Scroll down", status="ok", outcome="scrolled",
                                    url="https://shop.test/", title="Shop"))
    store.finish_run(rid, "max_steps")
    return rid


def test_compare_is_disabled_with_a_reason_when_the_task_has_no_other_run(qtbot, store, panel):
    alone = finished_run(store, "Find the phone number", url="https://phones.test/")
    first = finished_run(store, "Find the address")
    p = panel()
    run_shown(qtbot, p, alone)
    btn = p.viewer.tools.compare_btn
    assert not btn.isEnabled()  # (nor a run from its start page or site: walkthrough 9 offers those too)
    assert btn.toolTip() == ("Cannot compare: no other run of this task, nor one that started on its start page "
                             "or site")
    second = finished_run(store, "Find the address")
    run_shown(qtbot, p, first)
    assert btn.isEnabled() and btn.toolTip().startswith("Another run of the same task")
    assert second


def category_seen_from_its_start(qtbot, box) -> bool:
    """The Category box's text is seen from its first letter: the cursor at 0, drawn at the box's left edge."""
    edit = box.lineEdit()
    qtbot.wait(20)
    return edit.cursorPosition() == 0 and edit.cursorRect().left() < 8


def test_a_long_category_is_seen_from_its_start_and_whole_in_the_tooltip(qtbot, store, panel):
    rid = finished_run(store, "Find the phone number")
    p = panel()
    run_shown(qtbot, p, rid)
    box = p.label_bar.category
    key_in_review(qtbot, p, Qt.Key_2)  # "Visual grounding issue", by its digit
    assert box.currentText() == "Visual grounding issue"
    assert category_seen_from_its_start(qtbot, box), box.lineEdit().cursorPosition()
    assert "Visual grounding issue" in box.toolTip()
    box.setCurrentIndex(6)  # "Site changed or unavailable", picked from the list as a mouse picks it
    box.activated.emit(6)
    assert category_seen_from_its_start(qtbot, box), box.lineEdit().cursorPosition()
    assert box.toolTip().startswith("Site changed or unavailable")


def pale_green_pixels(widget) -> int:
    image = widget.grab().toImage()
    return sum(image.pixelColor(x, y).name() == "#eef6ee"
               for x in range(0, image.width(), 3) for y in range(0, image.height(), 2))


def test_no_empty_answer_box_shows_with_no_run_open(qtbot, store, panel):
    rid = finished_run(store, "Find the phone number")
    p = panel()
    assert p.viewer.run is None
    boxes = [w for w in (p.viewer.answer_line, p.viewer.answer) if w.isVisible()]
    assert boxes and not any(pale_green_pixels(w) for w in boxes)  # nothing drawn where no answer is
    run_shown(qtbot, p, rid)
    assert any(pale_green_pixels(w) for w in boxes)  # a run's answer in its box
    p.browser.search.setText("no such task anywhere")  # the open run leaves the list: no run is open again
    p.browser.apply_filter()
    assert p.viewer.run is None
    assert not any(pale_green_pixels(w) for w in boxes)


def test_a_run_with_no_steps_shows_none_of_the_last_runs_step(qtbot, store, panel):
    """Walkthrough 10 (B2): after step 4 of one run, opening a run that failed before its first step left step
    4's line and details on screen, Branch, Replay and the step's page enabled (Branch then did nothing)."""
    from testkit.fakeruns import make_run
    other = make_run(store, steps=6, task="Read the account page")
    empty = store.new_run(NewRun("Read the page that hangs", "http://127.0.0.1:9/slow", model="m"))
    store.finish_run(empty, "failed", error="the start page did not load")
    p = panel()
    run_shown(qtbot, p, other)
    p.viewer.go(3)
    assert "Step 4/6" in p.viewer.step_info.text() and "Step 4" in p.viewer.details.summary.toPlainText()
    run_shown(qtbot, p, empty)
    v, tools = p.viewer, p.viewer.tools
    assert v.step_info.text() == "" and v.current() is None
    assert v.details.summary.toPlainText() == "No step selected."
    assert not tools.branch_btn.isEnabled() and tools.branch_btn.toolTip() == "Cannot branch: the run has no steps"
    assert not tools.replay_btn.isEnabled() and not tools.step_page_btn.isEnabled()
    run_shown(qtbot, p, other)  # a run with steps: its tools back
    assert tools.branch_btn.isEnabled() and tools.replay_btn.isEnabled()
