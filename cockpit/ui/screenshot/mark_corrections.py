"""The window's label corrections on the screenshot: a box on nothing (spurious), a missed element.

A mixin of :class:`cockpit.ui.main_window.MainWindow`: it uses the window's
view, store, bridge, run and shown step. Corrections are kept in the store
(``cockpit.core.store.corrections.add``) as data for training and for better marking.
"""
from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QMenu

from cockpit.core.errors import short_message
from cockpit.core.page.marks import Mark
from cockpit.ui.tasks import run_in_background
from cockpit.core.store import corrections


class MarkCorrections:
    def _on_view_menu(self, pos) -> None:
        step = self._displayed_step()
        if not self.run_id or step is None:
            return
        p = self.view.image_point(pos)
        mark = self.view.mark_at(p.x(), p.y())
        menu = QMenu(self)
        if mark is not None:
            flagged = mark.id in self.view.flagged()
            text = f"Undo: [{mark.id}] is spurious" if flagged else f"Mark [{mark.id}] as spurious (nothing to click)"
            menu.addAction(text, lambda: self.toggle_spurious(step, mark, not flagged))
        menu.addAction("Add a missing mark…", lambda: self.view.set_add_mode(True))
        menu.exec(self.view.mapToGlobal(pos))

    def toggle_spurious(self, step: int, mark: Mark, on: bool) -> None:
        if on:
            corrections.add(self.store, self.run_id, step, "spurious", mark_id=mark.id, bbox=mark.bbox,
                                      label=mark.label[:200], by=self.settings.decided_by())
        else:
            for c in corrections.of(self.store, self.run_id, step):
                if c["kind"] == "spurious" and c["mark_id"] == mark.id:
                    corrections.withdraw(self.store, c["id"])
        self._show_corrections(step)

    def _on_view_rect(self, rect: tuple) -> None:
        step = self._displayed_step()
        self.act_add.setChecked(False)
        if not self.run_id or step is None:
            self.show_error("Open a step (or start a run) before adding marks.")
            return
        label, ok = QInputDialog.getText(self, "Missing mark", "What is it? (e.g. 'menu button')")
        if not ok:
            return
        live = self.bridge.session if (self.shown_step is None and self.bridge.busy) else None
        if live is None:
            self.add_missing(step, rect, label, None)
            return
        x, y, w, h = rect

        def lookup():
            from cockpit.core.page.element_at import element_at
            with live.lock:
                element = element_at(live, x + w / 2, y + h / 2)
            return step, rect, label, element if isinstance(element, dict) else None
        run_in_background(lookup, self._on_lookup_done, name="element-at")

    def _on_lookup_done(self, done) -> None:
        try:
            res = done.result()
        except Exception as e:  # the page went away: keep the box without the element
            self.show_error(f"Could not look the element up: {short_message(e)}")
            return
        self.add_missing(*res)

    def add_missing(self, step: int, rect: tuple, label: str, element: dict | None) -> int:
        cid = corrections.add(self.store, self.run_id, step, "missing", bbox=tuple(int(v) for v in rect),
                                        label=label, element=element, by=self.settings.decided_by())
        self._show_corrections(step)
        where = f" (<{element['tag']}> {element['text'][:40]!r})" if element else ""
        self.statusBar().showMessage(f"Added a missing mark on step {step}{where}", 8000)
        return cid

    def _show_corrections(self, step: int) -> None:
        cs = corrections.of(self.store, self.run_id, step)
        self.view.set_flagged({c["mark_id"] for c in cs if c["kind"] == "spurious"})
        self.view.set_extra_boxes([(tuple(c["bbox"]), c["label"] or "?") for c in cs if c["kind"] == "missing"])
