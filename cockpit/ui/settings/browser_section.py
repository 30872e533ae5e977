"""The model settings' browser part: the window's runs use Chromium on this computer, or a remote WebDriver /
Selenium Grid (issue #21), with extra Chrome arguments, at a viewport and device scale factor (issue #39), and
whether runs record the web (issue #41). Edits ``webdriver_url``, ``chrome_args``, ``viewport``,
``device_scale_factor`` and ``record_web``."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QGroupBox, QLabel, QLineEdit, QSpinBox, QWidget

from cockpit.core.browser.session import BrowserConfig
from cockpit.core.settings import Settings, field_help, setting_ok
from cockpit.core.settings_checks import MAX_SCALE, MAX_VIEWPORT, MIN_SCALE, MIN_VIEWPORT
from cockpit.ui.settings.parts import form, label, row


class BrowserSection(QGroupBox):
    screen_changed = Signal()  # the viewport or the device scale changed (the screenshot the model is sent)

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
        self.width_spin, self.height_spin = (self._side(v) for v in settings.viewport)
        self.scale_spin = QDoubleSpinBox()
        self.scale_spin.setRange(MIN_SCALE, MAX_SCALE)
        self.scale_spin.setDecimals(2)
        self.scale_spin.setSingleStep(0.25)
        self.scale_spin.setValue(settings.device_scale_factor)
        self.scale_spin.setToolTip(field_help("device_scale_factor"))
        times, scale = QLabel("x"), QLabel("device scale:")
        scale.setBuddy(self.scale_spin)
        scale.setToolTip(field_help("device_scale_factor"))
        viewport = label("Viewport si&ze:", self.width_spin, None)
        viewport.setToolTip(field_help("viewport"))
        self.form.addRow(viewport, row(self.width_spin, times, self.height_spin, scale, self.scale_spin))
        for box in (self.width_spin, self.height_spin, self.scale_spin):
            box.valueChanged.connect(self.screen_changed)
        self.record_box = QCheckBox("Record the web with every run (replay as recorded, inspect each step)")
        self.record_box.setChecked(settings.record_web)
        self.record_box.setToolTip("Each request and response and each step's page are kept in the run's folder. "
                                   "Off: runs are replayed on today's site only.")
        self.form.addRow(self.record_box)

    @staticmethod
    def _side(value: int) -> QSpinBox:
        box = QSpinBox()
        box.setRange(MIN_VIEWPORT, MAX_VIEWPORT)
        box.setSuffix(" px")
        box.setValue(value)
        box.setToolTip(field_help("viewport"))
        return box

    def widgets(self) -> list[QWidget]:
        """In Tab order."""
        return [self.webdriver_edit, self.chrome_args_edit, self.width_spin, self.height_spin, self.scale_spin,
                self.record_box]

    def screen(self) -> tuple[tuple[int, int], float]:
        """(viewport in CSS pixels, device scale factor) as set."""
        return (self.width_spin.value(), self.height_spin.value()), round(self.scale_spin.value(), 2)

    def webdriver_url(self) -> str:
        return self.webdriver_edit.text().strip()

    def problem(self) -> str:
        wd = self.webdriver_url()
        if setting_ok("webdriver_url", wd):
            return ""
        return f"The WebDriver URL {wd!r} is not an http:// or https:// address (e.g. http://hub:4444)."

    def browser_config(self) -> BrowserConfig:
        """The window's browser as the form has it (for the pointing check)."""
        viewport, scale = self.screen()
        return BrowserConfig(viewport=viewport, device_scale_factor=scale, webdriver_url=self.webdriver_url() or None,
                             extra_args=self.chrome_args_edit.text().split())

    def apply(self, s: Settings) -> None:
        s.webdriver_url, s.chrome_args = self.webdriver_url(), self.chrome_args_edit.text().split()
        viewport, s.device_scale_factor = self.screen()
        s.viewport = list(viewport)
        s.record_web = self.record_box.isChecked()
