"""The step log's rows during "Replay in browser": each replayed step's (what it did, how its page matched), and a
step the gate asks about again (a step that is, or was, irreversible): its action, who decided and, when it was
rejected or the replay stopped at the question, that it was not replayed (#38: its row stayed empty)."""
from __future__ import annotations

from cockpit.core.agent.approval import STOPPED_BY, ApprovalRequest, Decision, decided
from cockpit.ui.plaintext import tip

REJECTED = "not replayed: rejected at the gate"
STOPPED = "not replayed: the replay was stopped at the gate"


class ReplayRows:
    def __init__(self, log):
        self.log = log  # the StepLogPanel
        self.asked: ApprovalRequest | None = None  # the question the gate asks now, about a step being replayed

    def replayed(self, info) -> None:
        """A step replayed (core.replay.replay.StepReplay): its row says what it did and how its page matched."""
        action = info.recorded_action or "page check"
        sim = "" if info.similarity is None else f" (similarity {info.similarity:.2f})"
        outcome = f"replayed: {info.outcome or f'page checked at {info.url}'}{sim}"
        it = self.log.item(info.step)
        it.setText(0, f"{info.step} (you)" if info.actor == "human" else str(info.step))
        it.setText(1, action)
        self._cell(it, 3, outcome)
        self.log.fit_columns()
        self.log.scheduleDelayedItemsLayout()  # the row's wrapped height, measured again

    def ask(self, req: ApprovalRequest) -> None:
        """The gate asks whether to replay step `req.step`: its row shows the action asked about."""
        self.asked = req
        it = self.log.item(req.step)
        it.setText(1, req.shown or str(req.action))
        it.setToolTip(1, tip(req.shown or str(req.action)))
        self._cell(it, 2, "waiting for you")
        self.log.scheduleDelayedItemsLayout()

    def answered(self, decision: Decision) -> None:
        """The person answered the question: who decided; rejected, the step was not replayed."""
        req, self.asked = self.asked, None
        if req is None or decision.key != req.key:
            return
        it = self.log.item(req.step)
        self._cell(it, 2, decided({"approved": decision.approved, "by": decision.by,
                                   "edited_action": decision.action is not None}))
        if not decision.approved:
            self._cell(it, 3, REJECTED + (f" ({decision.message})" if decision.message else ""))
        self.log.scheduleDelayedItemsLayout()

    def ended(self) -> None:
        """The replay ended while the gate asked (Stop): the step was not replayed, and nobody decided."""
        req, self.asked = self.asked, None
        if req is not None and req.step in self.log.items:
            it = self.log.items[req.step]
            self._cell(it, 2, decided({"by": STOPPED_BY}))
            self._cell(it, 3, STOPPED)

    @staticmethod
    def _cell(it, column: int, text: str) -> None:
        it.setText(column, text)
        it.setToolTip(column, tip(text))
