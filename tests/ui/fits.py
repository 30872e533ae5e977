"""The layout checker of issue #30: what does not fit a window on a small screen, in words that say what to fix.

`fit_violations(top, screen)` lists the window grown (or wanting to grow) past the screen, a shown widget outside
the window or cut off by its parent, and text cut without "…" and the full text in a tooltip, naming the Cockpit
class to fix. Used by tests/ui/test_window_fits.py (every window and state, issue #38), the dialogs' tests and
tests/ui/reports/test_reports_panel.py.
"""
from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QLabel,
    QListView,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QTabBar,
    QTableView,
    QToolButton,
    QTreeView,
    QWidget,
)

from cockpit.ui.plaintext import shown_text

SCREEN = QSize(1024, 700)
#: What a window manager's frame takes around a window at most (openbox: a 20-pixel title bar and borders; a GNOME
#: or KDE title bar is up to ~38 px): a window's minimum, frame included, must fit the screen (issue #38, B1).
FRAME = QSize(16, 50)


# ---------- the checker ----------
def _owner(widget: QWidget) -> str:
    """The nearest Cockpit class around `widget` (where to fix it), with its module."""
    p = widget
    while p is not None:
        if type(p).__module__.startswith("cockpit"):
            return f"{type(p).__name__} ({type(p).__module__})"
        p = p.parentWidget()
    return "?"


def _name(widget: QWidget, text: str = "") -> str:
    short = text if len(text) <= 40 else text[:38] + "…"
    obj = f" #{widget.objectName()}" if widget.objectName() else ""
    return f"{type(widget).__name__}{obj} {short!r}" if text else f"{type(widget).__name__}{obj}"


def _in_scroll_area(widget: QWidget, top: QWidget) -> bool:
    """Inside a scroll area's viewport: it may lie beyond it, scrolled out of view."""
    p = widget.parentWidget()
    while p is not None and p is not top:
        outer = p.parentWidget()
        if isinstance(outer, QAbstractScrollArea) and p is outer.viewport():
            return True
        p = outer
    return False


def _plain(label: QLabel) -> tuple[str, bool]:
    """A label's text as shown, and whether it is rich text."""
    text = label.text()
    rich = label.textFormat() == Qt.RichText or (label.textFormat() == Qt.AutoText and QtGui.Qt.mightBeRichText(text))
    return (shown_text(text, Qt.RichText) if rich else text), rich


def _text_width(label: QLabel, rich: bool) -> int:
    if rich:
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(label.text())
        return int(doc.idealWidth())
    fm, text = label.fontMetrics(), label.text()
    if label.buddy() is not None:  # "&Task:" shows "Task:", the T underlined
        text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return max((fm.horizontalAdvance(line) for line in text.split("\n")), default=0)


def _elided_with_tip(shown: str, tooltip: str) -> bool:
    """Shown with "…", and the tooltip holds what was left out (every shown piece is in it, and it is longer)."""
    if "…" not in shown or not tooltip:
        return False
    full = " ".join(shown_text(tooltip).split())
    pieces = [" ".join(p.split()) for p in shown.split("…") if p.strip()]
    return len(full) > len(" ".join(pieces)) and all(p in full for p in pieces)


def _label_problem(label: QLabel) -> str | None:
    shown, rich = _plain(label)
    if not shown.strip():
        return None
    room = label.contentsRect().width() - 2 * max(label.margin(), 0) - max(label.indent(), 0)
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need > label.height() + 2:
            return f"wrapped text needs {need} px of height, has {label.height()} px"
        return None
    width = _text_width(label, rich)
    elided = _elided_with_tip(shown, label.toolTip())
    if width > room + 1 and not elided:
        return f"text {width} px in {room} px, no elision" + (" (… but no full tooltip)" if "…" in shown else "")
    filled = width > room - 2 * label.fontMetrics().averageCharWidth()  # cut to its room, not a "Starting…"
    if "…" in shown and filled and not elided and not label.toolTip():
        return "elided without its full text in a tooltip"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    if isinstance(button, QToolButton) or not button.text():
        return None
    if button.width() + 1 < button.sizeHint().width():
        return f"text cut: {button.width()} px, needs {button.sizeHint().width()} px"
    return None


def _combo_problem(box: QComboBox) -> str | None:
    if box.objectName() == "lookInCombo" and isinstance(box.window(), QFileDialog):
        return None  # Qt's file dialog paints its folder elided in the middle and lists every parent when opened
    if box.isEditable() or not box.currentText():
        return None
    opt = QStyleOptionComboBox()
    box.initStyleOption(opt)
    room = box.style().subControlRect(QStyle.CC_ComboBox, opt, QStyle.SC_ComboBoxEditField, box).width()
    need = box.fontMetrics().horizontalAdvance(box.currentText())
    if need > room + 1 and box.currentText() not in shown_text(box.toolTip()):
        return f"shows {need} px of text in {room} px, cut without a tooltip"
    return None


def _view_problems(view: QAbstractItemView) -> list[str]:
    """Cells whose text is wider than their column and that have no tooltip (Qt elides them with "…")."""
    model, found = view.model(), []
    if model is None:
        return found
    fm = view.fontMetrics()
    columns = model.columnCount(QModelIndex()) if isinstance(view, (QTableView, QTreeView)) else 1
    margin = 2 * (view.style().pixelMetric(QStyle.PM_FocusFrameHMargin, None, view) + 1)  # Qt's text margins
    for c in range(columns):
        if isinstance(view, (QTableView, QTreeView)) and view.isColumnHidden(c):
            continue
        for r in range(min(model.rowCount(QModelIndex()), 40)):
            idx = model.index(r, c)
            text = idx.data(Qt.DisplayRole)
            if not isinstance(text, str) or not text:
                continue
            rect = view.visualRect(idx)
            if rect.width() <= 0:
                continue  # not laid out: nothing of it is shown
            width = rect.width() - margin
            if idx.data(Qt.DecorationRole) is not None:
                width -= view.iconSize().width() if view.iconSize().width() > 0 else 16
            if fm.horizontalAdvance(text.split("\n")[0]) > width and not idx.data(Qt.ToolTipRole):
                head = model.headerData(c, Qt.Horizontal)
                found.append(f"cell ({r}, {head!r}) {text[:30]!r}: {fm.horizontalAdvance(text)} px in {width} px, "
                             "no tooltip")
                break  # one per column is enough to say what to fix
    return found


def _minimum(widget: QWidget) -> QSize:
    """What a layout gives `widget` at least."""
    hint = widget.minimumSizeHint()
    pol = widget.sizePolicy()
    w = 0 if pol.horizontalPolicy() == QSizePolicy.Ignored else max(hint.width(), 0)
    h = 0 if pol.verticalPolicy() == QSizePolicy.Ignored else max(hint.height(), 0)
    return QSize(max(w, widget.minimumWidth()), max(h, widget.minimumHeight()))


def _depth(widget: QWidget) -> int:
    n, p = 0, widget
    while p is not None:
        n, p = n + 1, p.parentWidget()
    return n


def _who_wants(top: QWidget, hint: QSize, screen: QSize) -> str:
    """The innermost shown widget that asks for more than the screen, and the chain of biggest parts under it."""
    said = []
    for horizontal, over in ((True, hint.width() > screen.width()), (False, hint.height() > screen.height())):
        if not over:
            continue
        size = (lambda c: _minimum(c).width()) if horizontal else (lambda c: _minimum(c).height())
        limit = screen.width() - 60 if horizontal else screen.height() - 120
        big = [c for c in top.findChildren(QWidget) if c.isVisible() and c.window() is top
               and not _in_scroll_area(c, top) and size(c) > limit]
        if not big:
            continue
        inner = max(big, key=_depth)
        path, at = [], inner
        for _ in range(8):  # down the biggest child, while it is a big part of the need
            kids = [c for c in at.findChildren(QWidget, options=Qt.FindDirectChildrenOnly) if c.isVisible()]
            if not kids or size(max(kids, key=size)) < 200:
                break
            at = max(kids, key=size)
            path.append(f"{_name(at, _text_of(at))} {_minimum(at).width()}x{_minimum(at).height()}")
        said.append(f"{_name(inner, _text_of(inner))} in {_owner(inner)} needs {_minimum(inner).width()}x{_minimum(inner).height()}"
                    + (f", most of it: {' > '.join(path)} in {_owner(at)}" if path else ""))
    return ": " + "; ".join(said) if said else ""


def _text_of(widget: QWidget) -> str:
    if isinstance(widget, (QLabel, QAbstractButton)):
        return widget.text()
    return widget.currentText() if isinstance(widget, QComboBox) else ""


def _in_combo(widget: QWidget) -> bool:
    p = widget
    while p is not None:
        if isinstance(p, QComboBox) or type(p).__name__.startswith("QComboBox"):
            return True
        p = p.parentWidget()
    return False


def _cut_by_parent(child: QWidget, top: QWidget) -> bool:
    """Part of a shown widget lies outside its parent (drawn cut off), where no scrolling brings it into view."""
    parent = child.parentWidget()
    if parent is None or parent is top or _in_scroll_area(child, top) or isinstance(parent, QTabBar):
        return False
    return not parent.rect().contains(child.geometry())


def frame_violations(top: QWidget, screen: QSize = SCREEN, frame: QSize = FRAME) -> list[str]:
    """A window whose minimum size, with a window manager's `frame` around it, is larger than the screen: the
    window manager cannot fit it, and its title bar or its status bar ends up off the screen (issue #38)."""
    for _ in range(3):
        QApplication.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    room = screen - frame
    hint = top.minimumSizeHint()
    if hint.width() <= room.width() and hint.height() <= room.height():
        return []
    return [f"{type(top).__name__} wants at least {hint.width()}x{hint.height()}, more than the {room.width()}x"
            f"{room.height()} a {screen.width()}x{screen.height()} screen leaves inside a window frame"
            + _who_wants(top, hint, room)]


def fit_violations(top: QWidget, screen: QSize = SCREEN) -> list[str]:
    """What does not fit `top` (a window or dialog) on a `screen`-sized screen, in words that say what to fix:
    the window grown or wanting to grow past the screen; a shown widget outside the window or cut off by its
    parent (children of a scroll area's viewport may be scrolled away); a shown label, button or combo box whose
    text is cut without "…" and the full text in its tooltip; table and tree cells cut without a tooltip."""
    for _ in range(3):
        QApplication.processEvents()
    # a text set by the last of those (a run's news arriving) is laid out before it is judged: labels at the
    # size of their old text are a moment of the check's making, not a person's
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    found = []
    hint = top.minimumSizeHint()
    wants_more = hint.width() > screen.width() or hint.height() > screen.height()
    if top.width() > screen.width() or top.height() > screen.height():
        found.append(f"{type(top).__name__} grew to {top.width()}x{top.height()}"
                     + ("" if wants_more else " though its minimum fits (opened at this size, or grown in an "
                                              "earlier state and not shrunk back)"))
    if wants_more:
        found.append(f"{type(top).__name__} wants at least {hint.width()}x{hint.height()} (its minimum size hint)"
                     + _who_wants(top, hint, screen))
    box = top.rect()
    for child in top.findChildren(QWidget):
        if not child.isVisible() or child.window() is not top or child.width() <= 0 or child.height() <= 0:
            continue  # (a dialog of the window is a window of its own: checked on its own)
        text = _text_of(child)
        where = f"{_name(child, text)} in {_owner(child)}"
        r = QRect(child.mapTo(top, QPoint(0, 0)), child.size())
        if not _in_scroll_area(child, top) and not box.contains(r):
            found.append(f"{where}: at {r.getRect()}, outside the {box.width()}x{box.height()} window")
        elif _cut_by_parent(child, top):
            p = child.parentWidget()
            found.append(f"{where}: at {child.geometry().getRect()}, cut off by its {_name(p)} of "
                         f"{p.width()}x{p.height()}")
        problem = None
        if isinstance(child, QLabel) and child.parentWidget() is not None \
                and not isinstance(child.parentWidget(), QTabBar):
            problem = _label_problem(child)
        elif isinstance(child, (QPushButton, QCheckBox, QRadioButton)):
            problem = _button_problem(child)
        elif isinstance(child, QComboBox):
            problem = _combo_problem(child)
        if problem:
            found.append(f"{where}: {problem}")
        if isinstance(child, (QTableView, QTreeView, QListView)) and not _in_combo(child):
            found += [f"{_name(child)} in {_owner(child)}: {p}" for p in _view_problems(child)]
    return found


def overlaps(top: QWidget) -> list[str]:
    """Shown widgets of one layout drawn over each other (a row squeezed under the next: the step page button
    under Review's step header at the window's minimum size, issue #38 B8)."""
    found = []
    for parent in [top, *top.findChildren(QWidget)]:
        lay = parent.layout()
        if lay is None or not parent.isVisible() or parent.window() is not top:
            continue
        kids = [c for c in parent.findChildren(QWidget, options=Qt.FindDirectChildrenOnly)
                if c.isVisible() and not c.isWindow() and lay.indexOf(c) >= 0 and c.width() > 0 and c.height() > 0]
        for i, a in enumerate(kids):
            for b in kids[i + 1:]:
                both = a.geometry().intersected(b.geometry())
                if both.width() > 1 and both.height() > 1:
                    found.append(f"{_name(a, _text_of(a))} and {_name(b, _text_of(b))} in {_owner(a)} overlap "
                                 f"({both.width()}x{both.height()} px at {both.x()},{both.y()})")
    return found
