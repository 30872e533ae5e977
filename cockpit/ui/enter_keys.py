"""Ctrl+Return and the keypad's Ctrl+Enter as one key, as people take them (walkthrough 5: Re-ask's button said
"Send (Ctrl+Enter)" and the keypad's Enter with Ctrl did nothing)."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

CTRL_ENTER = ("Ctrl+Return", "Ctrl+Enter")  # the main keyboard's Return, the keypad's Enter


def ctrl_enter(parent: QWidget, slot: Callable[[], object]) -> QShortcut:
    """Ctrl+Return or the keypad's Ctrl+Enter anywhere in `parent`'s window calls `slot`."""
    sc = QShortcut(parent)
    sc.setKeys([QKeySequence(k) for k in CTRL_ENTER])
    sc.setContext(Qt.WindowShortcut)
    sc.activated.connect(slot)
    return sc
