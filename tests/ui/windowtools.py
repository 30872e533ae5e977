"""Driving the real window in tests: waiting for its runs, reading what they recorded, clicking a mark's box."""
from PySide6.QtCore import QPoint, Qt

from cockpit.core.store import Store

LONG = 90_000  # ms: long enough for a demo run on a slow machine


def records(w):
    """The window's current run as stored: (run, steps, decisions)."""
    with Store(w.store_root) as s:
        return s.run(w.runs.run_id), s.steps(w.runs.run_id), s.decisions(w.runs.run_id)


def wait_idle(qtbot, w, timeout=LONG):
    qtbot.waitUntil(lambda: not w.runs.running, timeout=timeout)


def wait_paused_after(qtbot, w, n):
    """The run is paused at a step boundary after step n finished."""
    qtbot.waitUntil(lambda: bool(n in w.live.log_panel.items and w.live.log_panel.items[n].text(4))
                    and w.bridge.state == "paused", timeout=LONG)


def click_mark(qtbot, w, mark_id):
    """A left click in the middle of mark `mark_id`'s box on the Live tab's screenshot."""
    m = next(m for m in w.live.view.marks() if m.id == mark_id)
    x, y, bw, bh = m.bbox
    pos = w.live.view.mapFromScene(x + bw / 2, y + bh / 2)
    qtbot.mouseClick(w.live.view.viewport(), Qt.LeftButton, pos=QPoint(pos.x(), pos.y()))
