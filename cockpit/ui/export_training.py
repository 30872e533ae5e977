"""File → Export training data…: the runs (Review's filter), what to make of them, where; counts before writing.

Every change of the choice starts a preview in the background (:mod:`cockpit.ui.background`, on a store
connection of its own): the runs the filter selects (the very query Review's table counts) and what the
export would make of them, by source, with what it would leave out and why. Export writes in the
background too, with a progress bar and Stop. Mistakes (a date that does not read, no folder, pyarrow
missing for a Parquet layout) are said in the dialog, in red, and keep Export disabled.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from cockpit.core.errors import CockpitError
from cockpit.core.store import Store
from cockpit.core.store.queries import RunFilter
from cockpit.core.training import parquet
from cockpit.core.training.export import DEFAULT_LAYOUT, ExportOptions, export, preview
from cockpit.core.training.layouts import LAYOUTS, PARQUET
from cockpit.core.training.samples import KEEP
from cockpit.core.words import plural
from cockpit.ui.background import CancelFlag, on_gui_thread, run_in_background
from cockpit.ui.enter_keys import ctrl_enter
from cockpit.ui.run_filter_form import RunFilterForm
from cockpit.ui.settings.parts import MessageLabel

KIND_WORDS = {"sft": "SFT samples (prompt and executed reply)", "preference": "Preference pairs (chosen, rejected)",
              "process": "Process labels (per-step rewards)", "grounding": "Grounding (screenshot, box, point)"}
LAYOUT_WORDS = {"openai": "OpenAI chat JSONL", "hf": "Hugging Face Parquet", "trl": "TRL Parquet",
                "sharegpt": "LLaMA-Factory ShareGPT", "screenspot": "ScreenSpot JSON"}
SOURCE_WORDS = {"accepted": "accepted", "edited": "edited at the gate", "target": "target corrected",
                "point": "point corrected", "takeover": "taken over", "rejected": "rejected",
                "run": "runs", "missing mark": "missing marks drawn"}
KEEP_WORDS = {"default": "runs labelled success, and corrected steps", "approved": "those, and steps approved at the gate",
              "corrected": "corrected steps only", "all": "every step that ran"}
SHORTCUT = "Ctrl+Shift+E"


class _Either:
    """Set when any of its flags is: the dialog closing (the task's own flag) or Stop."""

    def __init__(self, *flags):
        self.flags = flags

    def is_set(self) -> bool:
        return any(f.is_set() for f in self.flags)


def counts_text(result) -> str:
    """'12 runs selected (as Review lists them) → 34 rows from 10 runs: 20 accepted, 5 edited at the gate …'."""
    t = result.tally
    made = ", ".join(f"{n:,} {SOURCE_WORDS.get(k, k)}" for k, n in sorted(t.made.items()))
    text = (f"{len(result.run_ids):,} run{'s' if len(result.run_ids) != 1 else ''} selected (as Review lists them) "
            f"→ {t.total:,} row{'s' if t.total != 1 else ''} from {len(t.runs):,} run{'s' if len(t.runs) != 1 else ''}"
            + (f": {made}" if made else ""))
    left = {**t.skipped, **result.notes}
    if left:
        text += "\nLeft out: " + "; ".join(f"{why} ({n:,})" for why, n in sorted(left.items()))
    return text


class ExportTrainingDialog(QDialog):
    def __init__(self, store: Store, review_filter: RunFilter | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export training data")
        self.store = store
        self.task = None  # the preview or export running
        self.stop_flag = CancelFlag()  # Stop: the export ends early, its outcome still shown
        self.result = None  # the last export's result
        self._build()
        # Review's list shows running runs too; training data comes from finished ones only
        self.runs.set_filter(replace(review_filter, running=False) if review_filter else RunFilter())
        self._fill_layouts()

    def _build(self) -> None:
        self.runs = RunFilterForm(self.store)
        box = QGroupBox("Runs (Review's filter)")
        QVBoxLayout(box).addWidget(self.runs)
        self.kind, self.layout_box, self.keep = QComboBox(), QComboBox(), QComboBox()
        for k, words in KIND_WORDS.items():
            self.kind.addItem(words, k)
        for k, words in KEEP.items():
            self.keep.addItem(KEEP_WORDS[k], k)
            self.keep.setItemData(self.keep.count() - 1, words, Qt.ToolTipRole)
        self.keep.currentIndexChanged.connect(lambda i: self.keep.setToolTip(KEEP[self.keep.itemData(i)]))
        self.keep.setToolTip(KEEP["default"])
        self.folder = QLineEdit(placeholderText="a folder to write into")
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self.choose_folder)
        where = QHBoxLayout()
        where.addWidget(self.folder, 1)
        where.addWidget(self.browse)
        what = QFormLayout()
        what.addRow("Make", self.kind)
        what.addRow("Layout", self.layout_box)
        what.addRow("Steps kept", self.keep)
        what.addRow("Folder", where)
        self.counts = MessageLabel("")
        self.error = MessageLabel("")
        self.error.setStyleSheet("color: #b00020")
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.export_btn = QPushButton("Export")
        self.export_btn.setDefault(True)
        ctrl_enter(self, self.export_btn.click)
        self.export_btn.setToolTip("Write the training data into the folder (Ctrl+Return)")
        self.stop_btn = QPushButton("Stop")
        self.stop_btn.setEnabled(False)
        self.close_btn = QPushButton("Close")
        self.export_btn.clicked.connect(self.start_export)
        self.stop_btn.clicked.connect(self.stop)
        self.close_btn.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.progress, 1)
        for b in (self.export_btn, self.stop_btn, self.close_btn):
            buttons.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addWidget(box)
        lay.addLayout(what)
        lay.addWidget(self.counts)
        lay.addWidget(self.error)
        lay.addStretch(1)
        lay.addLayout(buttons)
        self.debounce = QTimer(self, singleShot=True, interval=250)
        self.debounce.timeout.connect(self.refresh)
        self.runs.changed.connect(self.debounce.start)
        self.kind.currentIndexChanged.connect(self._fill_layouts)
        for w in (self.layout_box, self.keep):
            w.currentIndexChanged.connect(self.debounce.start)
        self.folder.textChanged.connect(self._check)

    # ---------- the choice ----------
    def _fill_layouts(self) -> None:
        kind = self.kind.currentData()
        self.layout_box.blockSignals(True)
        self.layout_box.clear()
        for layout in LAYOUTS[kind]:
            need = " (needs pyarrow)" if layout in PARQUET and not parquet.available() else ""
            self.layout_box.addItem(LAYOUT_WORDS[layout] + need, layout)
        self.layout_box.setCurrentIndex(self.layout_box.findData(DEFAULT_LAYOUT[kind]))
        self.layout_box.blockSignals(False)
        self.keep.setEnabled(kind in ("sft", "grounding"))
        self.debounce.start()

    def options(self) -> ExportOptions:
        return ExportOptions(self.kind.currentData(), self.layout_box.currentData(), self.keep.currentData(),
                             self.runs.run_filter())

    def choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Export training data into", self.folder.text() or str(Path.home()))
        if path:
            self.folder.setText(path)

    def _problem(self) -> str:
        problem = self.runs.problem()
        if not problem and self.layout_box.currentData() in PARQUET and not parquet.available():
            problem = (f"{LAYOUT_WORDS[self.layout_box.currentData()]} needs pyarrow: {parquet.INSTALL}. "
                       "The JSON layouts need nothing more.")
        return problem

    def _check(self) -> bool:
        problem = self._problem()
        if not problem and not self.folder.text().strip():
            problem = "Choose a folder to write into (Browse…)."
        elif not problem and Path(self.folder.text().strip()).is_file():
            problem = f"{self.folder.text().strip()} is a file: choose a folder."
        self.error.setText(problem)
        self.export_btn.setEnabled(not problem and not self.busy)
        return not problem

    @property
    def busy(self) -> bool:
        return self.task is not None and self.task.running

    # ---------- the preview and the export, off the GUI thread ----------
    def _start(self, work, done, name: str) -> None:
        if self.task is not None:
            self.task.cancel()
        root = self.store.root
        report = on_gui_thread(self._progress)

        def job(cancel):
            with Store(root) as store:  # a connection of its own, on the worker thread
                return work(store, lambda d, n: report(d, n), cancel)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.task = run_in_background(job, done, name=name, pass_cancel=True)

    def refresh(self) -> None:
        """Count what the choice would make (a new choice cancels the count under way)."""
        if self._problem():
            self._check()
            return
        options = self.options()
        self.counts.setText("Counting…")
        self._start(lambda store, progress, cancel: preview(store, options, progress, cancel), self._previewed,
                    "training-preview")
        self._check()

    def _progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)

    def _previewed(self, fut) -> None:
        self.progress.setVisible(False)
        try:
            self.counts.setText(counts_text(fut.result()))
        except CockpitError as e:
            self.counts.setText("")
            self.error.setText(str(e))
        self._check()

    def start_export(self) -> None:
        if not self._check():
            return
        options, out = self.options(), Path(self.folder.text().strip())
        self.counts.setText(f"Writing into {out}…")
        stop = self.stop_flag = CancelFlag()
        self._start(lambda store, progress, cancel: export(store, options, out, progress, _Either(cancel, stop)),
                    self._exported, "training-export")
        self.export_btn.setEnabled(False)
        self.stop_btn.setEnabled(True)

    def stop(self) -> None:
        self.stop_flag.set()  # the export stops at the next run and writes what it has, and its card

    def _exported(self, fut) -> None:
        self.progress.setVisible(False)
        self.stop_btn.setEnabled(False)
        try:
            self.result = fut.result()
        except (CockpitError, OSError) as e:
            self.error.setText(f"Nothing exported: {e}")
            self._check()
            return
        r = self.result
        state = "Stopped: written so far" if r.cancelled else "Written"
        self.counts.setText(f"{state}: {plural(r.rows, 'row', grouped=True)}, {r.bytes / 1e6:,.1f} MB in {r.out} "
                            f"({', '.join(r.files)}).\n" + counts_text(r))
        self._check()

    def reject(self) -> None:
        if self.task is not None:
            self.task.cancel()
        super().reject()
