"""The model settings' "Check pointing": the pointing check (:mod:`cockpit.core.agent.pointcheck`) with the
values as they are in the form, in the background, and its report in a window of its own.

The check starts a headless browser at the form's viewport and device scale, asks the model to click each
target of the calibration page and says how far the clicks landed from them. The report names the setting
that fixes a wrong reading in the dialog's words (Coordinates, Qwen pixels, device scale), and "Apply" sets
those fields in the form (saved with OK, as any other edit).
"""
from __future__ import annotations

import dataclasses
import logging
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from cockpit.core.browser.session import BrowserConfig
from cockpit.core.errors import CockpitError
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.ui.background import CancelFlag, Task, on_gui_thread, run_in_background
from cockpit.ui.room import fit_to_screen
from cockpit.ui.settings.parts import BusyButton, MessageLabel, row

log = logging.getLogger(__name__)

SHORTCUT = "Ctrl+Shift+P"

#: The dialog's fields for the settings a fix names.
FIELDS = {"coords": "Coordinates (x, y)", "qwen_min_pixels": "Qwen pixels min", "qwen_max_pixels": "Qwen pixels max",
          "device_scale_factor": "device scale (beside Viewport size)", "image_max_width": "Image max width"}


def fix_in_fields(fix: dict) -> str:
    """'Coordinates (x, y) to norm1000 and Qwen pixels max to 1,003,520': a fix in the dialog's words."""
    def value(v) -> str:
        if v is None:
            return "its default"
        return f"{v:,}" if isinstance(v, int) else f"{v:g}" if isinstance(v, float) else str(v)
    return " and ".join(f"{FIELDS.get(k, k)} to {value(v)}" for k, v in fix.items())


class PointingCheck(QWidget):
    """The Check pointing button and its status line; the dialog gives it the form's values to check with."""

    requested = Signal()  # pressed: the dialog checks the form, then calls start()
    apply_fix = Signal(dict)  # the person chose to apply the report's fix: {"coords": "norm1000", ...}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._task: Task | None = None
        self.button = BusyButton("Check pointing…", "Checking…",
                                 "Ask the model to click 9 labelled targets on a local page and see where its clicks "
                                 f"land: is its coordinate setting right? ({SHORTCUT})")
        self.button.clicked.connect(self.requested)
        self.status = MessageLabel()
        self.report: PointingReportDialog | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(row(self.status, self.button))
        QShortcut(QKeySequence(SHORTCUT), self, activated=self.button.click, context=Qt.ShortcutContext.WindowShortcut)

    def say(self, text: str) -> None:
        self.status.setText(text)

    def is_busy(self) -> bool:
        return self._task is not None

    def start(self, cfg: ModelConfig, key: str | None, browser: BrowserConfig) -> None:
        """Run the check with `cfg` (and a typed `key`) in a browser of `browser`'s settings, in the background."""
        if self._task is not None:
            return
        cfg = dataclasses.replace(cfg, max_retries=min(cfg.max_retries, 1))
        progress = on_gui_thread(self._progress)

        def work(cancel: CancelFlag):
            from cockpit.core.agent.pointcheck import check_pointing
            from cockpit.core.browser.session import BrowserSession
            with ModelClient(cfg, key) as client, BrowserSession(browser) as session:
                return check_pointing(session, client, on_progress=progress, cancel=cancel)

        self.button.set_busy(True)
        self.say(f"Starting a browser at {browser.viewport[0]}x{browser.viewport[1]}, device scale "
                 f"{browser.device_scale_factor:g}…")
        self._task = run_in_background(work, lambda done: self._done(done, key), name="pointing-check",
                                       pass_cancel=True)

    def _progress(self, i: int, n: int, label: str) -> None:
        if self._task is not None:
            self.say(f"Asking the model to click target {label} ({i + 1} of {n})…")

    def _done(self, done, key: str | None) -> None:
        self._task = None
        self.button.set_busy(False)
        try:
            report = done.result()
        except CockpitError as e:
            message = str(e).replace(key, "***") if key else str(e)
            self.say(f"The pointing check could not finish: {message}")
            return
        except Exception as e:  # still ends the busy state, with a message in the window
            log.exception("pointing check failed")
            self.say(f"The pointing check failed: {type(e).__name__}: {e}")
            return
        self.say(report.verdict(fix_in_fields))
        self.report = PointingReportDialog(report, self.apply_fix.emit, self.window())
        self.report.open()

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
            self.button.set_busy(False)
            self.say("Pointing check cancelled.")


class PointingReportDialog(QDialog):
    """The pointing check's report: each target, where the click landed, the verdict; Apply sets the fix."""

    def __init__(self, report, apply: Callable[[dict], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Pointing check")
        self.text = QPlainTextEdit("\n".join(report.lines()[:-1]))
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.verdict = MessageLabel(report.verdict(fix_in_fields))
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.apply_button = None
        if report.fix:
            self.apply_button = self.buttons.addButton(f"&Apply: {fix_in_fields(report.fix)}",
                                                       QDialogButtonBox.ButtonRole.AcceptRole)
            self.apply_button.setToolTip("Set these fields in Model settings (saved with OK there)")
            self.apply_button.clicked.connect(lambda: apply(dict(report.fix)))
            self.buttons.accepted.connect(self.accept)
        lay = QVBoxLayout(self)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.verdict)
        lay.addWidget(self.buttons)
        self.resize(900, 520)

    def showEvent(self, event) -> None:
        fit_to_screen(self)
        super().showEvent(event)
