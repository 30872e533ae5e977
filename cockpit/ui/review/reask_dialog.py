"""Re-ask the model at step k: edit the exact request, send it, see the new reply beside the old.

Never touches a browser or the run's records (cockpit.core.replay.reask saves the
re-ask beside the step). The call runs in a thread; the dialog stays live and
can be closed while it waits.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.replay.reask import ReaskEdit, model_config_of, reask, rebuild_request, request_text
from cockpit.core.store import Store
from cockpit.core.words import plural
from cockpit.ui.background import Task, run_in_background
from cockpit.ui.room import resize_within_screen


class ReaskDialog(QDialog):
    def __init__(self, store: Store, run_id: str, step: int, parent=None):
        super().__init__(parent)
        self.store, self.run_id, self.step = store, run_id, step
        self.setWindowTitle(f"Re-ask the model at step {step}")
        resize_within_screen(self, 1100, 720)  # no larger than a small screen (#20)
        self._task: Task | None = None  # the request on its way; closing the dialog cancels it
        self.result = None
        run = store.run(run_id)
        cfg = model_config_of(run)
        request = rebuild_request(store, run_id, step)  # raises ReaskError with a clear message
        n_images = len(prompt.image_steps(request))
        system = request[0]["content"] if request and request[0].get("role") == "system" else ""
        self.system = QPlainTextEdit(system)
        self.model = QLineEdit(cfg.model)
        self.base_url = QLineEdit(cfg.base_url or "")
        self.base_url.setPlaceholderText("OpenAI")
        self.temperature = QDoubleSpinBox(minimum=0, maximum=2, singleStep=0.1, value=cfg.temperature)
        self.keep = QSpinBox(minimum=0, maximum=20, value=n_images)
        self.note = QLineEdit(placeholderText="extra text for the last user message (optional)")
        form = QFormLayout()
        form.addRow("Model", self.model)
        form.addRow("Server", self.base_url)
        form.addRow("Temperature", self.temperature)
        form.addRow("Screenshots attached", self.keep)
        form.addRow("Note", self.note)
        self.request_view = QPlainTextEdit(request_text(request[1:]), readOnly=True)
        self.original = QPlainTextEdit(store.step(run_id, step).get("reply") or "", readOnly=True)
        self.new = QPlainTextEdit(readOnly=True)
        self.new.setPlaceholderText("The new reply appears here.")
        self.verdict = QLabel()
        self.send_btn = QPushButton("Send (Ctrl+Enter)")
        self.send_btn.setShortcut("Ctrl+Return")
        self.send_btn.clicked.connect(self.send)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addLayout(form)
        lv.addWidget(QLabel("System prompt (editable)"))
        lv.addWidget(self.system, 1)
        lv.addWidget(QLabel("Conversation sent at this step"))
        lv.addWidget(self.request_view, 2)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.addWidget(QLabel(f"Original reply ({run['model']})"))
        rv.addWidget(self.original, 1)
        rv.addWidget(QLabel("New reply"))
        rv.addWidget(self.new, 1)
        rv.addWidget(self.verdict)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.send_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)

    def edit(self) -> ReaskEdit:
        return ReaskEdit(system=self.system.toPlainText(), keep_images=self.keep.value(),
                         model=self.model.text().strip() or None, base_url=self.base_url.text().strip(),
                         temperature=self.temperature.value(), extra_user_note=self.note.text().strip() or None)

    def send(self) -> None:
        self.send_btn.setEnabled(False)
        self.send_btn.setText("Waiting for the model…")
        self.verdict.setText("")
        edit, root = self.edit(), self.store.root

        def work(cancel):
            with Store(root) as store:  # sqlite: this thread's own connection
                return reask(store, self.run_id, self.step, edit, cancel=cancel)
        self._task = run_in_background(work, self._on_done, name="reask", pass_cancel=True)

    def _on_done(self, done) -> None:
        self.send_btn.setEnabled(True)
        self.send_btn.setText("Send (Ctrl+Enter)")
        try:
            res = done.result()
        except Exception as e:
            self.verdict.setText(f"<span style='color:#b00020'>{_esc(str(e))}</span>")
            return
        self.result = res
        self.new.setPlainText(res.new_reply)
        same = res.new_action == res.original_action
        what = "the same action" if same else (f"a different action: {res.new_action}" if res.new_action
                                                else f"no usable action ({res.parse_error})")
        cost = f", ${res.cost:.4f}" if res.cost else ""
        self.verdict.setText(f"{_esc(res.model)} chose {_esc(what)} — {plural(res.tokens, 'token')}{cost}, "
                             f"{res.seconds:.1f} s")

    def done(self, r: int) -> None:
        if self._task is not None:
            self._task.cancel()
        super().done(r)


def _esc(text: str) -> str:
    import html
    return html.escape(text or "")


def open_reask(store: Store, run_id: str, step: int, parent=None) -> ReaskDialog | None:
    """The dialog, or None after telling the user why this step cannot be re-asked."""
    from PySide6.QtWidgets import QMessageBox
    try:
        dlg = ReaskDialog(store, run_id, step, parent)
    except CockpitError as e:
        QMessageBox.information(parent, "Re-ask", str(e))
        return None
    dlg.show()
    return dlg
