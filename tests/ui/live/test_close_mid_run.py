"""Closing the window while a run goes on asks first (#38: it closed at once, the run stopped without a word):
"A run is going on (step N). Stop it and close?". Cancel keeps the window and the run; "Stop and close" stops the
run, closes the window, and leaves no Chromium behind. Asked for Ctrl+Q (File → Quit) and for the title bar's close
button; the latter's close event is one the window system sends, which a test on the offscreen platform cannot
send (QWindow.close() there is not spontaneous), so Ctrl+Q drives the question here; both call close_question.

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop.
"""
import time

from PySide6.QtWidgets import QApplication, QMessageBox

from cockpit.core.store import Store
from cockpit.ui.live.close_question import STOP_AND_CLOSE
from tests.clitools import processes_mentioning
from tests.ui.windowtools import LONG, when_shown


def _answer(qtbot, said: list, button: str) -> None:
    """When the question opens: note what it says, and press `button`."""
    def press(box):
        said.append(box.text())
        next(b for b in box.buttons() if b.text().replace("&", "") == button).click()
    when_shown(qtbot, lambda: next((b for b in QApplication.topLevelWidgets()
                                    if isinstance(b, QMessageBox) and b.isVisible()
                                    and b.objectName() == "closeQuestion"), None), press)


def test_closing_mid_run_asks_and_stop_and_close_leaves_no_browser(qtbot, window_factory, monkeypatch, tmp_path):
    home = tmp_path / "close-home"
    monkeypatch.setenv("COCKPIT_HOME", str(home))  # the browser's profile is in it: its processes name it
    w = window_factory(demo=True)
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)  # a run going on, at step N
    step = w.runs.latest_step
    assert step > 0 and processes_mentioning(str(home))
    said: list[str] = []
    _answer(qtbot, said, "Cancel")
    w.toolbar.act_quit.trigger()  # Ctrl+Q
    qtbot.waitUntil(lambda: bool(said), timeout=10_000)
    # before the fix: no question; the window closed and the run stopped
    assert said == [f"A run is going on (step {step}). Stop it and close?"]
    qtbot.wait(300)
    assert w.isVisible() and w.bridge.busy and w.live.approval.isVisible()  # Cancel: both go on
    _answer(qtbot, said, STOP_AND_CLOSE)
    w.toolbar.act_quit.trigger()  # asked again
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=30_000)
    assert said[1:] == [f"A run is going on (step {step}). Stop it and close?"]
    deadline = time.monotonic() + 30
    while processes_mentioning(str(home)) and time.monotonic() < deadline:
        qtbot.wait(200)
    assert processes_mentioning(str(home)) == []  # Chromium and its driver are gone
    with Store(w.store_root) as s:
        assert s.run(w.runs.run_id)["status"] == "stopped"
