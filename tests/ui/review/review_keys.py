"""Keys pressed in Review as a person presses them: the screenshot focused, then the key (with modifiers)."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication


def key_in_review(qtbot, p, key, mod=Qt.NoModifier) -> None:
    p.activateWindow()
    p.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is p.viewer.view, timeout=3000)
    qtbot.keyClick(p.viewer.view, key, mod)
