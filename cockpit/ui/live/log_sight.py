"""A step log's row kept in sight: in the log's viewport, and in the part of it the panels' scroll area shows.

At 1024x700 the take-over panel pushes the step log down, partly out of the panels' scroll area: a row in the
log's viewport can still be off the screen (walkthrough 9 B2). The log scrolls first; what is still cut off, the
scroll area around it scrolls.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QTreeWidget, QTreeWidgetItem, QWidget

KEEP_IN_SIGHT = "keepInSight"  # a widget property: the log's row is not brought into sight at its cost


def bring_into_sight(log: QTreeWidget, item: QTreeWidgetItem) -> None:
    """Scroll so `item`'s row shows: the log itself, then the scroll area holding it."""
    log.scrollToItem(item)
    area = _area(log)
    if area is None:
        return
    rect = log.visualItemRect(item)
    if rect.isEmpty():
        return
    bottom = log.viewport().mapTo(area.widget(), rect.bottomLeft())
    top = log.viewport().mapTo(area.widget(), rect.topLeft())
    bar, seen = area.verticalScrollBar(), area.viewport().height()
    if bottom.y() - bar.value() > seen:  # below the area's edge: as little as shows the row whole
        bar.setValue(min(top.y(), bottom.y() - seen + 1, _kept_top(area)))
    elif top.y() < bar.value():
        bar.setValue(top.y())


def _kept_top(area: QScrollArea) -> int:
    """How far the area may scroll down: no further than the top of a shown panel marked to stay in sight
    (property KEEP_IN_SIGHT: the take-over panel, whose controls the person is using; walkthrough 10 found them
    scrolled away after each of their steps)."""
    body = area.widget()
    tops = [w.y() for w in body.findChildren(QWidget, options=Qt.FindDirectChildrenOnly)  # the area's panels
            if w.property(KEEP_IN_SIGHT) and w.isVisibleTo(body)]
    return min(tops, default=area.verticalScrollBar().maximum())


def bring_into_sight_soon(log: QTreeWidget, item: QTreeWidgetItem) -> None:
    """The same, once the layout has settled (the rows' wrapped heights, a panel that took room)."""
    for ms in (0, 60):
        QTimer.singleShot(ms, log, lambda: item.treeWidget() is log and bring_into_sight(log, item))


def _area(log: QTreeWidget) -> QScrollArea | None:
    w = log.parentWidget()
    while w is not None and not isinstance(w, QScrollArea):
        w = w.parentWidget()
    return w if w is not None and w.widget() is not None and w.widget().isAncestorOf(log) else None
