"""An error nobody foresaw in one of the window's slots is said in the window (walkthrough 6: Branch on an imported
run did nothing, its traceback only on the terminal)."""
import sys

from PySide6.QtWidgets import QMessageBox

from cockpit.ui import unexpected


def test_an_unexpected_error_is_shown_over_the_window_once(qtbot, window, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # put back after the test
    hook = unexpected.install(window)
    try:
        raise AttributeError("'str' object has no attribute 'get'")
    except AttributeError as e:
        hook(type(e), e, e.__traceback__)
    box = window.findChild(QMessageBox, "unexpectedError")
    qtbot.waitUntil(box.isVisible, timeout=3000)
    assert box.text() == "AttributeError: 'str' object has no attribute 'get'"
    assert "did not finish" in box.informativeText() and "Nothing already stored was lost" in box.informativeText()
    hook(ValueError, ValueError("another"), None)  # a second one while it is open: the same box says it
    assert window.findChildren(QMessageBox, "unexpectedError") == [box] and box.text() == "ValueError: another"
