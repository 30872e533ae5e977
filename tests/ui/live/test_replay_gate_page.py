""""Replay in browser" asks before an irreversible step on the page as it is now (walkthrough 8, B1): the pane stayed
dark ("Replaying run …"), the step's row opened the recorded page, and the caption named another run (the one branched
earlier), while the click went to the live page. Real windows (offscreen), real Chromium, a run recorded by
`cockpit run` with the scripted model server (it placed an order unasked), replayed on the same pages."""
from PySide6.QtGui import QImage

from tests.ui.windowtools import LONG, wait_idle


def shown_image(w) -> QImage:
    return w.live.view._pixmap_item.pixmap().toImage().convertToFormat(QImage.Format_RGB32)


def test_the_gate_of_a_replay_shows_the_page_now_and_names_the_replayed_run(qtbot, window_factory, ordered):
    run, steps = ordered
    placed = next(s for s in steps if s["risk"] == "irreversible")
    w = window_factory()
    w.setWindowTitle("Cockpit — Find the pancake recipe")  # the title an earlier run of this window left
    # the window's last run was a branch of another run (walkthrough 8: its parent was named in the replay's caption)
    w.live.branch = {"parent_run": "20261202-102901-8ba288", "parent_step": 1}
    assert w.start_replay(run["id"], speed=None)
    assert w.windowTitle() == f"Cockpit — {run['task']}"
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    req = w.live.approval.request
    assert req.page and req.mark is not None and "Place order" in req.mark.label

    def the_page_now():
        assert w.live.view.has_screenshot(), "the pane stayed dark"
        assert shown_image(w) == QImage.fromData(req.page).convertToFormat(QImage.Format_RGB32), "not the page now"
        assert w.live.view.highlighted() == req.mark.id  # the element found now, boxed
        caption = w.live.banner.fullText()
        assert caption.startswith(f"the page now — step {placed['step']} of run {run['id']}"), caption
        assert "8ba288" not in caption
        assert placed["action"] in w.live.details.summary.toPlainText()  # not "No step selected"

    the_page_now()
    assert w.live.log_panel.current_step() == placed["step"]
    # another row opens its recorded step; the asked row opens the page now again, not the recording
    earlier = next(s for s in steps if s["step"] < placed["step"])
    w.live.log_panel.select_step(earlier["step"])
    qtbot.waitUntil(lambda: w.live.banner.fullText().startswith(f"step {earlier['step']} "), timeout=5000)
    w.live.log_panel.select_step(placed["step"])
    the_page_now()
    w.live.log_panel.select_step(earlier["step"])
    assert w.live.approval.back_btn.isVisible()
    w.live.approval.back_btn.click()  # "Show the action asked about"
    the_page_now()
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    assert w.windowTitle() == f"Cockpit — {run['task']}"
