"""The models "List models" found stay in the Model… dialog's model list when it is closed and opened again over
the same window, for the same server (issue #38: they were gone, and had to be listed again); another server's
list is its own, and each Preset brings back the list of its server.

The real window (offscreen), the dialog opened over it as Model… (Ctrl+,) opens it, the testkit model server on
127.0.0.1 listing two models; what is read is the model list a person drops down.
"""
from PySide6.QtCore import Qt

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.ui.settings.dialog import ModelSettingsDialog


def settings_dialog(qtbot, window) -> ModelSettingsDialog:
    dlg = ModelSettingsDialog(window.settings, window)  # as MainWindow.open_settings makes it
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    return dlg


def offered(dlg) -> list[str]:
    combo = dlg.model.model_combo
    return [combo.itemText(i) for i in range(combo.count())]


def test_listed_models_are_kept_for_the_session(qtbot, window):
    with ModelServer(["unused"], model_name="vision-7b", also_listed=("vision-72b",)) as srv:
        window.settings.model = ModelConfig(base_url=srv.base_url, model="vision-7b")
        dlg = settings_dialog(qtbot, window)
        assert offered(dlg) == []
        qtbot.mouseClick(dlg.model.list_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: offered(dlg) == ["vision-7b", "vision-72b"], timeout=10_000)
        dlg.reject()
    again = settings_dialog(qtbot, window)  # the server is gone now: nothing is asked again
    assert offered(again) == ["vision-7b", "vision-72b"] and again.model.model() == "vision-7b"
    again.model.apply_preset("Ollama")  # another server: its own (empty) list
    assert offered(again) == [] and again.model.base_url() == "http://localhost:11434/v1"
    again.model.apply_preset("OpenAI")
    assert offered(again) == []
    again.reject()
    assert offered(settings_dialog(qtbot, window)) == ["vision-7b", "vision-72b"]
