"""Review's run viewer: the open run's header and final answer, the filmstrip, the step's screenshot and details
(the details are laid out under the runs list, by cockpit.ui.review.layout).

A widget that owns the open run (its row, its steps, the step shown) and the decoded screenshots: they are
decoded off the GUI thread (cockpit.ui.review.loader) and the neighbours of the step shown are preloaded, so
stepping stays fast. It says when the step shown changes (stepMoved). What the annotator may see (a blind
batch's run hides the agent's claim) is set from outside (set_claim_hidden); so is the line of the others'
verdicts in the header (show_header). Reads the store; writes nothing.
"""
from __future__ import annotations

import html
import json
from collections import OrderedDict

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.agent.approval import decided
from cockpit.core.errors import CockpitError
from cockpit.core.page.effects import in_words
from cockpit.core.page.marks import marks_from_json
from cockpit.core.review.exports import BLIND_NOTE, blind_step
from cockpit.core.store import labels as L
from cockpit.core.store.records import continues_text, end_reason, parent_step_text, status_text
from cockpit.core.words import plural
from cockpit.ui.elide import ElidedLabel, wrap_within
from cockpit.ui.live.step_details import StepDetails
from cockpit.ui.plaintext import tip
from cockpit.ui.review.loader import SOURCE, RunLoader
from cockpit.ui.review.run_tools import RunTools
from cockpit.ui.review.words import words
from cockpit.ui.room import WrappedLabel
from cockpit.ui.screenshot.view import ScreenshotView

CACHE = 24  # decoded screenshots kept
PRELOAD = 3  # steps decoded ahead and behind
MARKED_NOTE = "clean screenshot missing; showing the marked one (its boxes are part of the image)"
BOXES_IN_IMAGE_NOTE = "the screenshot with its boxes as recorded (no box positions were kept to draw them)"
HELP = ("Pick a run on the left. Keys: ←/→ steps, S success, F fail, U unsure, D not executable "
        "(asks why), 1–8 failure category, "
        "N next unlabelled run, K type key points, Ctrl+1–9 tick one at the step shown, Q/W/E/R judge the step, "
        "M add a missing mark (right-click a box: spurious), "
        "Z the screenshot alone.")


def _wrapping(rich: bool = True, whole: bool = False) -> QLabel:
    """A label for text from data: it wraps, and never makes the window wider. `whole`: it asks for the height of
    all its lines (a plain label asks for one, and the step's text, in a splitter's pane, was drawn over the run's
    tools above it at the window's minimum size, issue #38 B8)."""
    label = wrap_within(WrappedLabel() if whole else QLabel())
    label.setTextFormat(Qt.RichText if rich else Qt.PlainText)
    return label


class RunViewer(QWidget):
    stepMoved = Signal()  # the step shown is another one (not on opening a run)
    imageShown = Signal()  # a step's screenshot is on the view (its boxes new: corrections are drawn again)

    def __init__(self, store, who, parent=None):
        super().__init__(parent)
        self.store, self.who = store, who  # who(): the annotator's name
        self.run: dict | None = None
        self.steps: list[dict] = []
        self.index = 0  # position in self.steps
        self.claim_hidden = False  # the run's claim is hidden (a blind batch's run, not labelled yet)
        self.compact = False
        self._images: OrderedDict[tuple[str, int], QImage] = OrderedDict()
        self._thumbed: set[int] = set()  # the open run's steps whose thumbnail is in the filmstrip
        self._ahead: tuple | None = None  # (run id, step, paths): the first screenshot of the run N opens next
        self._marks: dict[tuple[str, int], list] = {}
        # No Qt parent: the loader thread holds it, so it cannot be destroyed under a pending emit.
        self.loader = RunLoader(store.root)
        self.loader.image.connect(self._on_loader_image)
        self.loader.thumb.connect(self._on_loader_thumb)
        self._build()

    def _build(self) -> None:
        self.header = _wrapping()
        self.answer = _wrapping()
        self.header_line, self.answer_line = ElidedLabel(), ElidedLabel()  # compact: one line each
        self.header_line.setStyleSheet("font-weight: bold")
        self._answer_boxes(False)
        self.filmstrip = QListWidget()
        self.filmstrip.setViewMode(QListView.IconMode)
        self.filmstrip.setFlow(QListView.LeftToRight)
        self.filmstrip.setWrapping(False)
        self.filmstrip.setIconSize(QSize(144, 108))
        self.filmstrip.setFixedHeight(140)
        self.filmstrip.setMovement(QListView.Static)
        self.filmstrip.setUniformItemSizes(True)
        self.filmstrip.currentRowChanged.connect(self.go)
        self.view = ScreenshotView()
        self.view.clear(HELP)
        self.tools = RunTools()
        self.step_info = _wrapping(whole=True)
        self.image_note = _wrapping(rich=False, whole=True)  # says when the shown image is not the clean screenshot
        self.image_note.setStyleSheet("color:#e65100")
        self.image_note.hide()
        self.details = StepDetails()
        self.top = QWidget()
        tl = QVBoxLayout(self.top)
        tl.setContentsMargins(0, 0, 0, 0)
        for w in (self.tools, self.step_info, self.image_note):
            tl.addWidget(w)
        tl.addWidget(self.view, 1)
        self.lay = QVBoxLayout(self)
        self.lay.setContentsMargins(0, 0, 0, 0)
        lines = QHBoxLayout()  # compact: the run's header and its answer side by side, one line for both
        lines.addWidget(self.header_line, 3)
        lines.addWidget(self.answer_line, 2)
        self.lay.addLayout(lines)
        for w in (self.header, self.answer, self.filmstrip):
            self.lay.addWidget(w)
        self.lay.addWidget(self.top, 1)

    # ---------- the open run ----------
    def open(self, run_id: str) -> bool:
        """Open a run (its first step is shown by go(0) after); False when it cannot be read."""
        try:
            run, steps = self.store.run(run_id), self.store.steps(run_id, with_request=False)
        except CockpitError as e:
            self.view.clear(str(e))
            return False
        self.run, self.steps, self.claim_hidden = run, [], False
        self.set_note("")
        self._marks = {k: v for k, v in self._marks.items() if k[0] == run_id}  # only this run's
        self.filmstrip.blockSignals(True)
        self.filmstrip.clear()
        self.filmstrip.blockSignals(False)
        self.loader.request("image", [])
        self._thumbed = set()
        self.tools.set_run_status(run["status"])
        self.tools.show_run(self.store, run)
        self.index = -1
        self._add_steps(steps)
        if not steps:  # nothing of the run shown before may stay (walkthrough 10: the last run's step 4 did)
            self.step_info.setText("")
            self.details.show_step(self.store, {}, None)
            self.view.clear(f"This run has no steps ({status_text(run['status'])}"
                            + (f": {run['error']}" if run.get("error") else "") + ").")
        return True

    def close_run(self, message: str) -> None:
        """Show no run, `message` in its place (the run left the list: nothing may be labelled unseen)."""
        self.run, self.steps, self.index, self.claim_hidden = None, [], -1, False
        self.filmstrip.blockSignals(True)
        self.filmstrip.clear()
        self.filmstrip.blockSignals(False)
        self.loader.request("image", [])
        self.loader.request("thumb", [])
        for label in (self.header, self.answer, self.header_line, self.answer_line, self.step_info):
            label.setText("")
        self.set_note("")
        self._answer_boxes(False)
        self.tools.set_run_status("")
        self.tools.show_run(self.store, None)
        self.details.show_step(self.store, {}, None)
        self.view.clear(message)

    def first_shown(self) -> int:
        """The step a run opens on: its first with a screenshot. Imported Online-Mind2Web and browser-use runs
        shoot the page after each action, so their step 1 has none: an annotator would open each on a blank."""
        return next((i for i, s in enumerate(self.steps) if s["screenshot"]), 0)

    def look_ahead(self, run_id: str | None) -> None:
        """Decode `run_id`'s first screenshot behind this run's own (the run N opens next shows at once)."""
        self._ahead = None
        if not run_id or run_id == self.run["id"]:
            return
        try:
            s = next((s for s in self.store.steps(run_id, with_request=False) if s["screenshot"]), None)
        except CockpitError:
            return
        if s is not None:
            self._ahead = (run_id, s["step"], self._image_paths(s))

    def reload_run(self) -> None:
        """The open run's row again (its status may have changed: resumed, closed, finished); a run still being
        written gets its new steps added to the filmstrip (the step shown stays)."""
        if not self.run:
            return
        was = self.run["status"]
        try:
            run = self.store.run(self.run["id"])
            new = self.store.steps(run["id"], with_request=False, after=self.steps[-1]["step"] if self.steps else 0) \
                if was == "running" else []
        except CockpitError:
            return
        self.run = self.tools.run = run  # its count of steps too (an empty run being written gets its first)
        self.tools.set_run_status(run["status"])
        self.tools.count_others(self.store)  # a batch elsewhere may have run its task again
        if new:  # a run going on elsewhere: its new steps
            self._add_steps(new, shown=True)

    def _add_steps(self, new: list[dict], shown: bool = False) -> None:
        """Steps after the last one: in the filmstrip (their thumbnails decoded behind); `shown`: the run was
        shown before (the step shown stays, or the first comes when there was none)."""
        self.steps.extend(new)
        placeholder = QPixmap(144, 108)
        placeholder.fill(Qt.lightGray)
        self.filmstrip.blockSignals(True)
        for _ in new:
            self.filmstrip.addItem(QListWidgetItem(QIcon(placeholder), ""))
        self._label_filmstrip()
        self.filmstrip.blockSignals(False)
        self.loader.request("thumb", self._thumb_jobs())
        if not shown:
            return
        self.tools.steps_added(self.store)
        if self.index < 0:
            self.go(0)
        else:
            self.decorate()  # "Step 3/7": the count of steps went up

    def _thumb_jobs(self) -> list[tuple[str, int, str]]:
        return [(self.run["id"], s["step"], str(self.store.file(s["screenshot"])))
                for s in self.steps if s["screenshot"] and s["step"] not in self._thumbed]

    def current(self) -> dict | None:
        """The step shown (its row), or None."""
        return self.steps[self.index] if self.run and self.steps and 0 <= self.index < len(self.steps) else None

    def set_claim_hidden(self, on: bool) -> None:
        self.claim_hidden = on
        self._label_filmstrip()

    def _label_filmstrip(self) -> None:
        for i, s in enumerate(self.steps):
            if i < self.filmstrip.count():
                action = (lambda x: x["action"] or x["action_text"] or "")(self.shown_step(s))
                self.filmstrip.item(i).setText(f"{s['step']} {action[:18]}")
                self.filmstrip.item(i).setToolTip(tip(action, "see the step's details"))

    def shown_step(self, s: dict) -> dict:
        """Step `s` as the annotator may see it now."""
        if not self.claim_hidden:
            return s
        shown = blind_step(s)
        return dict(shown, status="(hidden)") if shown is not s else s

    def shown_run(self) -> dict:
        """The open run as the annotator may see it now (no answer, no status while the claim is hidden)."""
        return dict(self.run, status="(hidden)", answer=BLIND_NOTE, error=None) if self.claim_hidden else self.run

    def show_header(self, others_html: str = "") -> None:
        """The task, where, model, status, steps; `others_html`: the other verdicts (escaped), or nothing."""
        if not self.run:
            return
        r, e = self.shown_run(), html.escape
        status = status_text(r["status"])
        branch = " · ".join(filter(None, (continues_text(r), self.store.run_origin(r))))  # where it came from
        self.header.setText(f"<b>{e(r['task'])}</b><br><span style='color:#555'>{e(r['url'] or '')} · "
                            f"{e(r['model'] or '')} · {e(status)} · {plural(r['steps'], 'step')} · run {e(r['id'])}"
                            + (f" · {e(branch)}" if branch else "") + f"</span>{others_html}")
        answer = r["answer"]
        reason = end_reason(r)  # "stopped by the user…", never an empty "(stopped: )"
        none = f"none ({status}: {reason})" if reason else f"none ({status})"
        self.answer.setText("<b>Final answer:</b> " + (e(answer) if answer is not None else f"<i>{e(none)}</i>"))
        self.header_line.setText(f"{r['task']} — {status} · {plural(r['steps'], 'step')} · run {r['id']}"
                                 + (f" · {branch}" if branch else ""))
        self.answer_line.setText("Final answer: " + (answer if answer is not None else none))
        self._answer_boxes(True)

    def _answer_boxes(self, shown: bool) -> None:
        """The answer's pale-green box drawn only round an answer: with no run open, no empty box (walkthrough 8);
        its room kept, so nothing moves when a run opens."""
        for label, pad in ((self.answer, 4), (self.answer_line, 2)):
            label.setStyleSheet(f"padding:{pad}px; border:1px solid " + (
                "#cfe3cf; background:#eef6ee" if shown else "transparent"))

    # ---------- stepping ----------
    def go(self, i: int) -> None:
        if not self.steps or not 0 <= i < len(self.steps) or i == self.index:
            return
        moved = self.index >= 0
        self.index = i
        s = self.steps[i]
        self.tools.check_step(s)  # what works on this step (re-ask, recording), from its row
        key = (self.run["id"], s["step"])
        img = self._images.get(key)
        if img is not None:
            self._images.move_to_end(key)
            self._show_image(s, img)
        else:
            self.view.clear("loading…")
            self.set_note("")
            self._request_image(s, first=True)
        self.decorate()
        self.filmstrip.blockSignals(True)
        self.filmstrip.setCurrentRow(i)
        self.filmstrip.blockSignals(False)
        self._preload()
        if moved:  # a pending "click the right box" was about the last one
            self.stepMoved.emit()

    def decorate(self) -> None:
        """The step line above the screenshot, the target box, and the step's details."""
        s = self.current()
        if s is None:
            return
        s = self.shown_step(s)  # a blind batch's run: the ANSWER step without the agent's claim
        color = "#1e88e5" if s.get("actor") == "human" else "#e53935"
        if s.get("target"):
            self.view.set_highlight(s["target"], color)
        self.view.set_pointer(s.get("action") or s.get("action_text"), s.get("pointer"), color)  # pixel actions
        self.step_info.setText(self._step_html(s))
        self.details.show_step(self.store, self.shown_run(), _LazyStep(self.store, self.run["id"], s))

    def _step_html(self, s: dict) -> str:
        e = html.escape
        d = s.get("decision") or {}
        decision = f" · {e(decided(d))}" if d else ""
        mine = [x for x in L.step_labels(self.store, self.run["id"], self.who()) if x["step"] == s["step"]]
        judged = f" · you: {words(mine[0]['judgement'])}" + (f" → [{mine[0]['corrected_target']}]"
                                                            if mine[0]["corrected_target"] else "") if mine else ""
        err = f"<br><span style='color:#b00020'>{e(s['error'])}</span>" if s.get("error") else ""
        eff, flags = s.get("effect") or {}, list(s.get("flags") or [])
        if eff or flags:
            what = in_words(eff) if eff else ""
            color = "#e65100" if eff.get("noop") or any(f.startswith(("loop", "repeated")) for f in flags) else "#555"
            err += f"<br><span style='color:{color}'>effect: {e(what)}" + (
                f" [{e(', '.join(words(f) for f in flags))}]" if flags else "") + "</span>"
        thought = s.get("thought") or ""
        if self.compact and len(thought) > 150:  # a small screen: the whole thought is in the details
            thought = thought[:149] + "…"
        there = parent_step_text(self.run, s["step"])  # a branch: the step as the run it continues numbers it
        return (f"<b>Step {s['step']}/{len(self.steps)}</b>" + (f" ({e(there)})" if there else "")
                + f" ({e(s.get('actor') or 'agent')}) "
                f"<code>{e(s.get('action') or s.get('action_text') or '(no action)')}</code>{decision}{judged}"
                f"<br><i>{e(thought)}</i>"  # compact: the address is in the details (Page), not a line here
                + ("" if self.compact else f"<br><span style='color:#555'>{e(s.get('url') or '')}</span>") + err)

    def set_note(self, text: str) -> None:
        self.image_note.setText(text)
        self.image_note.setVisible(bool(text))

    # ---------- screenshots ----------
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
        """The files to show for step `s`, best first: the clean screenshot (its boxes drawn from the marks), then
        the marked one; a step with no marks (a WebVoyager import) the marked one first, so its boxes show
        (walkthrough 5: `Click [4]` could not be checked by eye)."""
        paths = []
        for key in ("screenshot_clean", "screenshot") if s.get("marks_file") else ("screenshot", "screenshot_clean"):
            if s.get(key) and str(self.store.file(s[key])) not in paths:
                paths.append(str(self.store.file(s[key])))
        return tuple(paths)

    def _show_image(self, s: dict, img: QImage) -> None:
        """Show a decoded image of step `s`, with a note when it is not the clean screenshot."""
        self.view.set_screenshot(img, self._marks_of(s), keep_view=True)
        clean = s.get("screenshot_clean")
        if clean and img.text(SOURCE) == str(self.store.file(clean)):
            self.set_note("")
        else:
            self.set_note(BOXES_IN_IMAGE_NOTE if not s.get("marks_file") and clean else MARKED_NOTE)
        self.imageShown.emit()

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
        if self._ahead is not None and self._ahead[:2] not in self._images:
            jobs.append(self._ahead)
        return jobs

    def _preload(self) -> None:
        if (self.run["id"], self.steps[self.index]["step"]) in self._images:
            self.loader.request("image", self._preload_jobs())
        for d in (1, -1):  # marks of the neighbours, so the next step needs no disk read
            if 0 <= self.index + d < len(self.steps):
                self._marks_of(self.steps[self.index + d])

    def _waiting_for(self, run_id: str, step: int) -> bool:
        s = self.current()
        return s is not None and run_id == self.run["id"] and s["step"] == step and not self.view.has_screenshot()

    def _on_loader_image(self, run_id: str, step: int, img) -> None:
        if not self.isVisible():
            return
        if img is None:  # not cached: the file may yet appear
            if self._waiting_for(run_id, step):
                paths = self._image_paths(self.current())
                what = f"screenshot of step {step} is" if len(paths) < 2 else \
                    f"screenshots of step {step} (clean and marked) are"
                self.view.clear(f"The {what} missing or unreadable ({' and '.join(paths)}).")
                self.set_note("")
            return
        self._images[(run_id, step)] = img
        while len(self._images) > CACHE:
            self._images.popitem(last=False)
        if self._waiting_for(run_id, step):
            self._show_image(self.current(), img)
            self.decorate()

    def _on_loader_thumb(self, run_id: str, step: int, img) -> None:
        if not self.run or run_id != self.run["id"]:
            return
        for i, s in enumerate(self.steps):
            if s["step"] == step:
                self.filmstrip.item(i).setIcon(QIcon(QPixmap.fromImage(img)))
                self._thumbed.add(step)
                return


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
