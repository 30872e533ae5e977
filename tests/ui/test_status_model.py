"""The status bar names the model the next run talks to (walkthrough 4: nothing in the window said which model was
set): the demo policy while Demo policy is ticked, else the model set in Model…, a long name cut with its whole name
and server in the tooltip."""
import dataclasses

from PySide6.QtWidgets import QDialog

from cockpit.ui.settings.dialog import ModelSettingsDialog


def test_the_status_bar_names_the_demo_policy_then_the_model_set(demo_window, monkeypatch):
    w = demo_window
    assert w.status.model.text() == "model: demo policy" and w.status.model.isVisible()
    w.toolbar.demo_box.setChecked(False)
    assert w.status.model.text() == f"model: {w.settings.model.model}"
    assert "https://api.openai.com/v1" in w.status.model.toolTip()

    name = "Qwen/Qwen2.5-VL-72B-Instruct-AWQ-with-a-very-long-suffix"
    chosen = dataclasses.replace(w.settings, model=dataclasses.replace(w.settings.model, model=name,
                                                                        base_url="http://127.0.0.1:8000/v1"))
    monkeypatch.setattr(ModelSettingsDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    monkeypatch.setattr(ModelSettingsDialog, "result_settings", lambda self: chosen)
    w.open_settings()  # Model… (Ctrl+,) answered OK with another model
    shown = w.status.model.text()
    assert shown.startswith("model: Qwen/Qwen2.5-VL") and shown.endswith("…") and len(shown) < len(name)
    assert name in w.status.model.toolTip() and "127.0.0.1:8000" in w.status.model.toolTip()
    w.toolbar.demo_box.setChecked(True)
    assert w.status.model.text() == "model: demo policy"
