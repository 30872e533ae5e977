"""Corrections of the marking on one screenshot view: a box on nothing (spurious), a missed element (missing).

MarkCorrector owns this for one ScreenshotView, wherever the view is (Live, Review): right-click on the view
offers "Mark [7] as spurious (nothing to click)" (or "Undo: [7] is spurious") and "Add a missing mark…"; in
add mode (ScreenshotView.set_add_mode, the M key where the view lives) a drawn rectangle asks what the element
is and is kept as a missing mark. Corrections are kept in the store (cockpit.core.store.corrections) as data
for training and for better marking, and drawn on the view: spurious boxes dashed grey, missing ones green.

It is told, by callables given to it, which step the view shows (run id and step, or None), who decides (the
name stored with the correction) and, optionally, the live browser session: with one, the element under the
drawn box's centre is looked up off the GUI thread (cockpit.core.page.observation.element_at) and kept with the mark.
It says what happened (message) or what went wrong or is missing (error), as text for a person.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QInputDialog, QMenu

from cockpit.core.errors import short_message
from cockpit.core.page.marks import Mark
from cockpit.core.store import corrections
from cockpit.ui.background import run_in_background

NO_STEP = "Open a step first (pick a run, then a step): marks are corrected on the step's screenshot."
ADDING = "Draw a box around the element the marking missed (Esc cancels)."


class MarkCorrector(QObject):
    message = Signal(str)  # what was done, for the status line
    error = Signal(str)  # what went wrong, or what to do first

    def __init__(self, view, store, current: Callable[[], tuple[str, int] | None], decided_by: Callable[[], str],
                 live_session: Callable[[], object] | None = None, parent=None, *, no_step: str = NO_STEP):
        """`no_step`: what to say when there is no step to correct (Live and Review say it their own way)."""
        super().__init__(parent or view)
        self.no_step = no_step
        self.view, self.store = view, store
        self._current, self._decided_by, self._live = current, decided_by, live_session
        view.setContextMenuPolicy(Qt.CustomContextMenu)
        view.customContextMenuRequested.connect(self._on_menu)
        view.rectDrawn.connect(self._on_rect)

    # ---------- asking ----------
    def menu_at(self, pos) -> QMenu | None:
        """The right-click menu at viewport position `pos` (None, and a hint, when no step is shown)."""
        where = self._current()
        if where is None or not self.view.has_screenshot():
            self.error.emit(self.no_step)
            return None
        run_id, step = where
        p = self.view.image_point(pos)
        mark = self.view.mark_at(p.x(), p.y())
        menu = QMenu(self.view)
        if mark is not None:
            flagged = mark.id in self.view.flagged()
            text = f"Undo: [{mark.id}] is spurious" if flagged else f"Mark [{mark.id}] as spurious (nothing to click)"
            menu.addAction(text, lambda: self.toggle_spurious(run_id, step, mark, not flagged))
        menu.addAction("Add a missing mark…", lambda: self.set_adding(True))
        return menu

    def _on_menu(self, pos) -> None:
        menu = self.menu_at(pos)
        if menu is not None:
            menu.exec(self.view.mapToGlobal(pos))
            menu.deleteLater()

    def set_adding(self, on: bool) -> bool:
        """Add mode on (a drag draws the missing mark) or off; False, with a hint, when no step is shown."""
        if on and (self._current() is None or not self.view.has_screenshot()):
            self.error.emit(self.no_step)
            return False
        self.view.set_add_mode(on)
        if on:
            self.message.emit(ADDING)
        return True

    def toggle_adding(self) -> bool:
        return self.set_adding(not self.view.add_mode())

    def _on_rect(self, rect: tuple) -> None:
        where = self._current()
        self.view.set_add_mode(False)
        if where is None:
            self.error.emit(self.no_step)
            return
        run_id, step = where
        label, ok = QInputDialog.getText(self.view, "Missing mark", "What is it? (e.g. 'menu button')")
        if not ok:
            return
        live = self._live() if self._live is not None else None
        if live is None:
            self.add_missing(run_id, step, rect, label, None)
            return
        x, y, w, h = rect

        def lookup():
            from cockpit.core.page.observation import element_at
            with live.lock:
                element = element_at(live, x + w / 2, y + h / 2)
            return run_id, step, rect, label, element if isinstance(element, dict) else None
        run_in_background(lookup, self._on_lookup_done, name="element-at")

    def _on_lookup_done(self, done) -> None:
        try:
            res = done.result()
        except Exception as e:  # the page went away: keep the box without the element
            self.error.emit(f"Could not look the element up: {short_message(e)}")
            return
        self.add_missing(*res)

    # ---------- storing ----------
    def toggle_spurious(self, run_id: str, step: int, mark: Mark, on: bool) -> None:
        if on:
            corrections.add(self.store, run_id, step, "spurious", mark_id=mark.id, bbox=mark.bbox,
                            label=mark.label[:200], by=self._decided_by())
            self.message.emit(f"Step {step}: box [{mark.id}] marked spurious (nothing to click)")
        else:
            for c in corrections.of(self.store, run_id, step):
                if c["kind"] == "spurious" and c["mark_id"] == mark.id:
                    corrections.withdraw(self.store, c["id"])
            self.message.emit(f"Step {step}: box [{mark.id}] is no longer marked spurious")
        self.show(run_id, step)

    def add_missing(self, run_id: str, step: int, rect: tuple, label: str, element: dict | None) -> int:
        cid = corrections.add(self.store, run_id, step, "missing", bbox=tuple(int(v) for v in rect),
                              label=label, element=element, by=self._decided_by())
        self.show(run_id, step)
        where = f" (<{element['tag']}> {element['text'][:40]!r})" if element else ""
        self.message.emit(f"Added a missing mark on step {step}{where}")
        return cid

    def show(self, run_id: str, step: int) -> None:
        """Draw the step's corrections on the view: spurious boxes flagged, missing ones added."""
        cs = corrections.of(self.store, run_id, step)
        self.view.set_flagged({c["mark_id"] for c in cs if c["kind"] == "spurious"})
        self.view.set_extra_boxes([(tuple(c["bbox"]), c["label"] or "?") for c in cs if c["kind"] == "missing"])
