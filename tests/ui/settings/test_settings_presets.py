"""Model settings as a new user meets them (issue #30, item 11): presets set a model their server has, listed
models are selected and named, the Demo policy is said to override the model, Test connection keeps the focus,
and text from data never widens the dialog at 1024x700."""
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget

from cockpit.core.llm.modelserver import ModelServer, Reply, scripted
from cockpit.ui.settings.dialog import DEMO_MAYBE, DEMO_ON

pytestmark = pytest.mark.usefixtures("isolated")  # a fresh COCKPIT_HOME, no OPENAI_API_KEY

LONG_URL = "http://models.example.internal:8000/" + "very-long-path-segment/" * 7 + "v1"   # about 200 characters
LONG_MODEL = "org-name/" + "Qwen2.5-VL-72B-Instruct-AWQ-finetuned-" * 5                  # about 200 characters


# ---------------------------------------------------------------- presets

def test_the_ollama_preset_does_not_leave_an_openai_model_and_says_to_pick_one(make_dialog):
    dlg = make_dialog(None, "gpt-4o")
    dlg.model.preset_actions["Ollama"].trigger()
    assert dlg.model.base_url_edit.text() == "http://localhost:11434/v1"
    combo = dlg.model.model_combo
    assert combo.currentText() == ""  # not gpt-4o, which no Ollama has
    assert "List models" in combo.lineEdit().placeholderText()
    said = dlg.check.status_label.fullText()
    assert said.startswith("Ollama: pick one of the server's models") and "List models" in said
    dlg.accept()  # and OK says what is missing, instead of saving a model the server does not have
    assert dlg.isVisible() and "Enter a model name" in dlg.error_label.fullText()
    dlg.model.preset_actions["OpenAI"].trigger()  # back: the model set for OpenAI
    assert (dlg.model.base_url_edit.text(), combo.currentText()) == ("", "gpt-4o")
    assert dlg.check.status_label.fullText() == "OpenAI: model gpt-4o."


def test_a_preset_brings_back_the_model_set_for_its_server(make_dialog):
    dlg = make_dialog("http://localhost:11434/v1", "llava")
    dlg.model.preset_actions["vLLM"].trigger()
    assert dlg.model.model_combo.currentText() == ""
    dlg.model.model_combo.setEditText("Qwen/Qwen2.5-VL-7B-Instruct")
    dlg.model.preset_actions["Ollama"].trigger()
    assert dlg.model.model_combo.currentText() == "llava"
    dlg.model.preset_actions["vLLM"].trigger()
    assert dlg.model.model_combo.currentText() == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert dlg.check.status_label.fullText() == "vLLM: model Qwen/Qwen2.5-VL-7B-Instruct."


# ---------------------------------------------------------------- listed models

def test_of_two_listed_models_the_one_set_is_selected_else_the_first_and_named(make_dialog):
    dlg = make_dialog("http://127.0.0.1:9/v1", "llava:13b")
    section, combo = dlg.model, dlg.model.model_combo
    section.fill_models(["qwen2.5vl:7b", "llava:13b"])
    assert combo.count() == 2 and combo.currentIndex() == 1 and combo.currentText() == "llava:13b"
    assert dlg.check.status_label.fullText() == "2 models listed; llava:13b, the model set, is one of them."
    combo.setEditText("gpt-4o")
    section.fill_models(["qwen2.5vl:7b", "llava:13b"])
    assert combo.currentIndex() == 0 and combo.currentText() == "qwen2.5vl:7b"
    said = dlg.check.status_label.fullText()
    assert said.startswith("2 models listed; selected the first, qwen2.5vl:7b (gpt-4o is not one of them).")
    section.fill_models([])
    assert combo.currentText() == "qwen2.5vl:7b" and dlg.check.status_label.fullText() == "The server lists no models."


# ---------------------------------------------------------------- the Demo policy

def test_a_ticked_demo_policy_is_said_to_override_the_model(make_dialog):
    dlg = make_dialog(demo=True)
    note = dlg.demo_note
    assert note.isVisible() and note.fullText() == DEMO_ON
    assert "not the model set here" in note.text() and "Untick Demo policy" in note.text()
    top = note.mapTo(dlg.scroll.viewport(), note.rect().topLeft()).y()
    assert 0 <= top < dlg.scroll.viewport().height()  # seen on opening, without scrolling
    unknown = make_dialog()  # opened without saying whether Demo is ticked: what the box does
    assert unknown.demo_note.isVisible() and unknown.demo_note.fullText() == DEMO_MAYBE
    assert "Demo policy" in unknown.demo_note.text() and "no model" in unknown.demo_note.text()
    off = make_dialog(demo=False)
    assert not off.demo_note.isVisible()


# ---------------------------------------------------------------- the focus

def _focus(dlg) -> QWidget:
    """The dialog's focus widget (the one keys go to when it is active)."""
    return dlg.focusWidget()


def test_test_connection_keeps_the_focus(make_dialog, qtbot):
    with ModelServer(scripted([Reply(text="OK", delay=1)], repeat_last=True)) as srv:
        dlg = make_dialog(srv.base_url, "cockpit-test-model")
        dlg.activateWindow()
        qtbot.mouseClick(dlg.check.test_button, Qt.MouseButton.LeftButton)
        assert dlg.check.test_button.text() == "Testing…" and not dlg.check.test_button.isEnabled()
        busy_focus = _focus(dlg)
        assert busy_focus is not dlg.browser.webdriver_edit and not isinstance(busy_focus, QLineEdit)
        qtbot.keyClicks(busy_focus or dlg, "abc")  # typing meanwhile changes no field
        assert dlg.browser.webdriver_edit.text() == "" and dlg.model.base_url_edit.text() == srv.base_url
        qtbot.waitUntil(lambda: dlg.check.status_label.fullText().startswith("OK:"), timeout=10_000)
        assert _focus(dlg) is dlg.check.test_button


def test_list_models_keeps_the_focus(make_dialog, qtbot):
    with ModelServer(["unused"], model_name="served") as srv:
        dlg = make_dialog(srv.base_url, "served")
        dlg.activateWindow()
        qtbot.mouseClick(dlg.model.list_button, Qt.MouseButton.LeftButton)
        assert not isinstance(_focus(dlg), QLineEdit) and _focus(dlg) is not dlg.model.temperature_spin
        qtbot.waitUntil(lambda: dlg.model.list_button.isEnabled(), timeout=10_000)
        assert _focus(dlg) is dlg.model.list_button


# ---------------------------------------------------------------- long text from data at 1024x700

def test_long_urls_names_and_messages_wrap_and_never_widen_the_dialog(make_dialog, qtbot, monkeypatch):
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1024, 700))
    short = make_dialog("http://127.0.0.1:9/v1", "m")
    dlg = make_dialog(LONG_URL, LONG_MODEL, demo=True, webdriver_url=LONG_URL, chrome_args=["--x"] * 60,
                      preview_model=LONG_MODEL, preview_base_url=LONG_URL)
    assert dlg.width() <= 1024 and dlg.height() <= 700
    assert dlg.width() == short.width()  # the same dialog whatever the data
    width = dlg.width()
    dlg.model.fill_models([LONG_MODEL, LONG_MODEL + "-2"])
    dlg.check.say(f"Error: could not connect to {LONG_URL}/chat/completions ({LONG_MODEL})")
    dlg.browser.webdriver_edit.setText("hub:4444/" + "x" * 200)
    dlg.accept()  # refused: the error names the long address
    for _ in range(3):
        QApplication.processEvents()
    assert dlg.isVisible() and dlg.error_label.isVisible()
    assert dlg.width() == width and dlg.minimumSizeHint().width() <= 1024
    right = dlg.rect().right()
    for label in (dlg.check.status_label, dlg.error_label, dlg.demo_note, dlg.key.keyring_label):
        left = label.mapTo(dlg, label.rect().topLeft()).x()
        assert left + label.width() - 1 <= right, label.fullText()[:60]
        assert label.width() > dlg.width() // 2, label.fullText()[:60]  # given the form's width, not squeezed
        assert label.height() >= label.heightForWidth(label.width())  # all its lines shown
        assert label.fullText().replace("\u200b", "") == label.text().replace("\u200b", "")  # nothing cut
    assert LONG_URL in dlg.check.status_label.toolTip() or LONG_URL in dlg.check.status_label.fullText()
    for label in dlg.findChildren(QLabel):
        if label.isVisible():
            assert label.mapTo(dlg, label.rect().topLeft()).x() + label.width() - 1 <= right, label.text()[:60]
