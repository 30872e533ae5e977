"""ModelSettingsDialog against the loopback model server, with and without a keyring."""
import json
import threading
import time

import keyring
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog

from cockpit.core.llm import apikeys
from cockpit.core.llm.modelserver import ModelServer, Reply, scripted
from cockpit.core.settings import load_settings, settings_path
from tests.keyrings import MemoryKeyring

pytestmark = pytest.mark.usefixtures("isolated")  # a fresh COCKPIT_HOME, no OPENAI_API_KEY

SECRET = "sk-test-DIALOG-SECRET-0123456789"
ENV_SECRET = "sk-test-ENV-SECRET-9876543210"


def _use_keyring(kr):
    before = keyring.get_keyring()
    keyring.set_keyring(kr)
    return before


def test_fields_show_the_settings(make_dialog):
    dlg = make_dialog("http://127.0.0.1:9/v1", "llava")
    assert dlg.model.base_url_edit.text() == "http://127.0.0.1:9/v1"
    assert dlg.model.model_combo.currentText() == "llava"
    assert dlg.model.detail_combo.currentText() == "auto"
    assert dlg.model.width_spin.text() == "off"
    assert dlg.model.format_combo.currentText() == "jpeg"
    assert dlg.key.key_edit.echoMode() == dlg.key.key_edit.EchoMode.Password


def test_test_connection_ok(make_dialog, qtbot):
    with ModelServer(scripted(["OK"], repeat_last=True)) as srv:
        dlg = make_dialog(srv.base_url)
        qtbot.mouseClick(dlg.check.test_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dlg.check.status_label.text().startswith("OK:"), timeout=10_000)
        assert dlg.check.status_label.text().startswith("OK: cockpit-test-model replied in ")
        assert dlg.check.status_label.text().endswith(" s")
        assert dlg.check.test_button.isEnabled() and "Testing" not in dlg.check.test_button.text()
        body = srv.requests[0]
        assert body["max_tokens"] == 5
        assert body["messages"] == [{"role": "user", "content": "Reply with OK"}]


def test_test_connection_shows_401(make_dialog, qtbot):
    with ModelServer(scripted([Reply.error(401, "Incorrect API key provided")], repeat_last=True)) as srv:
        dlg = make_dialog(srv.base_url)
        dlg.check.test_button.click()
        qtbot.waitUntil(lambda: dlg.check.status_label.text().startswith("Error:"), timeout=10_000)
        text = dlg.check.status_label.text()
        assert "401" in text and "Incorrect API key provided" in text
        assert len(srv.requests) == 1  # max_retries=0: one request, no retry
        assert dlg.check.test_button.isEnabled()


def test_test_connection_unreachable(make_dialog, qtbot):
    with ModelServer(["unused"]) as srv:
        url = srv.base_url
    dlg = make_dialog(url)   # the server is gone: connection refused
    dlg.check.test_button.click()
    qtbot.waitUntil(lambda: dlg.check.status_label.text().startswith("Error:"), timeout=10_000)
    assert "could not connect" in dlg.check.status_label.text()


def test_list_models_fills_combo(make_dialog, qtbot):
    with ModelServer(["unused"], model_name="vision-7b-instruct") as srv:
        dlg = make_dialog(srv.base_url, model="")
        qtbot.mouseClick(dlg.model.list_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dlg.model.model_combo.count() == 1, timeout=10_000)
        assert dlg.model.model_combo.itemText(0) == "vision-7b-instruct"
        assert dlg.model.model_combo.currentText() == "vision-7b-instruct"
        assert dlg.model.list_button.isEnabled() and "List" in dlg.model.list_button.text()
        assert "1 model listed" in dlg.check.status_label.text()


def test_list_models_selects_the_first_when_the_model_set_is_not_listed_and_says_so(make_dialog, qtbot):
    """Issue #30, item 11: "2 models listed; pick one" selected none. The model set is kept selected when the
    server has it; otherwise the first listed is selected, and the status line names it."""
    with ModelServer(["unused"], model_name="served") as srv:
        dlg = make_dialog(srv.base_url, model="my-own")
        dlg.model.list_button.click()
        qtbot.waitUntil(lambda: dlg.model.model_combo.count() == 1, timeout=10_000)
        assert dlg.model.model_combo.currentText() == "served" and dlg.model.model_combo.currentIndex() == 0
        said = dlg.check.status_label.fullText()
        assert said.startswith("1 model listed; selected the first, served") and "my-own is not one of them" in said


def test_list_models_keeps_the_model_set_when_the_server_has_it(make_dialog, qtbot):
    with ModelServer(["unused"], model_name="served") as srv:
        dlg = make_dialog(srv.base_url, model="served")
        dlg.model.list_button.click()
        qtbot.waitUntil(lambda: dlg.model.model_combo.count() == 1, timeout=10_000)
        assert dlg.model.model_combo.currentIndex() == 0 and dlg.model.model_combo.currentText() == "served"
        assert dlg.check.status_label.fullText() == "1 model listed; served, the model set, is one of them."


def test_gui_stays_responsive_and_close_while_waiting(make_dialog, qtbot):
    with ModelServer(scripted([Reply(text="OK", delay=3)], repeat_last=True)) as srv:
        dlg = make_dialog(srv.base_url)
        ticks = []
        timer = QTimer()
        timer.setInterval(50)
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start()

        started = time.monotonic()
        dlg.check.test_button.click()
        assert time.monotonic() - started < 0.5          # click returns at once
        assert not dlg.check.test_button.isEnabled()
        assert dlg.check.test_button.text() == "Testing…"
        assert dlg.is_busy()
        qtbot.waitUntil(lambda: len(srv.requests) == 1, timeout=5000)
        qtbot.wait(800)
        assert len(ticks) >= 8                           # the event loop kept running
        assert dlg.check.status_label.text().startswith("Testing")

        t0 = time.monotonic()
        dlg.reject()                                     # close before the reply comes
        assert time.monotonic() - t0 < 0.5
        assert not dlg.isVisible()
        assert dlg.result() == QDialog.DialogCode.Rejected
        assert not dlg.is_busy() and dlg.check.test_button.isEnabled()

        dlg.deleteLater()                                # and even gone entirely
        qtbot.wait(3500)                                 # past the reply's delay
        timer.stop()
        assert len(ticks) >= 60


def test_late_result_after_close_is_ignored(make_dialog, qtbot):
    with ModelServer(scripted([Reply(text="OK", delay=1)], repeat_last=True)) as srv:
        dlg = make_dialog(srv.base_url)
        dlg.check.test_button.click()
        qtbot.waitUntil(lambda: len(srv.requests) == 1, timeout=5000)
        dlg.close()
        assert dlg.check.status_label.text() == "Cancelled."
        qtbot.wait(1500)
        assert dlg.check.status_label.text() == "Cancelled."
        assert not [t for t in threading.enumerate() if t.name == "settings-test"]


def test_no_keyring_explains_env_var(no_keyring, make_dialog):
    dlg = make_dialog()
    assert dlg.key.keyring_label.isVisible()
    text = dlg.key.keyring_label.text()
    assert "No system keyring" in text and "OPENAI_API_KEY" in text
    assert not dlg.key.key_edit.isEnabled()
    assert "OPENAI_API_KEY" in dlg.key.key_edit.placeholderText()
    dlg.accept()                                        # settings still save without a keyring
    assert dlg.result() == QDialog.DialogCode.Accepted
    assert load_settings()[0].model.model == "cockpit-test-model"


def test_key_goes_to_keyring_not_settings_file(memory_keyring, make_dialog, qtbot):
    with ModelServer(["unused"]) as srv:
        url = srv.base_url
    dlg = make_dialog(url, model="m1")
    assert dlg.key.key_edit.isEnabled()
    assert "no key is stored" in dlg.key.key_edit.placeholderText()
    qtbot.keyClicks(dlg.key.key_edit, SECRET)
    dlg.model.temperature_spin.setValue(0.3)
    qtbot.keyClick(dlg.key.key_edit, Qt.Key.Key_Return)     # Enter = OK
    assert dlg.result() == QDialog.DialogCode.Accepted
    assert memory_keyring.store == {("cockpit", apikeys.key_name(url)): SECRET}
    text = settings_path().read_text()
    assert SECRET not in text and "DIALOG-SECRET" not in text
    saved = json.loads(text)
    assert saved["model"]["base_url"] == url and saved["model"]["temperature"] == 0.3
    result = dlg.result_settings()
    assert result.model.model == "m1" and result.model.temperature == 0.3
    # reopening: the placeholder says a key is stored, and never shows it
    again = make_dialog(url)
    assert "from the system keyring" in again.key.key_edit.placeholderText()
    assert again.key.key_edit.text() == ""
    for w in again.findChildren(object):
        for attr in ("text", "placeholderText", "toolTip"):
            value = getattr(w, attr, None)
            if callable(value):
                assert SECRET not in str(value())


def test_env_key_source_is_shown_not_the_key(memory_keyring, make_dialog, monkeypatch):
    monkeypatch.setenv(apikeys.ENV_VAR, ENV_SECRET)
    dlg = make_dialog()
    assert "OPENAI_API_KEY from the environment" in dlg.key.key_edit.placeholderText()
    assert ENV_SECRET not in dlg.key.key_edit.placeholderText() + dlg.key.key_edit.toolTip()


def test_keyring_failure_keeps_dialog_open(make_dialog, qtbot):
    kr = MemoryKeyring(fail_on_set=True)
    before = _use_keyring(kr)
    try:
        dlg = make_dialog("http://127.0.0.1:9/v1")
        qtbot.keyClicks(dlg.key.key_edit, SECRET)
        dlg.accept()
        assert dlg.isVisible() and dlg.result() != QDialog.DialogCode.Accepted
        assert dlg.error_label.isVisible()
        assert "OPENAI_API_KEY" in dlg.error_label.text() and SECRET not in dlg.error_label.text()
        assert dlg.key.key_edit.text() == SECRET             # nothing lost
        assert not settings_path().exists()              # nothing half-saved
        kr.fail_on_set = False                           # the user unlocks the keyring and retries
        dlg.accept()
        assert dlg.result() == QDialog.DialogCode.Accepted
        assert kr.store[("cockpit", "api-key:127.0.0.1:9")] == SECRET
    finally:
        keyring.set_keyring(before)


def test_escape_cancels_and_saves_nothing(make_dialog, qtbot):
    dlg = make_dialog()
    dlg.model.model_combo.setEditText("changed")
    qtbot.keyClick(dlg.model.model_combo, Qt.Key.Key_Escape)
    assert dlg.result() == QDialog.DialogCode.Rejected
    assert not settings_path().exists()
    assert dlg.result_settings().model.model == "cockpit-test-model"


def test_enter_in_model_combo_accepts(make_dialog, qtbot):
    dlg = make_dialog()
    dlg.model.model_combo.setFocus()
    dlg.model.model_combo.lineEdit().selectAll()
    qtbot.keyClicks(dlg.model.model_combo.lineEdit(), "gpt-4.1-mini")
    qtbot.keyClick(dlg.model.model_combo.lineEdit(), Qt.Key.Key_Return)
    assert dlg.result() == QDialog.DialogCode.Accepted
    assert load_settings()[0].model.model == "gpt-4.1-mini"


def test_presets_and_other_settings_kept(make_dialog):
    dlg = make_dialog(max_steps=33, annotator="bob")
    dlg.model.preset_actions["Ollama"].trigger()
    assert dlg.model.base_url_edit.text() == "http://localhost:11434/v1"
    dlg.model.preset_actions["OpenAI"].trigger()
    assert dlg.model.base_url_edit.text() == ""
    dlg.model.preset_actions["LM Studio"].trigger()
    assert dlg.model.model_combo.currentText() == ""     # its models are that computer's: the person picks one
    dlg.model.model_combo.setEditText("local-vlm")
    dlg.model.width_spin.setValue(1024)
    dlg.model.detail_combo.setCurrentText("low")
    dlg.model.format_combo.setCurrentText("png")
    dlg.accept()
    s = dlg.result_settings()
    assert s.model.base_url == "http://localhost:1234/v1"
    assert (s.model.image_max_width, s.model.image_detail, s.model.image_format) == (1024, "low", "png")
    assert (s.max_steps, s.annotator) == (33, "bob")
    assert load_settings() == (s, [])


def test_bad_base_url_is_refused(make_dialog):
    dlg = make_dialog()
    dlg.model.base_url_edit.setText("localhost:8000")
    dlg.accept()
    assert dlg.isVisible() and "http://" in dlg.error_label.text()
    dlg.check.test_button.click()
    assert "http://" in dlg.check.status_label.text() and not dlg.is_busy()


def test_labels_have_buddies_and_tab_order(make_dialog):
    from PySide6.QtWidgets import QLabel
    dlg = make_dialog()
    buddies = {lbl.text(): lbl.buddy() for lbl in dlg.findChildren(QLabel) if "&" in lbl.text()}
    assert buddies["&Base URL:"] is dlg.model.base_url_edit
    assert buddies["&Model:"] is dlg.model.model_combo
    assert buddies["API &key:"] is dlg.key.key_edit
    mnemonics = [t[t.index("&") + 1].lower() for t in buddies]
    mnemonics += [b.text()[b.text().index("&") + 1].lower()
                  for b in (dlg.check.test_button, dlg.model.list_button, dlg.model.presets_button)]
    assert len(mnemonics) == len(set(mnemonics))
    wanted = [dlg.model.base_url_edit, dlg.model.presets_button, dlg.model.model_combo, dlg.model.list_button, dlg.model.temperature_spin,
              dlg.model.max_tokens_spin, dlg.model.timeout_spin, dlg.model.detail_combo, dlg.model.width_spin, dlg.model.format_combo,
              dlg.key.key_edit,
              dlg.check.test_button, dlg.browser.webdriver_edit, dlg.browser.chrome_args_edit, dlg.browser.record_box,
              dlg.ok_button]
    chain, w = [], dlg.model.base_url_edit
    for _ in range(200):                                 # the focus chain, in Tab order
        if w in wanted and w not in chain:
            chain.append(w)
        w = w.nextInFocusChain()
    assert chain == wanted
    assert dlg.ok_button.isDefault()
    assert not dlg.check.test_button.autoDefault() and not dlg.model.list_button.autoDefault()


def test_on_a_short_screen_ok_stays_in_view_and_every_field_can_be_scrolled_to(make_dialog, qtbot):
    """Issue #20: the dialog was 736 px tall and could not be made shorter, so on a 700-pixel screen OK and Cancel
    were off-screen. Where the screen is tall enough nothing scrolls; made 420 px tall, the fields scroll and
    OK / Cancel stay in view; Tab brings each field into view."""
    dlg = make_dialog()
    free = dlg.screen().availableGeometry()
    if dlg.sizeHint().height() <= free.height() - 48:
        assert dlg.height() >= dlg.sizeHint().height()
        assert dlg.scroll.verticalScrollBar().maximum() == 0, "it scrolls although it fits"
    dlg.resize(dlg.width(), 420)
    qtbot.waitUntil(lambda: dlg.height() == 420 and dlg.scroll.viewport().height() < 420)
    qtbot.wait(20)  # the layout settles
    assert dlg.scroll.verticalScrollBar().maximum() > 0
    for button in (dlg.ok_button, dlg.buttons.button(dlg.buttons.StandardButton.Cancel)):
        top_left = button.mapTo(dlg, button.rect().topLeft())
        assert dlg.rect().contains(top_left) and dlg.rect().contains(top_left + button.rect().bottomRight())
    viewport = dlg.scroll.viewport()
    dlg.model.base_url_edit.setFocus()
    for _ in range(14):  # Tab through the fields: each one focused is scrolled into view
        qtbot.keyClick(dlg.focusWidget(), Qt.Key.Key_Tab)
        qtbot.wait(5)
        w = dlg.focusWidget()
        if w is dlg.ok_button or not viewport.isAncestorOf(w):
            continue
        top = w.mapTo(viewport, w.rect().topLeft()).y()
        assert 0 <= top and top + w.height() <= viewport.height(), f"{w} is focused but scrolled out of view"
    assert dlg.scroll.verticalScrollBar().value() > 0


def test_a_dialect_preset_fills_dialect_and_space_and_is_saved(make_dialog):
    dlg = make_dialog("http://127.0.0.1:9/v1")
    field = dlg.model.dialect_field
    assert (field.preset.currentText(), field.values()) == ("webvoyager-marks", ("marks", "pixels"))
    assert not field.space.isEnabled()  # marks have no coordinate space
    field.preset.setCurrentIndex(field.preset.findData("qwen2.5-vl"))
    assert field.values() == ("qwen", "qwen") and field.space.isEnabled()
    field.space.setCurrentIndex(field.space.findData("norm1000"))  # Qwen3-VL's space: the matching preset shows
    assert field.preset.currentText() == "qwen3-vl"
    field.space.setCurrentIndex(field.space.findData("norm1"))
    assert field.preset.currentText() == "custom"
    dlg.accept()
    model = load_settings()[0].model
    assert (model.dialect, model.coords, model.pixel) == ("qwen", "norm1", True)
    again = make_dialog(model.base_url)
    assert again.model.dialect_field.values() == ("marks", "pixels")  # a fresh Settings: the default
