"""Messages in the window's words (issue #20): fields, not flags; no key warning for a server that needs no key;
the model dialog's notes shown whole. Real window, real Reports panel and dialog (offscreen), real judge."""

import pytest
from PySide6.QtWidgets import QApplication

from cockpit.core.llm import apikeys
from cockpit.core.llm.client import ModelConfig, ModelError
from cockpit.core.settings import Settings
from cockpit.ui.reports.panel import ReportsPanel
from cockpit.ui.settings.dialog import ModelSettingsDialog
from testkit.fakeruns import make_run
from tests.ui.windowtools import LONG


def test_live_no_key_error_names_the_base_url_field(qtbot, window_factory, site, no_keyring, monkeypatch):
    monkeypatch.delenv(apikeys.ENV_VAR, raising=False)
    w = window_factory()
    w.settings.model = ModelConfig(base_url="https://api.openai.com/v1", model="gpt-4o", max_retries=0)
    w.live.task_bar.set_task("Find a mug", site.url("agent_start.html"))
    w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    text = w.live.error_banner.text()
    assert w.live.error_banner.isVisible() and "no API key" in text
    assert "--base-url" not in text and "cockpit key set" not in text  # flags of another program, to the user
    assert "the Base URL field of Model… (Ctrl+,)" in text


def test_judge_no_key_error_names_the_judge_server_field(qtbot, tmp_path, no_keyring, monkeypatch):
    from cockpit.core.store import Store
    monkeypatch.delenv(apikeys.ENV_VAR, raising=False)
    with Store(tmp_path / "home") as store:
        make_run(store, steps=2)
        panel = ReportsPanel(store)
        qtbot.addWidget(panel)
        panel.j_url.setText("")  # OpenAI, with no key anywhere
        panel.j_model.setText("gpt-4o")
        task = panel.start_judging()
        qtbot.waitUntil(lambda: not panel.judging, timeout=30000)
        with pytest.raises(ModelError):  # the judge could not start: said in the panel
            task.future.result()
        QApplication.processEvents()
        text = panel.j_status.text()
        assert "no API key" in text and "--base-url" not in text
        assert 'the "Judge server" field' in text


def dialog(qtbot, base_url):
    dlg = ModelSettingsDialog(Settings(model=ModelConfig(base_url=base_url, model="m")))
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    QApplication.processEvents()
    return dlg


def test_no_key_warning_for_a_local_server(qtbot, no_keyring, monkeypatch):
    monkeypatch.delenv(apikeys.ENV_VAR, raising=False)
    dlg = dialog(qtbot, "http://localhost:8000/v1")
    note = dlg.key.keyring_label.text() + dlg.key.key_edit.placeholderText()
    assert apikeys.ENV_VAR not in note and "No system keyring" not in note and "No keyring" not in note
    assert "needs no API key" in dlg.key.keyring_label.text()
    openai = dialog(qtbot, None)  # OpenAI needs one: the warning stays
    assert "No system keyring" in openai.key.keyring_label.text()


def test_model_dialog_notes_show_all_their_lines(qtbot, no_keyring, monkeypatch):
    monkeypatch.delenv(apikeys.ENV_VAR, raising=False)
    dlg = dialog(qtbot, None)  # the long "No system keyring …" note
    dlg.check.status_label.setText("Error: Connection refused: could not reach "
                                   "http://localhost:8000/v1/chat/completions (is the server running?)")
    QApplication.processEvents()
    QApplication.processEvents()
    for label in (dlg.key.keyring_label, dlg.check.status_label):
        assert label.height() >= label.heightForWidth(label.width()), label.text()  # not cut, not under a row
    below = dlg.browser.webdriver_edit.mapTo(dlg, dlg.browser.webdriver_edit.rect().topLeft()).y()
    assert dlg.key.keyring_label.mapTo(dlg, dlg.key.keyring_label.rect().bottomLeft()).y() < below
