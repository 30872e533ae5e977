"""Re-ask the model at step k: edit the exact request, send it, see the new reply beside the old.

Never touches a browser or the run's records (cockpit.core.replay.reask saves the
re-ask beside the step). The call runs in a thread; the dialog stays live and
can be closed while it waits.

The fields start as the run was asked; only what the person changes is sent as an edit (so a demo run's policy is
served again for the call, cockpit.core.replay.reask). When the run's model server is gone (a server of a session
that has ended refuses connections), the dialog says so and offers, in one click, to re-ask with the window's
current model settings. Texts from the run and errors wrap or are elided: the dialog keeps its size on a
1024x700 screen whatever the call says (issue #38).
"""
from __future__ import annotations

from typing import Callable

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
from cockpit.core.llm.modelerrors import ModelError
from cockpit.core.replay.reask import ReaskEdit, model_config_of, reask, rebuild_request, request_text
from cockpit.core.settings import Settings
from cockpit.core.store import Store
from cockpit.core.words import plural
from cockpit.ui.background import Task, run_in_background
from cockpit.ui.elide import ElidedLabel, breakable, wrap_within
from cockpit.ui.enter_keys import ctrl_enter
from cockpit.ui.review.run_model import gone_text
from cockpit.ui.room import resize_within_screen

SEND = "Send (Ctrl+Enter)"
USE_CURRENT = "Re-ask with the current model settings"
ERROR_STYLE = "color: #b00020"


class ReaskDialog(QDialog):
    def __init__(self, store: Store, run_id: str, step: int, parent=None, *,
                 current: Callable[[], Settings] | None = None):
        """`current()`: the window's model settings now, offered when the run's model server is gone."""
        super().__init__(parent)
        self.store, self.run_id, self.step, self._current = store, run_id, step, current
        self.setWindowTitle(f"Re-ask the model at step {step}")
        self._task: Task | None = None  # the request on its way; closing the dialog cancels it
        self._sent: ReaskEdit | None = None  # the edit of the last request sent
        self.result = None
        run = store.run(run_id)
        self.asked = model_config_of(run)  # the model the run asked: fields left as they are send no edit
        request = rebuild_request(store, run_id, step)  # raises ReaskError with a clear message
        n_images = len(prompt.image_steps(request))
        self._system0 = request[0]["content"] if request and request[0].get("role") == "system" else ""
        self._keep0 = n_images
        self.system = QPlainTextEdit(self._system0)
        self.model = QLineEdit(self.asked.model)
        self.base_url = QLineEdit(self.asked.base_url or "")
        self.base_url.setPlaceholderText("OpenAI")
        for field in (self.model, self.base_url):
            field.setCursorPosition(0)  # a long name: its beginning in view
        self.temperature = QDoubleSpinBox(minimum=0, maximum=2, singleStep=0.1, value=self.asked.temperature)
        self.keep = QSpinBox(minimum=0, maximum=20, value=n_images)
        self.note = QLineEdit(placeholderText="extra text for the last user message (optional)")
        self.request_view = QPlainTextEdit(request_text(request[1:]), readOnly=True)
        self.original = QPlainTextEdit(store.step(run_id, step).get("reply") or "", readOnly=True)
        self.new = QPlainTextEdit(readOnly=True)
        self.new.setPlaceholderText("The new reply appears here.")
        self.verdict = wrap_within(QLabel())  # what the model chose, or why the call failed: wraps, never widens
        self.verdict.setTextFormat(Qt.PlainText)
        self.verdict.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.send_btn = QPushButton(SEND)
        ctrl_enter(self, self.send_btn.click)  # a disabled button (a call going) does nothing
        self.send_btn.clicked.connect(self.send)
        self.use_current_btn = QPushButton(USE_CURRENT)
        self.use_current_btn.clicked.connect(self.use_current)
        self.use_current_btn.setVisible(False)
        self._build(run)
        resize_within_screen(self, 1100, 720)  # no larger than a small screen (#20)

    def _build(self, run: dict) -> None:
        form = QFormLayout()
        form.addRow("Model", self.model)
        form.addRow("Server", self.base_url)
        form.addRow("Temperature", self.temperature)
        form.addRow("Screenshots attached", self.keep)
        form.addRow("Note", self.note)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addLayout(form)
        lv.addWidget(QLabel("System prompt (editable)"))
        lv.addWidget(self.system, 1)
        lv.addWidget(QLabel("Conversation sent at this step"))
        lv.addWidget(self.request_view, 2)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.addWidget(ElidedLabel(f"Original reply ({run['model']})"))  # a long model name: cut, whole in the tip
        rv.addWidget(self.original, 1)
        rv.addWidget(QLabel("New reply"))
        rv.addWidget(self.new, 1)
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(left)
        self.split.addWidget(right)
        self.split.setChildrenCollapsible(False)
        for i in (0, 1):  # the request's side and the replies' share the width: a long reply never crushes either
            self.split.setStretchFactor(i, 1)
        self._halved = False  # the panes start half and half, once the dialog has its width (showEvent)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.use_current_btn)
        buttons.addWidget(self.send_btn)
        self.close_btn = QPushButton("Close")  # and Esc (walkthrough 6: only Esc and the title bar's X)
        self.close_btn.clicked.connect(self.reject)
        buttons.addWidget(self.close_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(self.split, 1)
        lay.addWidget(self.verdict)
        lay.addLayout(buttons)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not self._halved:
            self._halved = True
            half = max(self.split.width() // 2, 1)
            self.split.setSizes([half, half])

    def edit(self) -> ReaskEdit:
        """What the person changed; a field left as the run had it is not an edit."""
        model, url, temp = self.model.text().strip(), self.base_url.text().strip(), self.temperature.value()
        return ReaskEdit(system=self.system.toPlainText() if self.system.toPlainText() != self._system0 else None,
                         keep_images=self.keep.value() if self.keep.value() != self._keep0 else None,
                         model=model if model and model != self.asked.model else None,
                         base_url=url if url != (self.asked.base_url or "") else None,
                         temperature=temp if abs(temp - self.asked.temperature) > 1e-9 else None,
                         extra_user_note=self.note.text().strip() or None)

    def send(self) -> None:
        self.send_btn.setEnabled(False)
        self.use_current_btn.setVisible(False)
        self.send_btn.setText("Waiting for the model…")
        self.verdict.setText("")
        edit, root = self.edit(), self.store.root
        self._sent = edit

        def work(cancel):
            with Store(root) as store:  # sqlite: this thread's own connection
                return reask(store, self.run_id, self.step, edit, cancel=cancel)
        self._task = run_in_background(work, self._on_done, name="reask", pass_cancel=True)

    def use_current(self) -> None:
        """The window's current model and server in the fields, and the step asked again."""
        if self._current is None:
            return
        cfg = self._current().model
        self.model.setText(cfg.model)
        self.base_url.setText(cfg.base_url or "")
        for field in (self.model, self.base_url):
            field.setCursorPosition(0)
        self.send()

    def _on_done(self, done) -> None:
        self.send_btn.setEnabled(True)
        self.send_btn.setText(SEND)
        try:
            res = done.result()
        except Exception as e:
            self._show_error(e)
            return
        self.verdict.setStyleSheet("")
        self.result = res
        self.new.setPlainText(res.new_reply)
        same = res.new_action == res.original_action
        what = "the same action" if same else (f"a different action: {res.new_action}" if res.new_action
                                                else f"no usable action ({res.parse_error})")
        cost = f", ${res.cost:.4f}" if res.cost else ""
        self.verdict.setText(breakable(f"{res.model} chose {what} — {plural(res.tokens, 'token')}{cost}, {res.seconds:.1f} s"))

    def _show_error(self, e: Exception) -> None:
        self.verdict.setStyleSheet(ERROR_STYLE)
        text = str(e)
        if self._server_gone(e):
            now = self._current().model if self._current is not None else None
            said, offered = gone_text(self.asked, now, USE_CURRENT, same_way=True, fields=True)
            if offered:
                self.use_current_btn.setToolTip(f"{now.model} at {now.display_url} (Model…)")
                self.use_current_btn.setVisible(True)
            text = f"{said} ({text})"
        self.verdict.setText(breakable(text))

    def _server_gone(self, e: Exception) -> bool:
        """The call could not connect to the run's own server (the Server field left as the run had it)."""
        sent = self._sent
        return isinstance(e, ModelError) and e.reason == "connection" and sent is not None and sent.base_url is None

    def done(self, r: int) -> None:
        if self._task is not None:
            self._task.cancel()
        super().done(r)


def open_reask(store: Store, run_id: str, step: int, parent=None, *,
               current: Callable[[], Settings] | None = None) -> ReaskDialog | None:
    """The dialog, or None after telling the user why this step cannot be re-asked."""
    from PySide6.QtWidgets import QMessageBox
    try:
        dlg = ReaskDialog(store, run_id, step, parent, current=current)
    except CockpitError as e:
        QMessageBox.information(parent, "Re-ask", str(e))
        return None
    dlg.show()
    return dlg
