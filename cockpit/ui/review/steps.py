"""Review mode's step viewer: showing a step's screenshot, marks and details, and preloading neighbours.

A mixin of ReviewPanel (cockpit.ui.review.panel), which builds the widgets it uses.
"""
from __future__ import annotations

import html
import json

from PySide6.QtGui import QIcon, QImage, QPixmap

from cockpit.core.errors import CockpitError
from cockpit.core.page.effects import in_words
from cockpit.core.page.marks import marks_from_json
from cockpit.core.store import labels as L
from cockpit.ui.review.loader import SOURCE

CACHE = 24  # decoded screenshots kept
PRELOAD = 3  # steps decoded ahead and behind
MARKED_NOTE = "clean screenshot missing; showing the marked one (its boxes are part of the image)"


class ReviewSteps:
    """Stepping through the open run: ReviewPanel's viewer half."""

    def go(self, i: int) -> None:
        if not self.steps or not 0 <= i < len(self.steps) or i == self.index:
            return
        moved = self.index >= 0
        self.index = i
        s = self.steps[i]
        if moved:  # another step: "step 1: correct" or a pending "click the right box" was about the last one
            self._pick_target = False
            self._show_my_label()
        key = (self.run["id"], s["step"])
        img = self._images.get(key)
        if img is not None:
            self._images.move_to_end(key)
            self._show_image(s, img)
        else:
            self.view.clear("loading…")
            self._set_note("")
            self._request_image(s, first=True)
        self._decorate(s)
        self.filmstrip.blockSignals(True)
        self.filmstrip.setCurrentRow(i)
        self.filmstrip.blockSignals(False)
        self._preload()

    def _decorate(self, s: dict) -> None:
        e = html.escape
        s = self._shown_step(s)  # a blind batch's run: the ANSWER step without the agent's claim
        color = "#1e88e5" if s.get("actor") == "human" else "#e53935"
        if s.get("target"):
            self.view.set_highlight(s["target"], color)
        self.view.set_pointer(s.get("action") or s.get("action_text"), s.get("pointer"), color)  # pixel actions
        d = s.get("decision") or {}
        decision = ""
        if d:
            decision = f" · {'approved' if d.get('approved') else 'rejected'} by {e(str(d.get('by')))}"
        mine = [x for x in L.step_labels(self.store, self.run["id"], self._annotator()) if x["step"] == s["step"]]
        judged = f" · you: {mine[0]['judgement']}" + (f" → [{mine[0]['corrected_target']}]"
                                                     if mine[0]["corrected_target"] else "") if mine else ""
        err = f"<br><span style='color:#b00020'>{e(s['error'])}</span>" if s.get("error") else ""
        eff = s.get("effect") or {}
        flags = [f for f in (s.get("flags") or [])]
        if eff or flags:
            what = in_words(eff) if eff else ""
            color = "#e65100" if eff.get("noop") or any(f.startswith(("loop", "repeated")) for f in flags) else "#555"
            err += f"<br><span style='color:{color}'>effect: {e(what)}" + (
                f" [{e(', '.join(flags))}]" if flags else "") + "</span>"
        thought = s.get("thought") or ""
        if self.compact and len(thought) > 150:  # a small screen: the whole thought is in the details
            thought = thought[:149] + "…"
        self.step_info.setText(
            f"<b>Step {s['step']}/{len(self.steps)}</b> ({e(s.get('actor') or 'agent')}) "
            f"<code>{e(s.get('action') or s.get('action_text') or '(no action)')}</code>{decision}{judged}"
            f"<br><i>{e(thought)}</i><br><span style='color:#555'>{e(s.get('url') or '')}</span>{err}")
        self.details.show_step(self.store, self._shown_run(), _LazyStep(self.store, self.run["id"], s))

    def _marks_of(self, s: dict) -> list:
        key = (self.run["id"], s["step"])
        if key not in self._marks:
            try:
                self._marks[key] = marks_from_json(json.loads(self.store.read_file(s["marks_file"], "marks"))) \
                    if s.get("marks_file") else []
            except (CockpitError, ValueError):
                self._marks[key] = []
        return self._marks[key]

    def _image_paths(self, s: dict) -> tuple[str, ...]:
        """The files to show for step `s`, best first: the clean screenshot, then the marked one."""
        paths = []
        for key in ("screenshot_clean", "screenshot"):
            if s.get(key) and str(self.store.file(s[key])) not in paths:
                paths.append(str(self.store.file(s[key])))
        return tuple(paths)

    def _show_image(self, s: dict, img: QImage) -> None:
        """Show a decoded image of step `s`, with a note when it is not the clean screenshot."""
        self.view.set_screenshot(img, self._marks_of(s), keep_view=True)
        clean = s.get("screenshot_clean")
        self._set_note("" if clean and img.text(SOURCE) == str(self.store.file(clean)) else MARKED_NOTE)

    def _set_note(self, text: str) -> None:
        self.image_note.setText(text)
        self.image_note.setVisible(bool(text))

    def _request_image(self, s: dict, first: bool = False) -> None:
        paths = self._image_paths(s)
        if not paths:
            if first:
                self.view.clear(f"Step {s['step']} has no screenshot.")
            return
        self.loader.request("image", [(self.run["id"], s["step"], paths)] + self._preload_jobs())

    def _preload_jobs(self) -> list[tuple[str, int, tuple[str, ...]]]:
        jobs = []
        for d in [x for k in range(1, PRELOAD + 1) for x in (k, -k)]:  # next, previous, next+1, ...
            j = self.index + d
            if 0 <= j < len(self.steps):
                s = self.steps[j]
                paths = self._image_paths(s)
                if paths and (self.run["id"], s["step"]) not in self._images:
                    jobs.append((self.run["id"], s["step"], paths))
        return jobs

    def _preload(self) -> None:
        if (self.run["id"], self.steps[self.index]["step"]) in self._images:
            self.loader.request("image", self._preload_jobs())
        for d in (1, -1):  # marks of the neighbours, so the next step needs no disk read
            if 0 <= self.index + d < len(self.steps):
                self._marks_of(self.steps[self.index + d])

    def _on_loader_image(self, run_id: str, step: int, img) -> None:
        if not self.isVisible():
            return
        if img is None:  # not cached: the file may yet appear
            if self.run and run_id == self.run["id"] and self.steps and self.steps[self.index]["step"] == step \
                    and not self.view.has_screenshot():
                paths = self._image_paths(self.steps[self.index])
                what = f"screenshot of step {step} is" if len(paths) < 2 else \
                    f"screenshots of step {step} (clean and marked) are"
                self.view.clear(f"The {what} missing or unreadable ({' and '.join(paths)}).")
                self._set_note("")
            return
        self._images[(run_id, step)] = img
        while len(self._images) > CACHE:
            self._images.popitem(last=False)
        if self.run and run_id == self.run["id"] and self.steps and self.steps[self.index]["step"] == step \
                and not self.view.has_screenshot():
            s = self.steps[self.index]
            self._show_image(s, img)
            self._decorate(s)

    def _on_loader_thumb(self, run_id: str, step: int, img) -> None:
        if not self.run or run_id != self.run["id"]:
            return
        for i, s in enumerate(self.steps):
            if s["step"] == step:
                self.filmstrip.item(i).setIcon(QIcon(QPixmap.fromImage(img)))
                return

    def _on_filmstrip_row(self, row: int) -> None:
        self.go(row)


class _LazyStep(dict):
    """A step row whose 'request' (the messages sent, large) is read only when asked for."""

    def __init__(self, store, run_id: str, row: dict):
        super().__init__(row)
        self._store, self._run_id = store, run_id

    def get(self, key, default=None):
        if key == "request" and "request" not in self:
            full = self._store.step(self._run_id, self["step"]) or {}
            self["request"] = full.get("request") or []
            self.setdefault("reply", full.get("reply"))  # a blinded step's reply stays out
        return super().get(key, default)
