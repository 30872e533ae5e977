"""Review's labelling: run verdicts, step judgements, the corrected target, the unlabelled queue, blind mode.

A controller ReviewPanel (cockpit.ui.review.panel) composes: it acts on what the label bar
(cockpit.ui.review.label_bar) asks for, on the run the viewer (cockpit.ui.review.run_viewer) shows, and
writes through cockpit.core.store.labels and cockpit.core.store.corrections. It owns the labelling session's
state: when the run was opened, whether the others' verdicts have been on screen, a pending "click the right
box", the queue N goes through. The queue is the annotator's batch queue when they have runs assigned
(cockpit.ui.review.queue).
"""
from __future__ import annotations

import html
import json
import time

from PySide6.QtCore import QObject, Signal

from cockpit.core.actions.grammar import parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.store import corrections
from cockpit.core.store import labels as L
from cockpit.ui.review.label_bar import label_text
from cockpit.ui.review.label_undo import LabelHistory
from cockpit.ui.review.reason_dialog import ReasonDialog
from cockpit.ui.review.words import words
from cockpit.ui.screenshot.pointer import css_point

NEED_NAME = "Enter your annotator name first"


class Labeller(QObject):
    labelled = Signal(str)  # run id
    reasonAsked = Signal(object)  # the ReasonDialog just opened (D: why is the run not executable?)
    openRequested = Signal(str)  # run id: the next one to label
    hiddenRuns = Signal(object)  # the runs a blind batch hides from the annotator (a set of run ids)

    def __init__(self, store, viewer, bar, parent=None):
        super().__init__(parent)
        self.store, self.viewer, self.bar = store, viewer, bar
        self.opened_at = time.monotonic()
        self.revealed = False  # the open run's other verdicts have been on screen
        self.opened_blind = False  # the open run's claim was hidden when it was opened (a blind batch's)
        self.pick_target = False  # after W: the next click on a box (or a point) is the right target
        self.queue: list[str] = []
        self.in_batch = False  # the queue is the annotator's batches' (in batch order)
        self.list_order = lambda: []  # the ids in the runs list's current order (the panel sets it)
        self.history = LabelHistory(store)  # Ctrl+Z: the labels as they were before each change
        viewer.stepMoved.connect(self.on_step_moved)
        viewer.view.markClicked.connect(self.on_view_mark)
        viewer.view.pointClicked.connect(self.on_view_point)  # a pixel step's corrected point (W, then a click)

    @property
    def run(self) -> dict | None:
        return self.viewer.run

    def who(self) -> str:
        return self.bar.who()

    def on_run_opened(self) -> None:
        """A run was opened: nothing of it seen yet; the claim hidden when a blind batch says so."""
        self.opened_at = time.monotonic()
        self.revealed = False
        self.pick_target = False
        self.update_claim()  # before anything of the run is shown
        self.opened_blind = self.viewer.claim_hidden
        self.show_header()
        self.bar.load(self.my_label())

    def on_step_moved(self) -> None:  # "step 1: correct" or a pending "click the right box" was about the last one
        self.pick_target = False
        self.bar.show_label(self.my_label())

    def my_label(self) -> dict | None:
        if not self.run or not self.who():
            return None
        mine = L.labels(self.store, self.run["id"], self.who())
        return mine[0] if mine else None

    def update_claim(self) -> None:
        """Hide or show the open run's claim: the answer, the status, the ANSWER step (blind batch, not labelled)."""
        hidden = bool(self.run) and self.bar.queue_bar.claim_hidden(self.store, self.run["id"], self.who())
        self.viewer.set_claim_hidden(hidden)

    def show_header(self) -> None:
        if not self.run:
            return
        hide = (self.bar.blind.isChecked() and self.my_label() is None) or self.viewer.claim_hidden
        self.revealed = self.revealed or not hide
        self.viewer.show_header("" if hide else self._others_html())

    def _others_html(self) -> str:
        parts = []
        for lab in L.labels(self.store, self.run["id"]):
            parts.append(f"{html.escape(lab['annotator'])}: {words(lab['verdict'])}"
                         + (f" ({html.escape(lab['category'])})" if lab["category"] else ""))
        for v in L.verdicts(self.store, self.run["id"]):
            word = {1: "success", 0: "fail"}.get(v["verdict"], "undecided")
            parts.append(f"{html.escape(v['judge'])}" + (f" k={v['k']}" if v["k"] else "") + f": {word}")
        ref = (self.run.get("config") or {}).get("reference_answers")
        if ref:
            parts.append("reference: " + html.escape(json.dumps(ref)[:200]))
        return ("<br>" + " · ".join(parts)) if parts else ""

    # ---------- the run's label ----------
    def ask_not_executable(self, parent) -> ReasonDialog | None:
        """D: ask why the task could not be attempted (ReasonDialog); the label is stored once answered."""
        if not self.run:
            return None
        if not self.who():
            self.bar.say(NEED_NAME)
            self.bar.annotator.setFocus()
            return None
        before = self.my_label()
        dlg = ReasonDialog(parent, before["category"] if before and before["verdict"] == L.NOT_EXECUTABLE else "")
        run_id = self.run["id"]
        dlg.accepted.connect(lambda: self.run and self.run["id"] == run_id and self.label(L.NOT_EXECUTABLE, dlg.reason()))
        dlg.rejected.connect(lambda: self.bar.say("not labelled: say why the task could not be attempted"))
        dlg.finished.connect(dlg.deleteLater)
        dlg.open()
        self.reasonAsked.emit(dlg)
        return dlg

    def label(self, verdict: str, reason: str | None = None) -> bool:
        """Store the annotator's verdict; not executable with its `reason` (None: the one stored before)."""
        if not self.run:
            return False
        who = self.who()
        if not who:
            self.bar.say(NEED_NAME)
            self.bar.annotator.setFocus()
            return False
        # Blind means this verdict was formed before the others were shown: a first label in blind mode,
        # or the same verdict saved again (comment, category) after a blind one.
        # A run a blind batch gave this annotator was opened with the others' verdicts hidden, as with Blind.
        before = self.my_label()
        category = self.bar.category_text() if verdict == "fail" else ""
        if verdict == L.NOT_EXECUTABLE:
            category = reason if reason is not None else before["category"] if before else ""
        blind = (self.bar.blind.isChecked() or self.opened_blind) and (not self.revealed or bool(
            before and before["blind"] and before["verdict"] == verdict))
        self.history.remember(self.run["id"], who)
        L.set_label(self.store, self.run["id"], who, verdict, category=category, comment=self.bar.comment.text(),
                    seconds=time.monotonic() - self.opened_at, blind=blind,
                    side_effects=self.bar.axis_answer("side_effects"), repetition=self.bar.axis_answer("repetition"))
        if verdict != "fail":  # a category belongs to a failure: the field shows what was stored (none)
            self.bar.category.setCurrentText("")
        self.bar.say(label_text(verdict, category))
        self.bar.mark_verdict(verdict)
        self.refresh_queue()  # the queue's progress; a blind batch's run now shows its claim
        self.update_claim()
        self.show_header()
        self.viewer.decorate()
        self.labelled.emit(self.run["id"])
        return True

    def undo(self) -> bool:
        """Ctrl+Z: the shown run's last label change undone, its earlier label back as it was stored."""
        if not self.run:
            return False
        c = self.history.undo(self.run["id"])
        if c is None:
            self.bar.say("Nothing to undo on this run.")
            return False
        b = c.before
        if c.step is None:
            now = label_text(b["verdict"], b["category"]) if b else "not labelled"
            what = f"{c.annotator}'s label is back to: {now.removeprefix('your label: ')}"
        else:
            what = f"step {c.step}: {c.annotator}'s judgement is back to: {words(b['judgement']) if b else 'none'}"
        more = self.history.left(self.run["id"])
        self.bar.load(self.my_label())
        self.refresh_queue()
        self.update_claim()
        self.show_header()
        self.viewer.decorate()
        self.labelled.emit(self.run["id"])
        self.bar.say(f"Undone (Ctrl+Z): {what}" + (f" · {more} more to undo" if more else ""))
        return True

    def resave(self) -> bool:
        mine = self.my_label()
        return bool(mine) and self.label(mine["verdict"])

    def category_picked(self) -> None:
        mine = self.my_label()
        if mine and mine["verdict"] == "fail":
            self.label("fail")

    def pick_category(self, i: int) -> None:
        mine = self.my_label()
        self.bar.category.setCurrentIndex(i)  # index 0 is the empty entry
        if self.label("fail") and mine and mine["verdict"] != "fail":  # a category only makes sense on a failure
            was = mine["verdict"].replace("_", " ")  # said, not silent: a digit pressed by mistake is undone
            self.bar.say(f"{label_text('fail', self.bar.category_text())} — it was {was}: a failure category makes "
                         "the label a failure (Ctrl+Z undoes)")

    def step_axis(self, axis: str) -> None:
        """The axis key: saved at once on a labelled run, else with the run's verdict (S, F or U)."""
        if self.run:
            self.bar.step_axis(axis)
            self.axis_picked()

    def axis_picked(self) -> None:
        if not self.who():
            self.bar.say(NEED_NAME)
        elif not self.resave():
            self.bar.say("saved with your verdict: press S, F or U")

    # ---------- a step's judgement ----------
    def judge_step(self, judgement: str) -> None:
        s = self.viewer.current()
        if s is None:
            return
        if not self.who():
            self.bar.say(NEED_NAME)
            return
        self.history.remember(self.run["id"], self.who(), s["step"])
        L.set_step_label(self.store, self.run["id"], s["step"], self.who(), judgement)
        self.pick_target = judgement == "wrong_target"
        where = " (or the point it should have hit)" if _pixel(s) else ""
        self.bar.say(f"step {s['step']}: {words(judgement)}" +
                     (f" — click the right box on the screenshot{where}" if self.pick_target else ""))
        self.viewer.decorate()

    def on_view_point(self, point: tuple) -> None:
        """After W on a pixel step: "the click should have been here", kept as a point correction."""
        s = self.viewer.current()
        if not self.pick_target or s is None or not _pixel(s):
            return
        point = css_point(point, s.get("pointer"), self.viewer.view.image_size())  # image pixels -> the page's
        corrections.add(self.store, self.run["id"], s["step"], "point", point=point, by=self.who())
        self.pick_target = False
        self.viewer.decorate()
        self.viewer.view.set_pointer(f"Click ({point[0]}, {point[1]})",
                                     {"frame": (s.get("pointer") or {}).get("frame")}, "#2e7d32")
        self.bar.say(f"step {s['step']}: wrong target, the click should have been at {point[0]}, {point[1]}")

    def on_view_mark(self, mark_id: int) -> None:
        s = self.viewer.current()
        if not self.pick_target or s is None:
            return
        self.history.remember(self.run["id"], self.who(), s["step"])
        L.set_step_label(self.store, self.run["id"], s["step"], self.who(), "wrong_target",
                         corrected_target=mark_id)
        self.pick_target = False
        self.viewer.view.set_highlight(mark_id, "#2e7d32")
        self.bar.say(f"step {s['step']}: wrong target, right one is [{mark_id}]")
        self.viewer.decorate()

    # ---------- the queue ----------
    def next_unlabelled(self) -> None:
        if not self.who():
            self.bar.say(NEED_NAME)
            return
        self.refresh_queue()
        nxt = self.upcoming()
        if nxt is None:
            self.bar.say("Nothing left to label. Well done.")
            return
        self.openRequested.emit(nxt)

    def upcoming(self) -> str | None:
        """The run N opens from here, by the queue as last read (None: nothing left): outside a batch, the next
        unlabelled run after this one in the list's current order (its sort), going round at the end."""
        current = self.run["id"] if self.run else None
        queue = self.queue
        order = {} if self.in_batch else {rid: i for i, rid in enumerate(self.list_order())}
        if order:  # the list's order; runs the filter hides after those it shows
            queue = sorted(queue, key=lambda r: order.get(r, len(order)))
            if current in order and current not in queue:
                at = sum(1 for r in queue if order.get(r, len(order)) < order[current])
                queue = queue[at:] + queue[:at]
        if current in queue:  # skipping this one: go on after it (else N would swap between two runs)
            i = queue.index(current)
            queue = queue[i + 1:] + queue[:i]
        return next((r for r in queue if r != current), None)

    def refresh_queue(self) -> None:
        """The runs N goes through: the annotator's batch queue when they have runs assigned, else every
        run they have not labelled; and the runs a blind batch hides from them (hiddenRuns)."""
        who = self.who()
        assigned = self.bar.queue_bar.assigned(who)
        self.queue = assigned if assigned is not None else L.unlabelled_runs(self.store, who) if who else []
        self.in_batch = assigned is not None
        self.bar.set_queue_mode(assigned is not None)
        self.hiddenRuns.emit(self.bar.queue_bar.blind_runs(who))

    def on_annotator_changed(self) -> None:
        """Another annotator: their queue, their label, their step judgements, and (blind) only what they may see."""
        self.refresh_queue()
        if self.run:  # (what the screen showed before still counts as seen: revealed stays)
            self.update_claim()
            self.show_header()
            self.bar.load(self.my_label())
            self.viewer.decorate()


def _pixel(step: dict) -> bool:
    """The step acted at a point (a pixel-grounded model's, or a human's click at a point)."""
    try:
        return bool(step.get("pointer")) or parse_action(step.get("action") or "").pixel
    except ActionParseError:
        return False
