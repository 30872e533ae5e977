"""A resumed run's earlier steps in the step log: the rows recorded before it was interrupted, so the log starts at
row 1 and goes on from there as the run does (#38: after Resume the log started at the first new step, "row 2")."""
from __future__ import annotations

from PySide6.QtCore import Qt

from cockpit.core.agent.approval import decided
from cockpit.core.store import Store
from cockpit.core.store.records import outcome_text
from cockpit.ui.plaintext import tip

BEFORE = "recorded before the run was interrupted"


def show_earlier(log, store: Store, run_id: str, first: int) -> None:
    """`run_id`'s recorded steps before step `first` as rows of `log` (a StepLogPanel), as they were recorded."""
    for row in store.steps(run_id):
        if row["step"] >= first:
            break
        it = log.item(row["step"])
        if row.get("actor") == "human":
            it.setText(0, f"{row['step']} (you)")
        action = row.get("action") or row.get("action_text") or ""
        it.setText(1, action)
        it.setToolTip(1, tip(action))
        if isinstance(row.get("decision"), dict):
            it.setText(2, decided(row["decision"]))
        detail = row.get("outcome") or row.get("error")  # as the live rows say it: "clicked [3] …", "refused"
        outcome = detail if (row.get("status") == "ok" and detail) else outcome_text(row.get("status"), detail)
        it.setText(3, outcome.split("; ")[0])
        it.setToolTip(3, tip(f"{outcome}\n({BEFORE})"))
        if row.get("started") and row.get("finished"):
            it.setText(4, f"{row['finished'] - row['started']:.1f} s")
        it.setText(5, str((row.get("prompt_tokens") or 0) + (row.get("completion_tokens") or 0) or ""))
        it.setForeground(0, Qt.gray)  # the steps of before, greyed: the new ones follow
    log.fit_columns()
    log.scheduleDelayedItemsLayout()
