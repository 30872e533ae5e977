"""The window's start-up check of the run store: one it cannot use is said in a box, and a damaged one is moved
aside (kept, never deleted) when the person asks, so the window opens on a new, empty store.

It runs before the main window is built (and before its modules are imported), so a bad store is said within
moments of starting, not after the whole window has loaded. The check reads every page of the database
(:func:`cockpit.core.store.damage.quick_check`): damage deep in the file is found here, not by Review later.
"""
from __future__ import annotations

import sys
from pathlib import Path

from cockpit.core.store import Store, StoreError
from cockpit.core.store import damage as dmg

#: The box's buttons, as the person reads them.
SET_ASIDE = "Move it aside and start anew"
QUIT = "Quit"


def store_problem(root: Path | None = None) -> StoreError | None:
    """Why the run store in `root` (the data folder) cannot be used, or None."""
    try:
        Store(root, check=True, timeout=3.0).close()  # another program's lock: said in seconds, not ten
    except StoreError as e:
        return e
    return None


def aside_box(error: StoreError, folder: Path):
    """The question for a store that cannot be used (``error.damage`` is set): move it aside to `folder`, or
    quit."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox
    d = error.damage
    first = {dmg.NEWER: "Upgrade Cockpit to open it. Or Cockpit can move it aside",
             dmg.FOREIGN: "Cockpit will not write into it. It can move it aside"}.get(
        d.kind, "Cockpit cannot use it as it is. It can move it aside")
    box = QMessageBox(QMessageBox.Icon.Warning, "Cockpit cannot open its run store",
                      f"Cockpit cannot open its run store: {d.describe()}.\n\n"
                      f"{first}, kept with its -wal and -shm files and its runs' screenshots in\n{folder}\n"
                      "and start with a new, empty store. Nothing is deleted.")
    box.setObjectName("damagedStoreBox")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # the paths can be copied
    move = box.addButton(SET_ASIDE, QMessageBox.ButtonRole.AcceptRole)
    quit_ = box.addButton(QUIT, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(quit_)  # Return does not move files; the person chooses to
    box.setEscapeButton(quit_)
    move.setObjectName("setAsideButton")
    return box


def settle_store(root: Path | None, error_box) -> tuple[int | None, str]:
    """Make sure the window has a store: (None, news for the status bar) to go on, or (exit code, "") when the
    person quit or the store cannot be used. `error_box(text)`: the box that says why the window cannot start."""
    from cockpit.core import paths
    root = Path(root) if root else paths.home()
    problem = store_problem(root)
    if problem is None:
        return None, ""
    print(f"cockpit: {problem}", file=sys.stderr)
    if problem.damage is None:  # locked, read-only, the disk: nothing to move aside
        error_box(str(problem)).exec()
        return 2, ""
    folder = dmg.aside_folder(root)
    box = aside_box(problem, folder)
    box.exec()
    if box.clickedButton() is None or box.clickedButton().text() != SET_ASIDE:
        return 2, ""
    try:
        folder = dmg.set_aside(root, folder=folder)
    except (OSError, RuntimeError) as e:
        text = f"could not move {problem.damage.path} aside: {e}"
        print(f"cockpit: {text}", file=sys.stderr)
        error_box(text).exec()
        return 2, ""
    news = f"The run store that could not be opened was moved to {folder}; this is a new, empty store."
    print(f"cockpit: {news}", file=sys.stderr)
    again = store_problem(root)
    if again is not None:
        error_box(str(again)).exec()
        return 2, ""
    return None, news
