"""Review mode's screenshot decoding: PNG files to QImages in a background thread.

Pillow's decoder lets the GUI thread run meanwhile, so stepping through a run
stays fast while the next screenshots and the filmstrip's thumbnails load.
"""
from __future__ import annotations

import threading

from PIL import Image
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QImage

SOURCE = "cockpit-source"  # QImage text key: the file an image was decoded from


def _decode(path: str) -> QImage | None:
    """PNG to QImage with Pillow, whose decoder lets other Python threads (the GUI) run meanwhile."""
    try:
        with Image.open(path) as im:
            im = im.convert("RGB")
            data = im.tobytes()
            img = QImage(data, im.width, im.height, 3 * im.width, QImage.Format_RGB888).copy()
    except (OSError, ValueError):
        return None
    img.setText(SOURCE, path)
    return img


def _decode_first(paths: tuple[str, ...]) -> QImage | None:
    """The first of `paths` that decodes (the clean screenshot, else the marked one)."""
    for path in paths:
        img = _decode(path)
        if img is not None:
            return img
    return None


class _Loader(QObject):
    """Decodes step screenshots and thumbnails in a background thread."""
    image = Signal(str, int, object)  # run id, step, QImage (None: the file is missing or unreadable)
    thumb = Signal(str, int, object)  # run id, step, QImage

    def __init__(self, store_root, parent=None):
        super().__init__(parent)
        self.store_root = store_root
        self._lock = threading.Lock()
        self._jobs: list[tuple[str, str, int, tuple[str, ...]]] = []
        self._wake = threading.Event()
        self._stopped = False
        threading.Thread(target=self._work, name="review-loader", daemon=True).start()

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()

    def request(self, kind: str, jobs: list[tuple[str, int, str | tuple[str, ...]]]) -> None:
        """Replace the pending jobs of `kind` ('image' or 'thumb') with `jobs` (run id, step, path).

        A job's path may be a tuple of paths: the first that decodes is used.

        Images go first: they are what the annotator is waiting for; the
        filmstrip's thumbnails fill in behind them.
        """
        with self._lock:
            keep = [j for j in self._jobs if j[0] != kind]
            new = [(kind, run_id, step, (paths,) if isinstance(paths, str) else tuple(paths))
                   for run_id, step, paths in jobs]
            self._jobs = new + keep if kind == "image" else keep + new
        self._wake.set()

    def _work(self) -> None:
        while not self._stopped:
            self._wake.wait()
            with self._lock:
                if not self._jobs:
                    self._wake.clear()
                    continue
                kind, run_id, step, paths = self._jobs.pop(0)
            img = _decode_first(paths)
            if self._stopped or (img is None and kind == "thumb"):
                continue
            try:
                if img is None:
                    self.image.emit(run_id, step, None)
                elif kind == "thumb":
                    self.thumb.emit(run_id, step, img.scaledToWidth(144, Qt.SmoothTransformation))
                else:
                    self.image.emit(run_id, step, img)
            except RuntimeError:  # the panel is gone
                return
