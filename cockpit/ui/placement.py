"""Where a top-level window goes: inside the screen's free area with its window manager's frame (issue #38).

Qt's `geometry()` is the window's inside; a window manager puts a title bar and borders around it
(`frameGeometry()`). A window placed at the screen's corner at the screen's size has its title bar above the
screen (it cannot be dragged) and its bottom, the status bar, below it. Until the window is shown Qt does not
know the frame: a guess stands in for it, and once the window manager has framed the window it is placed again
with the frame it really has.
"""
from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize, QTimer
from PySide6.QtWidgets import QWidget

#: A title bar and borders, until the window manager says (openbox: 20 + 4; GNOME and KDE title bars are taller).
FRAME_GUESS = QMargins(4, 34, 4, 4)


def frame_margins(window: QWidget) -> QMargins:
    """The frame around a shown window (none without a window manager); the guess before it is shown."""
    if not window.isVisible():
        return FRAME_GUESS
    outer, inner = window.frameGeometry(), window.geometry()
    return QMargins(inner.left() - outer.left(), inner.top() - outer.top(), outer.right() - inner.right(),
                    outer.bottom() - inner.bottom())


def within(inside: QRect, free: QRect, frame: QMargins, minimum: QSize | None = None) -> QRect:
    """`inside` (a window's geometry) made no larger than `free` less the `frame` (not smaller than `minimum`)
    and moved so that the window with its frame lies in `free`; where it cannot, its title bar (the top left)
    stays on the screen."""
    room, minimum = free.marginsRemoved(frame), minimum or QSize(0, 0)
    width = max(min(inside.width(), room.width()), minimum.width())
    height = max(min(inside.height(), room.height()), minimum.height())
    x = max(min(inside.x(), room.x() + room.width() - width), room.x())
    y = max(min(inside.y(), room.y() + room.height() - height), room.y())
    return QRect(x, y, width, height)


def free_area(window: QWidget) -> QRect:
    """The free area (no panels, no docks) of the screen the window is on."""
    from PySide6.QtGui import QGuiApplication
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def keep_on_screen(window: QWidget, frame: QMargins | None = None) -> None:
    """Move and shrink a window that is not maximized so that it and its frame lie in its screen's free area."""
    if window.isMaximized() or window.isFullScreen():
        return
    frame = frame_margins(window) if frame is None else frame
    placed = within(window.geometry(), free_area(window), frame, window.minimumSizeHint())
    if placed != window.geometry():
        window.setGeometry(placed)


def keep_on_screen_once_framed(window: QWidget) -> None:
    """Place the window again once the window manager has framed it (its frame is known only then). Without a
    window manager there is no frame, and the window stays where it was put; one sized since it was shown (by the
    person, or a program) keeps that size."""
    size = window.size()

    def again():
        if not frame_margins(window).isNull() and window.size() == size:
            keep_on_screen(window)
    for delay in (0, 300, 1200):
        QTimer.singleShot(delay, window, again)
