"""Reports' judge audit: every judge against the humans' majority with 95% intervals, split as asked, in a table
and a chart, and the judges the canary runs flagged.

The figures and their bootstrap intervals (:func:`cockpit.core.review.judges.audited_judges`) are computed on a
worker thread (:mod:`cockpit.ui.background`): the window stays live, "Computing…" is shown meanwhile, an error
is shown in the panel, and a newer request replaces an older one. Alt+S picks the split, Alt+F the figure.
"""
from __future__ import annotations

import concurrent.futures
from pathlib import Path

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from cockpit.core.review.bootstrap import Bootstrap
from cockpit.core.review.canary_audit import describe
from cockpit.core.review.judges import audited_judges
from cockpit.ui.background import Task, run_in_background
from cockpit.ui.reports.interval_chart import IntervalChart
from cockpit.ui.reports.tables import fill_table, report_table

SPLITS = (("no split", None), ("site", "site"), ("agent", "agent"), ("task level", "level"),
          ("prompt version", "prompt-version"))
#: (name in the figure box, key, signed axis)
FIGURES = (("accuracy", "accuracy", False), ("Cohen's κ", "kappa", True), ("precision", "precision", False),
           ("recall", "recall", False), ("false-positive rate", "fpr", False),
           ("success-rate gap (judge − humans)", "gap", True))
COLUMNS = ["group", "judge", "k", "prompt", "runs", "accuracy", "κ", "precision", "recall", "false pos.", "gap",
           "canaries"]


def figure_text(key: str, value, ci) -> str:
    """'66.7% [50.0, 80.0]', '0.412 [0.1, 0.7]' or '+12.0 pts [...]' (no interval: the value alone; none: '-')."""
    if value is None:
        return "-"
    if key == "kappa":
        return f"{value:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")
    if key == "gap":
        return f"{100 * value:+.1f} pts" + ("" if ci is None else f" [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]")
    return f"{100 * value:.1f}%" + ("" if ci is None else f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]")


class JudgeAuditView(QWidget):
    def __init__(self, store_root: Path, parent=None, *, boot: Bootstrap | None = None):
        super().__init__(parent)
        self.store_root = store_root
        self.boot = boot or Bootstrap()
        self.rows: list[dict] = []
        self.task: Task | None = None
        self.split = QComboBox()
        for name, key in SPLITS:
            self.split.addItem(name, key)
        self.figure = QComboBox()
        for name, key, _signed in FIGURES:
            self.figure.addItem(name, key)
        split_label, figure_label = QLabel("&Split by"), QLabel("&Figure")
        split_label.setBuddy(self.split)
        figure_label.setBuddy(self.figure)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.table = report_table(COLUMNS)
        self.chart = IntervalChart("accuracy, 95% intervals")
        top = QHBoxLayout()
        for w in (split_label, self.split, figure_label, self.figure):
            top.addWidget(w)
        top.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.table)
        lay.addWidget(self.chart)
        self.split.currentIndexChanged.connect(lambda _i: self.refresh())
        self.figure.currentIndexChanged.connect(lambda _i: self._show_chart())

    @property
    def busy(self) -> bool:
        """True while the figures are being computed."""
        return self.task is not None

    def refresh(self) -> Task:
        """Compute the figures again (on a worker thread); an older computation still running is dropped."""
        if self.task is not None:
            self.task.cancel()
        by, root, boot = self.split.currentData(), self.store_root, self.boot
        self.status.setText("Computing the judges' figures and their 95% intervals…")
        self.task = run_in_background(lambda: audited_judges(root, by, boot), self._done, name="cockpit-judge-audit")
        return self.task

    def _done(self, future: concurrent.futures.Future) -> None:
        self.task = None
        exc = future.exception()
        if exc is not None:
            self.status.setText(f"The judges' figures could not be computed: {exc}")
            return
        self.rows = future.result()
        self._show_table()
        self._show_chart()
        flagged = {(r["judge"], r["k_label"], r["prompt_version"]): r["canary"] for r in self.rows
                   if r["canary"]["flagged"]}
        lines = [f"{self.boot.describe()}; runs the humans call neither success nor fail are left out."]
        lines += [f"⚠ {j} k={k} {pv}: {describe(c)}" for (j, k, pv), c in flagged.items()]
        self.status.setText("\n".join(lines) if self.rows else "No judge verdicts on labelled runs yet.")

    def _show_table(self) -> None:
        fill_table(self.table, [
            (r["group"] or "", r["judge"], r["k_label"], r["prompt_version"], str(r["n"]),
             *(figure_text(key, r[key], r.get(f"{key}_ci")) for key in ("accuracy", "kappa", "precision", "recall",
                                                                         "fpr", "gap")),
             describe(r["canary"])) for r in self.rows])
        self.table.setColumnHidden(0, self.split.currentData() is None)

    def _show_chart(self) -> None:
        name, key, signed = FIGURES[self.figure.currentIndex()]
        rows = []
        for r in self.rows:
            label = " ".join(x for x in (r["group"] and f"{r['group']}:", r["judge"], f"k={r['k_label']}",
                                         r["prompt_version"]) if x)
            rows.append((label, r[key], r.get(f"{key}_ci"), figure_text(key, r[key], None),
                         r["canary"]["flagged"]))
        self.chart.set_rows(rows, signed=signed, percent=key != "kappa", title=f"{name}, 95% intervals")
