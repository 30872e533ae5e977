"""Driving the real window in tests: waiting for its runs, reading what they recorded, clicking a mark's box,
reading a tree's cells as shown."""
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

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


def lines_needed(text: str, fm, width: int) -> int:
    """How many lines `text` needs at `width` pixels, wrapped at spaces (a word wider than a line is split)."""
    lines, line = 1, ""
    for word in text.split():
        while fm.horizontalAdvance(word) > width and len(word) > 1:  # a long word fills lines of its own
            cut = max([i for i in range(1, len(word)) if fm.horizontalAdvance(word[:i]) <= width] or [1])
            lines, line, word = lines + (1 if line else 0) + 1, "", word[cut:]
        trial = f"{line} {word}".strip()
        if fm.horizontalAdvance(trial) <= width:
            line = trial
        else:
            lines, line = lines + 1, word
    return lines


def cell_whole(tree, item, col: int) -> bool:
    """A tree cell's text is all on screen: its column is shown, the row tall enough for its wrapped lines."""
    from PySide6.QtWidgets import QStyle
    if tree.isColumnHidden(col) or not item.text(col):
        return not tree.isColumnHidden(col)
    rect = tree.visualRect(tree.indexFromItem(item, col))
    width = rect.width() - 2 * (tree.style().pixelMetric(QStyle.PM_FocusFrameHMargin, None, tree) + 1)
    fm = tree.fontMetrics()
    return rect.height() >= lines_needed(item.text(col), fm, width) * fm.lineSpacing()


def when_shown(qtbot, find, act):
    """Act on a popup or dialog as soon as it opens (a menu's exec and a dialog's exec wait for the person)."""
    def poll():
        widget = find()
        if widget is None:
            QTimer.singleShot(20, poll)
        else:
            act(widget)
    QTimer.singleShot(0, poll)


def right_click(view, pos: QPoint) -> None:
    """What a right-click on the view's viewport produces."""
    vp = view.viewport()
    QApplication.sendEvent(vp, QContextMenuEvent(QContextMenuEvent.Mouse, pos, vp.mapToGlobal(pos)))


def choose_file(dlg, path) -> None:
    """In Qt's open-file dialog: the path typed into its file name field, and Open (as a person does it;
    selectFile alone waits for the folder to be read)."""
    from PySide6.QtWidgets import QLineEdit
    dlg.findChild(QLineEdit, "fileNameEdit").setText(str(path))
    dlg.accept()


def run_shown(qtbot, p, rid):
    """Review panel `p` opens run `rid`, and the viewer has it."""
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.run is not None and p.viewer.run["id"] == rid, timeout=5000)
