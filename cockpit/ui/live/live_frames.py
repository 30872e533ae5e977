"""Frames of the page for the Live tab while the agent waits on the model or a replay runs: taken between the run's
own WebDriver commands, with typed card numbers and codes painted over (as core.masking does for the screenshots
a run keeps and sends)."""
from __future__ import annotations

import logging
import time

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter

from cockpit.core.browser.session import BrowserSession
from cockpit.core.page import masking

log = logging.getLogger(__name__)


def grab(session: BrowserSession, boxes: list, wait: float) -> QImage | None:
    """The page now, masked over `boxes` (the last observation's secret fields); None when the browser is busy for
    longer than `wait` seconds or cannot take it."""
    if not session.lock.acquire(timeout=wait):
        return None
    try:
        t = time.perf_counter()
        png = session.screenshot_png()
        log.debug("live frame in %.0f ms", (time.perf_counter() - t) * 1000)
    except Exception:  # noqa: BLE001 (a frame less: the run's own commands say what went wrong)
        return None
    finally:
        session.lock.release()
    return masked(QImage.fromData(png), boxes)


def masked(frame: QImage, boxes: list) -> QImage:
    """A live frame with typed card numbers and codes painted over, as observation.observe does for the
    screenshots it keeps and sends (core.masking; the boxes are the last observation's)."""
    if boxes and not frame.isNull():
        painter = QPainter(frame)
        for box in boxes:
            painter.fillRect(QRect(*box), QColor(*masking.FILL))
        painter.end()
    return frame
