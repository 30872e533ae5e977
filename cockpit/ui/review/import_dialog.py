"""File → Import runs…: others' runs and labels into the store, as `cockpit import` brings them.

The person picks a folder or a file; what it holds is detected (cockpit.core.store.detect, off the GUI thread:
a big folder is walked) and the kind chosen, or they choose it themselves, with what it expects said under it
and only that kind's options shown. The import runs in the background (cockpit.core.review.importing, the
command line's own call) with its progress; a folder kind can be cancelled between two folders (each is
imported whole or not at all). The report ends it: what was imported, what was skipped and why, what could not
be imported and why. "Show in Review" opens the first imported run. Every error is said in the dialog.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.errors import CockpitError
from cockpit.core.review.importing import FOLDER_KINDS, ImportRequest, run_import
from cockpit.core.store import Store
from cockpit.core.store.detect import LAYOUTS, NAMES, survey
from cockpit.core.words import plural
from cockpit.ui.background import CancelFlag, Task, on_gui_thread, run_in_background
from cockpit.ui.elide import ElidedLabel
from cockpit.ui.room import resize_within_screen
from cockpit.ui.settings.parts import MessageLabel

SHORTCUT = "Ctrl+I"
DETECT = "detect"  # the kind box's first entry: what the path holds decides
#: The kind box's entries, as a person names them.
CHOICES = {DETECT: "Detect from the path", "webvoyager": "WebVoyager run folders",
           "mind2web": "Online-Mind2Web result folders", "browser-use": "browser-use histories",
           "bundle": "Cockpit bundle (.zip)", "labels": "Labels (.jsonl, .csv, human_label.json)"}
ERROR_STYLE = "color: #b00020"


class ImportDialog(QDialog):
    imported = Signal(list)  # run ids, when an import has added some
    showRequested = Signal(str)  # "Show in Review": the first run imported

    def __init__(self, store_root: Path, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import runs")
        self.setObjectName("importDialog")
        self.store_root = Path(store_root)
        self._task: Task | None = None
        self._importing = False
        self._detect_task: Task | None = None
        self._stop = CancelFlag()
        self._detected: list[str] = []
        self._detected_for = ""
        self.looked_at = ""  # the path whose look (detection, or "there is none") is shown
        self._looking_for = ""  # the path being looked at in the background
        self._start_after_look = ""  # Import pressed before the look at this path was done: it starts after
        self.result = None
        self._reported = ""  # the path the report shown is about
        self._kind_shown: str | None = None  # the kind whose options were last shown
        self._build()
        self._on_kind()
        self._say(self.found, "")
        self._say(self.message, "")
        self.progress_text.setVisible(False)
        resize_within_screen(self, 780, 560)

    # ---------- building ----------
    def _build(self) -> None:
        self.kind = QComboBox()
        for key, text in CHOICES.items():
            self.kind.addItem(text, key)
        self.path = QLineEdit(placeholderText="a results folder, a history file, a bundle or a label file")
        self.folder_btn, self.file_btn = QPushButton("&Folder…"), QPushButton("F&ile…")
        for b in (self.folder_btn, self.file_btn):
            b.setAutoDefault(False)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.folder_btn)
        row.addWidget(self.file_btn)
        self.found = MessageLabel()  # what the path holds, or what is wrong
        self.found.setObjectName("importFound")
        self.expects = MessageLabel()
        self.expects.setObjectName("importExpects")
        self.expects.setStyleSheet("color: #555")
        self.tasks, self.answers = QLineEdit(), QLineEdit()
        self.tasks_btn, self.answers_btn = QPushButton("Browse…"), QPushButton("Browse…")
        self.agent = QLineEdit()
        self.task = QLineEdit(placeholderText="the task the histories were for (a result.json beside one says it)")
        form = self.form = QFormLayout()
        for text, buddy, field in (("&Path", self.path, row), ("&What", self.kind, self.kind)):
            lab = QLabel(text)
            lab.setBuddy(buddy)
            form.addRow(lab, field)
            form.addRow("", self.found if buddy is self.path else self.expects)
        self.rows = {}
        labels = []
        for key, label, field, button in (("tasks", "&Task file", self.tasks, self.tasks_btn),
                                          ("answers", "&Reference answers", self.answers, self.answers_btn),
                                          ("agent", "&Agent", self.agent, None), ("task", "T&ask", self.task, None)):
            holder = QWidget()
            h = QHBoxLayout(holder)
            h.setContentsMargins(0, 0, 0, 0)
            h.addWidget(field, 1)
            if button is not None:
                button.setAutoDefault(False)
                h.addWidget(button)
            lab = QLabel(label)
            lab.setBuddy(field)
            labels.append(lab)
            form.addRow(lab, holder)
            self.rows[key] = holder
        widest = max(lab.sizeHint().width() for lab in labels)  # rows come and go: the column keeps its width
        for i in range(form.rowCount()):
            item = form.itemAt(i, QFormLayout.ItemRole.LabelRole)
            if item is not None and item.widget() is not None:
                item.widget().setMinimumWidth(widest)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress_text = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.message = MessageLabel()  # an error, or the report's headline
        self.message.setObjectName("importMessage")
        self.report = QPlainTextEdit(readOnly=True)
        self.report.setObjectName("importReport")
        self.report.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.report.setPlaceholderText("The import's report appears here: what was imported, what was skipped "
                                       "and why, what could not be imported and why.")
        self.show_btn = QPushButton("Show in &Review")
        self.show_btn.setEnabled(False)
        self.import_btn = QPushButton("&Import")
        self.import_btn.setDefault(True)
        self.close_btn = QPushButton("Close")
        self.close_btn.setAutoDefault(False)
        self.show_btn.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.show_btn)
        buttons.addStretch(1)
        buttons.addWidget(self.import_btn)
        buttons.addWidget(self.close_btn)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.progress)
        lay.addWidget(self.progress_text)
        lay.addWidget(self.message)
        lay.addWidget(self.report, 1)
        lay.addLayout(buttons)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.path.textChanged.connect(lambda _t: self._detect_soon.start())
        self.path.textChanged.connect(self._new_path)
        self._detect_soon = QTimer(self, singleShot=True, interval=300)
        self._detect_soon.timeout.connect(self._detect)
        self.folder_btn.clicked.connect(self._pick_folder)
        self.file_btn.clicked.connect(self._pick_file)
        self.tasks_btn.clicked.connect(lambda: self._pick_into(self.tasks, "Task file", "Task files (*.jsonl *.json)"))
        self.answers_btn.clicked.connect(lambda: self._pick_into(self.answers, "Reference answers", "JSON (*.json)"))
        self.import_btn.clicked.connect(self.start)
        self.close_btn.clicked.connect(self.close)
        self.show_btn.clicked.connect(self._show_first)

    # ---------- the kind and its options ----------
    def chosen_kind(self) -> str | None:
        """The kind to import as: the one chosen, or the one detected; None when neither says."""
        key = self.kind.currentData()
        if key != DETECT:
            return key
        return self._detected[0] if self._detected and self._detected_for == self.path.text().strip() else None

    def _on_kind(self) -> None:
        kind = self.chosen_kind()
        if kind and self._kind_shown and kind != self._kind_shown:  # a task file is of one kind (walkthrough 6: a
            self.tasks.clear()  # WebVoyager task file kept for an Online-Mind2Web folder failed its import)
        self._kind_shown = kind or self._kind_shown
        self.expects.setText(f"Expects {LAYOUTS[kind]}." if kind else
                             "Cockpit reads WebVoyager run folders, Online-Mind2Web result folders, browser-use "
                             "histories, Cockpit bundles and label exports; pick a path, or what it holds.")
        shown = {"webvoyager": ("tasks", "answers"), "mind2web": ("tasks", "agent"),
                 "browser-use": ("agent", "task")}.get(kind or "", ())
        for key, holder in self.rows.items():
            self.form.setRowVisible(holder, key in shown)
        self.tasks.setPlaceholderText("Online_Mind2Web.json: start URL, site, level (optional)" if kind == "mind2web"
                                      else "the task JSONL, for tasks the folders lack (optional)")
        self.answers.setPlaceholderText("WebVoyager's reference answers JSON (optional)")
        self.agent.setPlaceholderText("who made the runs (Review filters by it)" + (": browser-use if empty"
                                                                                     if kind == "browser-use" else ""))

    # ---------- the path ----------
    def _pick_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Import runs from the folder", self.path.text())
        if path:
            self.path.setText(path)
            self._detect()

    def _pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import runs from the file", self.path.text(),
                                              "What Cockpit imports (*.zip *.jsonl *.csv *.json);;All files (*)")
        if path:
            self.path.setText(path)
            self._detect()

    def _pick_into(self, field: QLineEdit, title: str, pattern: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self, title, field.text(), f"{pattern};;All files (*)")
        if path:
            field.setText(path)

    def _new_path(self, text: str) -> None:
        """Another path typed or picked: the last import's report and headline go (walkthrough 5: they stayed, read as
        the new path's)."""
        if not self.busy and self._reported and text.strip() != self._reported:
            self._reported = ""
            self.report.clear()
            self._say(self.message, "")
            self.show_btn.setEnabled(False)  # it showed the runs the report was about

    def _detect(self) -> None:
        """What the path holds, found in the background; the kind box follows when it says Detect."""
        self._detect_soon.stop()
        text = self.path.text().strip()
        if self._detect_task is not None:
            self._detect_task.cancel()
        self._detected, self._detected_for, self._looking_for = [], "", ""
        if self._start_after_look and self._start_after_look != text:  # another path since Import: not started
            self._start_after_look = ""
            self._say(self.message, "")
        if not text:
            self._say(self.found, "")
            self._on_kind()
            return
        if not Path(text).expanduser().exists():
            self._say(self.found, f"There is no file or folder {text}.", error=True)
            self.looked_at = text
            self._on_kind()
            self._start_if_waiting(text)
            return
        self._say(self.found, "Looking at what it holds…")
        self._looking_for = text
        self._detect_task = run_in_background(lambda: survey(Path(text).expanduser()),
                                              lambda f: self._on_detected(text, f), name="import-detect")

    def _on_detected(self, text: str, done) -> None:
        self._looking_for = ""
        try:
            found = done.result()
        except Exception as e:  # noqa: BLE001 (shown, not raised: a folder that cannot be read)
            self._say(self.found, f"Cannot look into {text}: {e}", error=True)
            self.looked_at = text
            self._start_if_waiting(text)
            return
        kinds = list(found)
        self._detected, self._detected_for = kinds, text
        self.looked_at = text
        if kinds:
            said = [_holds(k, n) for k, n in found.items()]
            self._say(self.found, f"Holds {said[0]}." + (f" (Also {', '.join(said[1:])}.)" if said[1:] else ""))
        else:
            self._say(self.found, "Holds nothing Cockpit imports (choose What to see what each kind expects).",
                      error=self.kind.currentData() == DETECT)
        self._on_kind()
        self._start_if_waiting(text)

    def _start_if_waiting(self, text: str) -> None:
        """Import was pressed while the path was being looked at: it starts now (or says why it cannot)."""
        if self._start_after_look and self._start_after_look == text == self.path.text().strip():
            self._start_after_look = ""
            self._say(self.message, "")
            self.start()

    # ---------- importing ----------
    @property
    def busy(self) -> bool:
        """From Import until the report (or the error) is shown (Import pressed while the path was still being
        looked at included)."""
        return self._importing or bool(self._start_after_look)

    def request(self) -> ImportRequest | None:
        """The import the fields describe, or None after saying in the dialog what is missing."""
        text = self.path.text().strip()
        if not text:
            self._say(self.message, "Choose a folder or a file to import (Folder… or File…).", error=True)
            return None
        kind = self.chosen_kind()
        if kind is None:
            self._say(self.message, f"Cockpit found nothing it imports in {text}. Choose What it holds to see what "
                      "that kind expects." if self._detected_for == text else
                      self.found.fullText() if self.looked_at == text else  # no such path, or unreadable
                      "Still looking at what the path holds; choose What it holds, or wait a moment.", error=True)
            return None
        opt = lambda f: Path(f.text().strip()).expanduser() if f.text().strip() else None  # noqa: E731
        return ImportRequest(kind, Path(text).expanduser(),
                             tasks=opt(self.tasks) if kind in ("webvoyager", "mind2web") else None,
                             answers=opt(self.answers) if kind == "webvoyager" else None,
                             agent=self.agent.text().strip() if kind in ("mind2web", "browser-use") else "",
                             task=self.task.text().strip() if kind == "browser-use" else "")

    def start(self) -> None:
        if self.busy:
            return
        text = self.path.text().strip()
        if text and self.kind.currentData() == DETECT and self.looked_at != text:  # typed, not looked at yet
            self._start_after_look = text  # starts when the look is done (walk3 A8: the click did nothing)
            self._say(self.message, "Looking at what the path holds first; the import starts as soon as that is "
                                    "known.")
            if self._looking_for != text:
                self._detect()
            return
        req = self.request()
        if req is None:
            return
        self._stop = CancelFlag()
        self.result = None
        self._reported = self.path.text().strip()  # the path the report will be about
        self.report.clear()
        self.show_btn.setEnabled(False)
        self._say(self.message, f"Importing {NAMES[req.kind]} from {req.path}…")
        self._set_busy(True, cancellable=req.kind in FOLDER_KINDS)
        root, stop, progress = self.store_root, self._stop, on_gui_thread(self._on_progress)
        warnings: list[str] = []

        def work():
            with Store(root) as store:  # sqlite: this thread's own connection
                return run_import(store, req, progress=progress, cancel=stop.is_set, warn=warnings.append), warnings
        self._task = run_in_background(work, self._on_done, name="import-runs")

    def cancel(self) -> None:
        """Stop after the folder in hand; the report says what was imported by then."""
        if self._start_after_look and not self._importing:  # not started yet: it will not start
            self._start_after_look = ""
            self._say(self.message, "Not imported: cancelled while looking at what the path holds.")
            return
        if self.busy and not self._stop.is_set():
            self._stop.set()
            self.close_btn.setEnabled(False)
            self.progress_text.setText("Cancelling after this folder…")

    def _on_progress(self, i: int, n: int, path) -> None:
        self.progress.setRange(0, n)
        self.progress.setValue(i)
        if not self._stop.is_set():
            self.progress_text.setText(f"{i} of {n}: {path}")

    def _on_done(self, done) -> None:
        self._set_busy(False)
        try:
            result, warnings = done.result()
        except CockpitError as e:
            self._say(self.message, str(e), error=True)
            return
        except OSError as e:
            self._say(self.message, f"Cannot read {e.filename or self.path.text()}: {e.strerror or e}", error=True)
            return
        self.result = result
        head = ("Cancelled. " if result.cancelled else "") + result.headline[:1].upper() + result.headline[1:] + "."
        self._say(self.message, head, error=bool(result.failed))
        self.report.setPlainText("\n".join([*(f"warning: {w}" for w in warnings), *result.lines()]))

        if result.imported:
            self.show_btn.setEnabled(True)
            self.imported.emit(list(result.imported))

    def _show_first(self) -> None:
        if self.result and self.result.imported:
            self.showRequested.emit(self.result.imported[0])
            self.close()

    # ---------- state ----------
    def _set_busy(self, busy: bool, cancellable: bool = True) -> None:
        self._importing = busy
        for w in (self.kind, self.path, self.folder_btn, self.file_btn, self.tasks, self.answers, self.tasks_btn,
                  self.answers_btn, self.agent, self.task, self.import_btn):
            w.setEnabled(not busy)
        self.progress.setVisible(busy)
        self.progress_text.setVisible(busy)
        self.progress.setRange(0, 0)  # busy until the first folder is done (a bundle: throughout)
        self.close_btn.setText("Cancel" if busy else "Close")
        self.close_btn.setEnabled(not busy or cancellable)
        self.close_btn.setToolTip("" if not busy or cancellable else
                                  "A bundle or a label file is imported whole or not at all: it cannot be stopped")
        if not busy:
            self.progress_text.setText("")

    def _say(self, label: MessageLabel, text: str, error: bool = False) -> None:
        """`text` in `label` (red for an error); an empty label takes no room."""
        label.setStyleSheet(ERROR_STYLE if error else "")
        label.setText(text)
        if label is self.found:
            self.form.setRowVisible(self.found, bool(text))
        else:
            label.setVisible(bool(text))

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        if self.busy:  # the import goes on to a point where it can stop, and its report is shown
            self.cancel()
            event.ignore()
            return
        if self._detect_task is not None:
            self._detect_task.cancel()
        super().closeEvent(event)

    def reject(self) -> None:  # Esc: as Close (or Cancel while importing)
        if self.busy:
            self.cancel()
            return
        super().reject()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.matches(QKeySequence.StandardKey.Cancel):
            self.reject()
            return
        super().keyPressEvent(event)


def _holds(kind: str, n: int) -> str:
    """What a path holds of `kind`, counted: "12 Online-Mind2Web result folders", "a Cockpit bundle"."""
    if kind in ("bundle", "labels"):
        return NAMES[kind]
    one = {"webvoyager": "WebVoyager run folder", "mind2web": "Online-Mind2Web result folder",
           "browser-use": "browser-use history"}[kind]
    return plural(n, one, NAMES[kind])
