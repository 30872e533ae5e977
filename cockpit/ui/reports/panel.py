"""Reports mode: run the LLM judge, and see agreement, success rates and failure charts.

The judge runs as a background task (:mod:`cockpit.ui.background`): its
requests, screenshot reads, image downscaling and SQLite writes happen on a
worker thread, its progress comes back to the bar on the GUI thread, and Cancel
stops it (the report of what was judged is still shown). The window never waits
on it. Everything shown comes from cockpit.core.review.agreement.report().

As `cockpit judge` does, Judge first judges the canary runs (cockpit.core.demo.canaries: made once on the demo
shop in headless Chromium, then kept) with the same judge, unless "Canary runs first" is unticked; the line
under the bar says how the judge did on them, and a judge they flag is named in red.
"""
from __future__ import annotations

import concurrent.futures
import html
from collections import Counter
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.llm.client import ModelConfig
from cockpit.core.review import agreement
from cockpit.core.review.canary_audit import describe
from cockpit.core.review.judge import judge_runs_blocking
from cockpit.core.store import Store
from cockpit.core.store.assignments import blind_runs
from cockpit.core.words import plural
from cockpit.ui.background import CancelFlag, Task, on_gui_thread, run_in_background
from cockpit.ui.field_memory import FieldMemory
from cockpit.ui.fieldnames import JUDGE_SERVER_FIELD, in_window_terms
from cockpit.ui.plaintext import tip
from cockpit.ui.reports.bar_chart import BarChart
from cockpit.ui.reports.canary_run import canary_line, judge_canaries, mark_flagged
from cockpit.ui.reports.judge_audit import JudgeAuditView
from cockpit.ui.reports.tables import fill_table, report_table
from cockpit.ui.reports.tier_table import TierTable
from cockpit.ui.reports.words import (
    agreement_cell,
    bin_label,
    charts_source,
    explain_columns,
    judge_counts_text,
    kappa_cell,
    runs_cell,
    unjudged_failures_note,
)


class ReportsPanel(QWidget):
    openRun = Signal(str)

    def __init__(self, store: Store, parent=None, *, judge_config: ModelConfig | None = None):
        super().__init__(parent)
        self.store = store
        # who is looking (Review's annotator field): runs of their blind batch they have not labelled are left
        # out of the per-run disagreements, which name the judges' and the other annotators' verdicts (#22)
        self.annotator: Callable[[], str] = lambda: ""
        self.judge_task: Task | None = None  # until its outcome is shown
        self._cancel: CancelFlag | None = None
        self._judged_of: tuple[set, int] = (set(), 0)  # the runs being judged, and how many are done
        self._build(judge_config or ModelConfig(temperature=0))
        # the judge server and model used last time (walkthrough 4: a restart was back to gpt-4o on OpenAI, so Judge
        # pressed without looking sent the runs to another, paid judge); the API key stays in the keyring
        self.judge_memory = FieldMemory("judge", {"url": self.j_url, "model": self.j_model})
        if judge_config is None:  # (a panel given a judge of its own keeps it)
            self.judge_memory.restore(store.root)

    # ---------- building ----------
    def _build(self, cfg: ModelConfig) -> None:
        judge_box = QGroupBox("LLM judge")
        form = QFormLayout()
        self.j_url = QLineEdit(cfg.base_url or "")
        self.j_url.setPlaceholderText("OpenAI (leave empty) or http://localhost:8000/v1 ...")
        self.j_model = QLineEdit(cfg.model)
        self.j_model.setToolTip("Pick a judge from another model family than the agent's: judges favour their own")
        self.j_protocol = QComboBox()
        self.j_protocol.addItem("WebVoyager: task, answer, last k screenshots", "webvoyager")
        self.j_protocol.addItem("WebJudge (Online-Mind2Web): key points, every screenshot scored", "webjudge")
        _say_choice(self.j_protocol, "WebVoyager's judge asks once per run. WebJudge asks for the task's key points, "
                    "scores each screenshot 1-5 and judges over those scored 3 or more (at most 50): more "
                    "requests, and the judge Online-Mind2Web reports. Both answer success only.")
        self.j_k = QComboBox()
        self.j_k.addItems(["1", "2", "3", "all"])
        self.j_k.setCurrentText("3")
        self.j_protocol.currentIndexChanged.connect(
            lambda _i: self.j_k.setEnabled(self.j_protocol.currentData() == "webvoyager"))
        self.j_conc = QSpinBox(minimum=1, maximum=32, value=4)
        self.j_which = QComboBox()
        self.j_which.addItems(["finished runs not yet judged", "all finished runs (judge again)"])
        _say_choice(self.j_which, "Which runs the judge is asked about")
        self.j_canary = QCheckBox("Canary runs first")
        self.j_canary.setChecked(True)
        self.j_canary.setToolTip("Judge Cockpit's six canary runs (known outcomes, on the demo shop) with this judge "
                                 "before your runs; a judge that gets one wrong or cannot be read is flagged in "
                                 "every report. Made once in headless Chromium, then kept.")
        self.j_canary_result = QLabel()  # how the judge did on the canaries
        self.j_canary_result.setTextFormat(Qt.PlainText)
        self.j_canary_result.setWordWrap(True)
        self.j_canary_result.hide()
        form.addRow("Judge server", self.j_url)
        form.addRow("Judge model", self.j_model)
        form.addRow("Protocol", self.j_protocol)
        form.addRow("Last k screenshots", self.j_k)
        form.addRow("Concurrent requests", self.j_conc)
        form.addRow("Runs", self.j_which)
        form.addRow("", self.j_canary)
        self.j_start = QPushButton("Judge")
        self.j_cancel = QPushButton("Cancel")
        self.j_cancel.setEnabled(False)
        self.j_progress = QProgressBar()
        self.j_status = QLabel()
        self.j_status.setWordWrap(True)
        row = QHBoxLayout()
        for w in (self.j_start, self.j_cancel, self.j_progress):
            row.addWidget(w)
        jl = QVBoxLayout(judge_box)
        jl.addLayout(form)
        jl.addLayout(row)
        jl.addWidget(self.j_status)
        jl.addWidget(self.j_canary_result)
        self.j_start.clicked.connect(self.start_judging)
        self.j_cancel.clicked.connect(self.cancel_judging)

        self.fleiss = _wrapped()
        self.assisted = _wrapped()
        self.no_answer_note = _wrapped()  # the runs counted as failures though nobody judged them (#30)
        self.assisted_runs = _list()  # what people did in each assisted run; double-click opens it
        self.assisted_runs.setMaximumHeight(90)
        self.assisted_runs.itemActivated.connect(self._open)
        self.assisted_runs.itemDoubleClicked.connect(self._open)
        self.assisted.setToolTip("Assisted: a person approved, rejected or edited an action, took the browser over, "
                                 "left a note or resumed a breakpoint during the run. `cockpit agreement` lists "
                                 "the runs and what was done.")
        self.pairs = report_table(["annotator", "annotator", "runs", "agreement", "Cohen's κ"])
        self.judges = report_table(["judge", "k", "prompt", "runs", "agreement", "κ vs humans", "undecided",
                              "TP", "FN", "FP", "TN", "canaries"])
        for table in (self.pairs, self.judges):
            explain_columns(table)  # agreement over too few runs, verdicts scored without the judge
        self.audit = JudgeAuditView(self.store.root)
        self.disagree = _list()
        self.disagree.itemActivated.connect(self._open)
        self.disagree.itemDoubleClicked.connect(self._open)
        self.not_executable = _wrapped()  # runs the annotators found not executable: apart, never failures
        self.not_executable_runs = _list()
        self.not_executable_runs.setMaximumHeight(90)
        self.not_executable_runs.itemActivated.connect(self._open)
        self.not_executable_runs.itemDoubleClicked.connect(self._open)
        self.tiers = TierTable()  # human attempts: tiers and agent/human step ratios
        self.tiers.openRun.connect(self.openRun)
        self.by_site = BarChart("Success rate by site")
        self.by_model = BarChart("Success rate by model")
        self.categories = BarChart("Failure categories")
        self.histogram = BarChart("Steps per run")
        self.charts_source = _wrapped()  # whose verdicts the charts show: people's, which judge's (#38)
        self.charts_source.setTextFormat(Qt.PlainText)  # (a judge's name is data)
        self.refresh_btn = QPushButton("Refresh")
        self.refresh_btn.clicked.connect(self.refresh)

        body = QWidget()
        grid = QGridLayout(body)
        grid.addWidget(judge_box, 0, 0)
        left = QVBoxLayout()
        left.addWidget(_wrapped("<b>Success, autonomous and assisted</b>"))
        left.addWidget(self.assisted)
        left.addWidget(self.no_answer_note)
        left.addWidget(self.assisted_runs)
        left.addWidget(_wrapped("<b>Annotators</b>"))
        left.addWidget(self.fleiss)
        left.addWidget(self.pairs)
        left.addWidget(_wrapped("<b>Judges against the human consensus</b> (WebVoyager Table 2's shape)"))
        left.addWidget(self.judges)
        left.addWidget(_wrapped("<b>Judges audited</b>: accuracy, κ, precision, recall, false-positive rate and "
                                "the success-rate gap with 95% intervals, split as chosen; judges the canary runs "
                                "flagged are named"))
        left.addWidget(self.audit)
        left.addWidget(_wrapped("<b>Disagreements</b> (double-click to open the run)"))
        left.addWidget(self.disagree)
        left.addWidget(self.not_executable)
        left.addWidget(self.not_executable_runs)
        left.addWidget(_wrapped("<b>Human attempts</b>: each task's tier and each agent run's steps per human step "
                                "(double-click to open the run)"))
        left.addWidget(self.tiers)
        grid.addLayout(left, 1, 0)
        charts = QVBoxLayout()
        charts.addWidget(self.refresh_btn, 0, Qt.AlignRight)
        for c in (self.charts_source, self.by_site, self.by_model, self.categories, self.histogram):
            charts.addWidget(c)
        charts.addStretch(1)
        grid.addLayout(charts, 0, 1, 2, 1)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(scroll)

    # ---------- the numbers ----------
    def refresh(self) -> None:
        rep = agreement.report(self.store)
        self._show_success(rep)
        self._show_agreement(rep)
        self._show_disagreements(rep)
        self._show_not_executable(rep)
        self._show_charts(rep)
        self.tiers.refresh(self.store)
        self.audit.refresh()

    def _show_success(self, rep: dict) -> None:
        a = rep["assisted"]
        self.assisted.setText(
            f"{plural(a['n'], 'run')} with a known outcome: {_pct(a['assisted_rate'])} succeeded counting people's help, "
            f"{_pct(a['autonomous_rate'])} without it. {a['assisted_runs']} had interventions, "
            f"{a['assisted_successes']} of them succeeded." if a["n"] else "No run has a known outcome yet.")
        self.assisted_runs.clear()
        names = {1: "success", 0: "fail", None: "no outcome yet"}
        for r in a["runs"]:
            it = QListWidgetItem(f"{r['run_id']} ({names[r['outcome']]}): {r['described']} — {_cut(r['task'], 60)}")
            it.setData(Qt.UserRole, r["run_id"])
            it.setToolTip(tip(f"{r['run_id']} ({names[r['outcome']]}): {r['described']} — {r['task']}"))
            self.assisted_runs.addItem(it)
        self.assisted_runs.setVisible(bool(a["runs"]))
        note = unjudged_failures_note(self.store, self._distrust(rep))
        self.no_answer_note.setText(note)
        self.no_answer_note.setVisible(bool(note))

    def _show_agreement(self, rep: dict) -> None:
        f = rep["fleiss"]
        self.fleiss.setText(f"Fleiss' κ = {f['kappa']:.3f} over {plural(f['n_runs'], 'run')} labelled by "
                            f"{', '.join(f['annotators'])}" if f["kappa"] is not None else
                            "Fleiss' κ needs runs labelled by three or more annotators.")
        fill_table(self.pairs, [(r["annotator1"], r["annotator2"], r["n"], agreement_cell(r["agreement"], r["n"]),
                            kappa_cell(r["kappa"], r["n"])) for r in rep["pairwise_cohen"]])
        fill_table(self.judges, [(r["judge"], agreement.k_label(r["k"]), r["prompt_version"],
                             runs_cell(r["n"], r["automatic"]), agreement_cell(r["agreement"], r["n"], r["automatic"]),
                             kappa_cell(r["kappa"], r["n"]), r["undecided"],
                             r["tp"], r["fn"], r["fp"], r["tn"], describe(r["canary"])) for r in rep["judges"]])
        mark_flagged(self.judges, rep["judges"])

    def _show_disagreements(self, rep: dict) -> None:
        self.disagree.clear()
        hidden = blind_runs(self.store, self.annotator())
        rows = rep.get("disagreements", [])
        for d in rows:
            if d["run_id"] not in hidden:
                it = QListWidgetItem(f"{d['run_id']}: {', '.join(d['reasons'])} — {_cut(d['task'], 80)}")
                it.setData(Qt.UserRole, d["run_id"])
                it.setToolTip(tip(f"{d['run_id']}: {', '.join(d['reasons'])} — {d['task']}"))
                self.disagree.addItem(it)
        if left := sum(d["run_id"] in hidden for d in rows):
            note = QListWidgetItem(f"{left} run{'s' if left > 1 else ''} of your blind batch left out until you "
                                   "label them")
            note.setFlags(Qt.ItemFlag.NoItemFlags)
            self.disagree.addItem(note)

    def _show_not_executable(self, rep: dict) -> None:
        """The runs whose consensus is not executable, with each annotator's reason (a blind batch's runs
        left out until labelled, as with the disagreements)."""
        ne, hidden = rep["not_executable"], blind_runs(self.store, self.annotator())
        self.not_executable.setText(f"<b>Not executable</b>: {plural(ne['count'], 'run')} the annotators found could "
                                    "not be attempted; in no success rate, agreement or failure count")
        self.not_executable_runs.clear()
        for r in ne["runs"]:
            if r["run_id"] in hidden:
                continue
            why = "; ".join(f"{who}: {reason or 'no reason given'}" for who, reason in r["reasons"].items())
            it = QListWidgetItem(f"{r['run_id']} ({why}) — {_cut(r['task'], 60)}")
            it.setData(Qt.UserRole, r["run_id"])
            it.setToolTip(tip(f"{r['run_id']} ({why}) — {r['task']}"))
            self.not_executable_runs.addItem(it)
        self.not_executable_runs.setVisible(self.not_executable_runs.count() > 0)

    def _show_charts(self, rep: dict) -> None:
        left_out = Counter({(j["judge"], j["k"], j["prompt_version"]): j["runs"] for j in rep["rates_leave_out"]})
        self.charts_source.setText(charts_source(self.store, self._distrust(rep), left_out))
        self.by_site.set_bars([(r["site"] or "(no site)", r["rate"] or 0, f"{r['successes']}/{r['n']}")
                               for r in rep["success_by_site"] if r["n"]], 1.0)
        self.by_model.set_bars([(r["model"] or "(no model)", r["rate"] or 0, f"{r['successes']}/{r['n']}")
                                for r in rep["success_by_model"] if r["n"]], 1.0)
        cats = sorted(rep["failure_categories"].items(), key=lambda kv: -kv[1])
        total = sum(v for _, v in cats) or 1
        self.categories.set_bars([(k or "(no category)", v, f"{v} ({v / total:.0%})") for k, v in cats])
        self.histogram.set_bars([(bin_label(h["lo"], h["hi"]), h["count"], str(h["count"]))
                                 for h in rep["steps_histogram"]])

    @staticmethod
    def _distrust(rep: dict) -> frozenset:
        """The judges the canaries flagged, whose verdicts the success rates leave out."""
        return frozenset((j["judge"], j["k"] or 0, j["prompt_version"] or "") for j in rep["flagged_judges"])

    def _open(self, item: QListWidgetItem) -> None:
        if run_id := item.data(Qt.UserRole):
            self.openRun.emit(run_id)

    # ---------- the judge ----------
    def judge_config(self) -> ModelConfig:
        return ModelConfig(base_url=self.j_url.text().strip() or None, model=self.j_model.text().strip(),
                           temperature=0, max_retries=3)

    def _k(self) -> int:
        return 0 if self.j_k.currentText() == "all" else int(self.j_k.currentText())

    @property
    def judging(self) -> bool:
        """True from Judge until the outcome is shown."""
        return self.judge_task is not None

    def start_judging(self) -> Task | None:
        """Start the judge on the finished runs, in the background; the task, or None when it cannot start."""
        if self.judge_task is not None:
            return self.judge_task
        if not self.j_model.text().strip():  # verdicts are stored under the judge model's name
            self.j_status.setText("Name the judge model first.")
            return None
        ids = self.store.finished_run_ids()
        if not ids:
            self.j_status.setText("No finished runs to judge.")
            return None
        self.judge_memory.remember(self.store.root)
        # Not the task's own cancel flag: a cancelled task delivers nothing, and Cancel shows what was judged.
        cancel = self._cancel = CancelFlag()
        self.j_progress.setRange(0, len(ids))
        self.j_progress.setValue(0)
        self.j_start.setEnabled(False)
        self.j_cancel.setEnabled(True)
        canaries = self.j_canary.isChecked()
        self.j_canary_result.hide()
        self._judging = ((f"Judging the canary runs first, then {plural(len(ids), 'run')}" if canaries else
                          f"Judging {plural(len(ids), 'run')}") + f" with {html.escape(self.j_model.text())}…")
        self.j_status.setText(self._judging)
        self._judged_of = (set(ids), 0)  # the user's runs, and how many of them are judged so far
        if canaries:
            self.j_progress.setRange(0, 0)  # busy until the first of the user's runs is judged
        options = dict(store_root=self.store.root, config=self.judge_config(), k=self._k(),
                       concurrency=self.j_conc.value(), progress=on_gui_thread(self._on_progress),
                       stage_progress=on_gui_thread(self._on_stage),
                       redo=self.j_which.currentIndex() == 1, protocol=self.j_protocol.currentData())
        making = on_gui_thread(lambda name: self.j_status.setText(
            f"Making canary run {name} on the demo shop (once, in headless Chromium)…"))

        def work():
            canary = judge_canaries(options, making) if canaries else None
            return canary, judge_runs_blocking(ids, cancel=cancel, **options)
        self.judge_task = run_in_background(work, self._on_done, name="cockpit-judge")
        return self.judge_task

    def cancel_judging(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def _on_progress(self, done: int, total: int, run_id: str, verdict) -> None:
        if self.judge_task is None:
            return  # a report queued before the outcome was shown
        self.j_progress.setMaximum(total)
        self.j_progress.setValue(done)
        self._judged_of = (self._judged_of[0], done)
        self.j_status.setText(f"{self._judging} {done} of {total} judged.")

    def _on_stage(self, run_id: str, text: str) -> None:
        """Where a run's judgement is within it (a WebJudge run's stages), under the line that counts runs; the
        bar counts runs from the first of the user's runs on (walkthrough 5: busy for a whole WebJudge pass)."""
        if self.judge_task is None:
            return
        ids, done = self._judged_of
        if run_id in ids and self.j_progress.maximum() == 0:  # the canaries are done
            self.j_progress.setRange(0, len(ids))
            self.j_progress.setValue(done)
        counted = f" {done} of {len(ids)} judged." if run_id in ids else ""
        self.j_status.setText(f"{self._judging}{counted}<br>{html.escape(run_id)}: {html.escape(text)}")

    def _on_done(self, future: concurrent.futures.Future) -> None:
        self.judge_task = self._cancel = None
        self.j_start.setEnabled(True)
        self.j_cancel.setEnabled(False)
        exc = future.exception()
        if exc is not None:
            self.j_status.setText(in_window_terms(f"The judge could not run: {exc}", JUDGE_SERVER_FIELD))
            return
        canary, rep = future.result()
        self._show_canaries(canary)
        errors = in_window_terms("; ".join(f"{k}: {v}" for k, v in list(rep.errors.items())[:3]), JUDGE_SERVER_FIELD)
        why = [f"{rid}: {r.why}" for rid, r in rep.runs.items() if r.judged and r.verdict is None and r.why][:3]
        self.j_status.setText(("Cancelled. " if rep.cancelled else "Done. ") + judge_counts_text(rep)
            + (f". Errors: {errors}" if errors else "")
            + (". Undecided: " + "; ".join(why) if why else ""))
        self.refresh()

    def _show_canaries(self, canary: dict | None) -> None:
        """The line under the bar: how the judge did on the canary runs (red when they flag it)."""
        self.j_canary_result.setVisible(canary is not None)
        if canary is not None:
            text, bad = canary_line(canary, self.j_model.text().strip())
            self.j_canary_result.setText(text)
            self.j_canary_result.setStyleSheet("color:#b00020" if bad else "color:#1b5e20")


def _cut(text: str, n: int) -> str:
    """The first n characters of a task in a list line, with "…" when there is more (the tooltip has it all)."""
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _list() -> QListWidget:
    """A list whose long lines wrap (each whole in its tooltip too), with no sideways scrolling."""
    lw = QListWidget()
    lw.setWordWrap(True)
    lw.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    return lw


def _say_choice(box: QComboBox, explanation: str) -> None:
    """A combo box of long choices: as narrow as its column lets it be (its text cut with "…"), the chosen text
    whole in its tooltip, above what the choice is for."""
    box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(12)

    def say(_i=0):
        box.setToolTip(tip(f"{box.currentText()}\n\n{explanation}"))
    box.currentIndexChanged.connect(say)
    say()


def _wrapped(text: str = "") -> QLabel:
    """A label that wraps rather than widening the panel (names of annotators and judges are long)."""
    label = QLabel(text)
    label.setWordWrap(True)
    return label
