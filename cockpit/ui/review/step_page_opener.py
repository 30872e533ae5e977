"""Review's "Open this step's page": a browser on the recorded page of the step shown (issue #41).

The browser is started and the steps before are replayed from the run's web recording on a background task
(:func:`cockpit.core.replay.stepview.open_step_page`); the window says what happens on Review's footer line.
The browser has a window when there is a display (F12 opens DevTools there) and stays open, served from the
recording, until another step's page is opened or Cockpit closes.
"""
from __future__ import annotations

import logging
import os

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication

from cockpit.core.browser.session import BrowserConfig
from cockpit.core.errors import CockpitError
from cockpit.ui.background import Task, run_in_background

log = logging.getLogger(__name__)


class StepPageOpener(QObject):
    message = Signal(str)
    opened = Signal(object)  # the StepPage

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.page = None
        self._task: Task | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None

    def open(self, run_id: str, step: int) -> bool:
        if self._task is not None:
            self.message.emit("A step's page is being opened; wait for it.")
            return False
        self.close()
        from cockpit.core.replay.stepview import open_step_page
        config = BrowserConfig(headless=not has_display())
        self.message.emit(f"Opening step {step}'s page of {run_id} from its recording…")
        self._task = run_in_background(lambda: open_step_page(self.store, run_id, step, config),
                                       lambda fut: self._done(fut, run_id, step), name="step-page")
        return True

    def _done(self, fut, run_id: str, step: int) -> None:
        self._task = None
        try:
            page = fut.result()
        except CockpitError as e:
            self.message.emit(f"Could not open step {step}'s page: {e}")
            return
        except Exception as e:  # a bug: said in the window, the traceback in the log
            log.exception("opening step %d of %s failed", step, run_id)
            self.message.emit(f"Could not open step {step}'s page: {type(e).__name__}: {e}")
            return
        self.page = page
        missing = f"; {len(page.missing)} request(s) not in the recording" if page.missing else ""
        where = "in a browser window (F12 for DevTools)" if not page.session.config.headless else \
            "in a headless browser (no display here)"
        self.message.emit(f"Step {step}'s page of {run_id} is open {where}, served from the recording{missing}.")
        self.opened.emit(page)

    def close(self) -> None:
        page, self.page = self.page, None
        if page is not None:
            page.close()


def has_display() -> bool:
    app = QGuiApplication.instance()
    if app is not None and app.platformName() in ("offscreen", "minimal"):
        return False
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or os.name == "nt"
