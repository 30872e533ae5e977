"""Starting the window: QApplication on a qasync event loop, the main window, shutdown.

qasync runs Qt's event loop as asyncio's, so the window's start and shutdown can
be awaited. Work off the GUI thread (model listing, the judge over many runs)
does not run on this loop: it goes through :mod:`cockpit.ui.background`.
"""
from __future__ import annotations

import asyncio
import os
import sys

from cockpit.core.errors import CockpitError


def display_problem() -> str | None:
    """Why no window can open here, or None."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                                 or os.environ.get("QT_QPA_PLATFORM")):
        return ("no display to open the window on (DISPLAY is not set). Run `cockpit demo --headless` or "
                "`cockpit run ...` without a window, start one under Xvfb (xvfb-run cockpit), or set "
                "QT_QPA_PLATFORM=offscreen")
    return None


def data_folder_problem() -> str | None:
    """Why the window cannot keep its runs and settings (the data folder cannot be created or written), or None:
    one line naming the folder and the fix."""
    from cockpit.core import paths
    try:
        paths.writable_home()
    except paths.DataFolderError as e:
        return str(e)
    return None


def start_error_box(problem: str):
    """The message box that says why the window cannot start (a QMessageBox, not yet shown)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox
    box = QMessageBox(QMessageBox.Icon.Critical, "Cockpit cannot start", f"Cockpit cannot start: {problem}",
                      QMessageBox.StandardButton.Close)
    box.setObjectName("startErrorBox")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # the path can be copied
    return box


def run_window(*, demo: bool = False, task: str | None = None, url: str | None = None,
               autostart: bool = False) -> int:
    problem = display_problem()
    if problem:
        raise CockpitError(problem)
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Cockpit")
    app.setDesktopFileName("cockpit")  # matches packaging/cockpit.desktop
    _set_icon(app)
    problem = data_folder_problem()
    if problem:  # one line on the terminal, and a box for whoever started it from a desktop launcher
        print(f"cockpit: {problem}", file=sys.stderr)
        start_error_box(problem).exec()
        return 2
    from cockpit.ui.store_check import settle_store
    code, news = settle_store(None, start_error_box)  # before the window's modules load: said at once
    if code is not None:
        return code
    import qasync

    from cockpit.ui.main_window import MainWindow
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        win = MainWindow(demo=demo)
    except CockpitError as e:  # the store failed on a read the check could not foresee (another program, the disk)
        print(f"cockpit: {e}", file=sys.stderr)
        start_error_box(str(e)).exec()
        return 2
    from cockpit.ui import unexpected
    unexpected.install(win)  # an error nobody foresaw is said in the window, not only on the terminal
    if news:
        win.status.say(news, 120000)
    _quit_on_signals(app, win)
    if task:
        win.live.task_bar.set_task(task, url or "")
    win.show()
    if autostart:
        win.start_run()
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    return 0


def _quit_on_signals(app, win) -> None:
    """Ctrl+C or SIGTERM close the window properly: the run stops, the browser and its profile go."""
    import signal

    from PySide6.QtCore import QTimer

    def handler(*_):
        win.close()
        app.quit()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    # Python runs signal handlers only between bytecodes; a light timer gives it the chance.
    tick = QTimer(win)
    tick.timeout.connect(lambda: None)
    tick.start(250)


def _set_icon(app) -> None:
    from PySide6.QtGui import QIcon, QPixmap

    from cockpit.core import resources
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        pix = QPixmap()
        try:
            if pix.loadFromData(resources.read_bytes(f"icons/cockpit-{size}.png")):
                icon.addPixmap(pix)
        except OSError:
            continue
    app.setWindowIcon(icon)
