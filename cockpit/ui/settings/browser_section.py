"""The model settings' browser part: the window's runs use Chromium on this computer, or a remote WebDriver /
Selenium Grid (issue #21), with extra Chrome arguments. Edits ``webdriver_url`` and ``chrome_args``."""
from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QLineEdit, QWidget

from cockpit.core.settings import Settings, setting_ok
from cockpit.ui.settings.parts import form, label


class BrowserSection(QGroupBox):
    def __init__(self, settings: Settings, parent: QWidget | None = None):
        super().__init__("Browser for the window's runs", parent)
        self.webdriver_edit = QLineEdit(settings.webdriver_url)
        self.webdriver_edit.setPlaceholderText("empty = Chromium on this computer; e.g. http://hub:4444")
        self.chrome_args_edit = QLineEdit(" ".join(settings.chrome_args))
        self.chrome_args_edit.setPlaceholderText("e.g. --no-sandbox (a Grid node run as root)")
        self.form = form()
        self.setLayout(self.form)
        self.form.addRow(label("WebDriver U&RL:", self.webdriver_edit, "webdriver_url"), self.webdriver_edit)
        self.form.addRow(label("Chrome ar&guments:", self.chrome_args_edit, "chrome_args"), self.chrome_args_edit)

    def widgets(self) -> list[QWidget]:
        """In Tab order."""
        return [self.webdriver_edit, self.chrome_args_edit]

    def webdriver_url(self) -> str:
        return self.webdriver_edit.text().strip()

    def problem(self) -> str:
        wd = self.webdriver_url()
        if setting_ok("webdriver_url", wd):
            return ""
        return f"The WebDriver URL {wd!r} is not an http:// or https:// address (e.g. http://hub:4444)."

    def apply(self, s: Settings) -> None:
        s.webdriver_url, s.chrome_args = self.webdriver_url(), self.chrome_args_edit.text().split()
