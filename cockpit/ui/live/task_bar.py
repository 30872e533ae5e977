"""The task bar: task text, start URL and allowed domains, or a task picked from a loaded task file.

One row of fields; once a task file is loaded, its tasks are picked from a second row of their own, so the Task
field keeps its room on a 1024-pixel screen and each task is listed whole (cut with "…" where the list is too
narrow, whole in its tooltip; issue #38)."""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.errors import CockpitError
from cockpit.core.safety.runlimits import kept_domains
from cockpit.core.tasks.task import Task
from cockpit.core.tasks.taskfile import load_tasks
from cockpit.core.words import plural
from cockpit.ui.elide import ElidedLabel, one_line
from cockpit.ui.plaintext import tip

DOMAINS_TIP = ("The only sites this run may visit, comma or space separated, e.g. \"shop.example, "
               "payments.example\". Subdomains are included (example.com allows www.example.com). The start "
               "URL's host is always allowed. Empty: any site.\nPicking a task from a task file fills this in "
               "from the task's \"allowed_domains\"; what is here when you press Run is what applies.")


class TaskBar(QWidget):
    runRequested = Signal()
    fileProblems = Signal(str, list)  # path, problem messages
    fileLoaded = Signal(str, list)  # path, its notes (no problem: "url has no scheme, using http://…")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tasks: list[Task] = []
        self.task_id = ""
        self._before_demo = ("", "", "")  # task, URL and task id before Demo policy filled the fields in
        self._demo_task = ""  # the task the demo put in the field
        rows = QVBoxLayout(self)
        rows.setContentsMargins(4, 2, 4, 2)
        rows.setSpacing(2)
        lay = QHBoxLayout()
        rows.addLayout(lay)
        self.task_edit = QLineEdit(placeholderText="Task, e.g. Find the cheapest headphones and add them to the cart")
        self.task_edit.setMinimumWidth(200)  # the window's minimum width follows: never a 25-px Task (#38, A13)
        self.url_edit = QLineEdit(placeholderText="Start URL")
        self.url_edit.setMinimumWidth(150)
        self.url_edit.setMaximumWidth(320)
        self.picker = QComboBox()
        self.picker.setEditable(True)
        self.picker.setInsertPolicy(QComboBox.NoInsert)
        self.picker.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)  # long tasks: no wider
        self.picker.setMinimumContentsLength(20)
        self.picker.lineEdit().setPlaceholderText("search loaded tasks…")
        self.picker.view().setTextElideMode(Qt.ElideRight)  # a long task: its beginning, then "…"
        self.picker.activated.connect(self._on_pick)
        self.file_label = ElidedLabel(mode=Qt.ElideMiddle)  # "Tasks from my-tasks.jsonl:"
        self.open_btn = QPushButton("Tasks…")
        self.open_btn.setToolTip("Load a WebVoyager or plain JSONL task file (Ctrl+O)")
        self.open_btn.clicked.connect(self.choose_file)
        task_label = QLabel("&Task:")
        task_label.setBuddy(self.task_edit)
        url_label = QLabel("&URL:")
        url_label.setBuddy(self.url_edit)
        self.domains_edit = QLineEdit(placeholderText="any site; or e.g. example.com, shop.example")
        self.domains_edit.setToolTip(DOMAINS_TIP)
        self.domains_edit.setMinimumWidth(130)
        self.domains_edit.setMaximumWidth(240)
        domains_label = QLabel("Allowed &domains:")
        domains_label.setBuddy(self.domains_edit)
        domains_label.setToolTip(DOMAINS_TIP)
        for w in (task_label, self.task_edit, url_label, self.url_edit, domains_label, self.domains_edit,
                  self.open_btn):
            lay.addWidget(w)
        self.file_row = QWidget()  # shown once a task file is loaded
        fl = QHBoxLayout(self.file_row)
        fl.setContentsMargins(0, 0, 0, 0)
        fl.addWidget(self.file_label)
        fl.addWidget(self.picker, 1)
        self.file_row.setVisible(False)
        rows.addWidget(self.file_row)
        lay.setStretch(1, 3)  # the task gets most of the room; the URL and the domains share the rest
        lay.setStretch(3, 1)
        lay.setStretch(5, 1)
        self.task_edit.returnPressed.connect(self.runRequested)
        self.url_edit.returnPressed.connect(self.runRequested)
        self.domains_edit.returnPressed.connect(self.runRequested)
        self.task_edit.textEdited.connect(lambda _: setattr(self, "task_id", ""))

    def set_task(self, task: str, url: str, task_id: str = "", domains: list[str] | None = None) -> None:
        """Fill the bar; `domains` None leaves the allowed domains as they are, [] clears them."""
        self.task_edit.setText(task)
        self.url_edit.setText(url)
        for field in (self.task_edit, self.url_edit, self.picker.lineEdit()):
            field.setCursorPosition(0)  # a long task or address: its beginning in view
        self.task_id = task_id
        if domains is not None:
            self.domains_edit.setText(", ".join(domains))

    def show_run_task(self, run: dict) -> None:
        """A branch, replay or resume of `run` starts: its task, address and allowed domains in the fields, and the
        picker on its task when that is loaded (else empty), so nothing there names another task. A run started on a
        local file shows that file (walkthrough 5: the address its folder was served at, gone after the run, made
        the next Run fail)."""
        from cockpit.core.replay.localfiles import start_address
        self.set_task(run["task"], start_address(run), run.get("task_id") or "", kept_domains(run))
        index = self.picker.findData(run.get("task_id")) if run.get("task_id") else -1
        self.picker.setCurrentIndex(index)
        if index < 0:
            self.picker.clearEditText()

    def fill_demo(self, task: str, url: str) -> None:
        """Demo policy ticked: the demo's task and address go where the fields are empty; what was there is
        kept to come back to (:meth:`leave_demo`)."""
        self._before_demo = (self.task_edit.text(), self.url_edit.text(), self.task_id)
        self._demo_task = ""
        if not self.task_edit.text().strip():
            self.set_task(task, url)
            self._demo_task = task
        elif not self.url_edit.text().strip():
            self.url_edit.setText(url)

    def leave_demo(self) -> str:
        """Demo policy unticked: no demo state stays behind. The demo's task (unchanged since) and any ``demo:``
        address go; what was in the fields before the demo came back, or they are left empty. Returns what was
        done, for the status bar ("" when nothing was the demo's)."""
        mine_task, mine_url, mine_id = self._before_demo
        gone, back = [], False
        if self._demo_task and self.task_edit.text() == self._demo_task:
            self.task_edit.setText(mine_task)
            self.task_id = mine_id
            gone.append("task")
            back = back or bool(mine_task.strip())
        if self.url_edit.text().strip().lower().startswith("demo:"):
            url = "" if mine_url.strip().lower().startswith("demo:") else mine_url
            self.url_edit.setText(url)
            gone.append("start URL")
            back = back or bool(url.strip())
        self._demo_task = ""
        if not gone:
            return ""
        return (f"Demo policy off: the demo's {' and '.join(gone)} {'are' if len(gone) > 1 else 'is'} gone; "
                + ("what you had before is back." if back else f"enter your own {' and '.join(gone)}."))

    def domains(self) -> list[str]:
        """The allowed domains as typed (not checked yet: AgentConfig does that); [] = any site."""
        return [d for d in re.split(r"[\s,;]+", self.domains_edit.text()) if d]

    def task(self) -> tuple[str, str, str]:
        return self.task_edit.text().strip(), self.url_edit.text().strip(), self.task_id

    def extra(self) -> dict:
        """The picked task's other fields (eval, procedure, hops…); {} for a typed task."""
        for t in self.tasks:
            if self.task_id and t.id == self.task_id:
                return dict(t.extra)
        return {}

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load tasks", "", "Task files (*.jsonl *.json);;All files (*)")
        if path:
            self.load_file(Path(path))

    def load_file(self, path: Path) -> int:
        try:
            tf = load_tasks(path)
        except CockpitError as e:
            self.fileProblems.emit(str(path), [str(e) + self._kept()])
            return 0
        if not tf.tasks and self.tasks:  # a file with nothing to run does not throw away the list loaded
            self.fileProblems.emit(str(path), ["no task could be read" + self._kept()]
                                   + [p.message for p in tf.problems])
            return 0
        self.tasks = tf.tasks
        self.picker.clear()
        for t in tf.tasks:  # whole, on one line: the list cuts it with "…" where it must, the tooltip has it all
            self.picker.addItem(one_line(f"{t.id}: {t.task}"), t.id)
            self.picker.setItemData(self.picker.count() - 1, tip(f"{t.id}: {t.task}\n{t.url}"), Qt.ToolTipRole)
        comp = QCompleter([self.picker.itemText(i) for i in range(self.picker.count())], self.picker)
        comp.setFilterMode(Qt.MatchContains)
        comp.setCaseSensitivity(Qt.CaseInsensitive)
        comp.activated.connect(lambda text: self._on_pick(self.picker.findText(text)))
        self.picker.setCompleter(comp)
        self.file_label.setText(f"Tasks from {path.name}:")
        self.file_label.setToolTip(str(path))
        self.file_row.setVisible(bool(tf.tasks))
        problems = [p.message for p in tf.problems if not p.note]
        if problems:  # notes are not problems (walkthrough 5: a red "1 problem" for a URL given without its scheme)
            self.fileProblems.emit(str(path), problems + [f"{p.message} (a note)" for p in tf.problems if p.note])
        elif tf.tasks:
            self.fileLoaded.emit(str(path), [p.message for p in tf.problems])
        if tf.tasks:
            self._on_pick(0)
        return len(tf.tasks)

    def _kept(self) -> str:
        """'; the 10 tasks from tasks.jsonl stay loaded' when a list is loaded."""
        if not self.tasks:
            return ""
        n = len(self.tasks)
        return f"; the {plural(n, 'task')} from {Path(self.file_label.toolTip()).name} {'stays' if n == 1 else 'stay'} loaded"

    def _on_pick(self, index: int) -> None:
        if 0 <= index < len(self.tasks):
            t = self.tasks[index]
            self.set_task(t.task, t.url, t.id, list(t.extra.get("allowed_domains") or []))
