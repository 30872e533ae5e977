"""Driving Review and its dialogs as a person does, shared by the Review tests (not a test module)."""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def focus_view(qtbot, p):
    """The Review panel `p` active, the focus on its screenshot (where the label keys are pressed)."""
    p.activateWindow()
    p.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is p.viewer.view, timeout=3000)


def open_dialog(qtbot, window):
    """Ctrl+I in the window: the import dialog, shown."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window._import_dialog is not None and window._import_dialog.isVisible(), timeout=5000)
    return window._import_dialog
