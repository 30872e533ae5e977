"""Review mode's screenshot decoding: PNG files to QImages in the background.

Pillow's decoder lets the GUI thread run meanwhile, so stepping through a run
stays fast while the next screenshots and the filmstrip's thumbnails load.
"""
from __future__ import annotations

from PIL import Image
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QImage

from cockpit.ui.background import Task, run_in_background

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


def _load(kind: str, paths: tuple[str, ...]) -> QImage | None:
    """A job's image, scaled to the filmstrip's width for a thumbnail (in the background)."""
    img = _decode_first(paths)
    return img.scaledToWidth(144, Qt.SmoothTransformation) if img is not None and kind == "thumb" else img


class RunLoader(QObject):
    """Decodes step screenshots and thumbnails in the background, one at a time.

    The job list belongs to the GUI thread: each decode is a task
    (:func:`cockpit.ui.background.run_in_background`) whose outcome, delivered here,
    is emitted and starts the next job.
    """
    image = Signal(str, int, object)  # run id, step, QImage (None: the file is missing or unreadable)
    thumb = Signal(str, int, object)  # run id, step, QImage

    def __init__(self, store_root, parent=None):
        super().__init__(parent)
        self.store_root = store_root
        self._jobs: list[tuple[str, str, int, tuple[str, ...]]] = []
        self._task: Task | None = None  # the decode under way
        self._stopped = False

    def stop(self) -> None:
        self._stopped = True
        self._jobs.clear()
        if self._task is not None:
            self._task.cancel()

    def request(self, kind: str, jobs: list[tuple[str, int, str | tuple[str, ...]]]) -> None:
        """Replace the pending jobs of `kind` ('image' or 'thumb') with `jobs` (run id, step, path).

        A job's path may be a tuple of paths: the first that decodes is used.

        Images go first: they are what the annotator is waiting for; the
        filmstrip's thumbnails fill in behind them.
        """
        keep = [j for j in self._jobs if j[0] != kind]
        new = [(kind, run_id, step, (paths,) if isinstance(paths, str) else tuple(paths))
               for run_id, step, paths in jobs]
        self._jobs = new + keep if kind == "image" else keep + new
        self._next()

    def _next(self) -> None:
        if self._stopped or self._task is not None or not self._jobs:
            return
        kind, run_id, step, paths = self._jobs.pop(0)
        self._task = run_in_background(lambda: (kind, run_id, step, _load(kind, paths)), self._loaded,
                                       name="review-loader")

    def _loaded(self, done) -> None:
        self._task = None
        kind, run_id, step, img = done.result()
        if img is None and kind == "image":
            self.image.emit(run_id, step, None)
        elif img is not None:
            (self.thumb if kind == "thumb" else self.image).emit(run_id, step, img)
        self._next()
