"""The Model… dialog offers the simulator for trying Cockpit without a GPU (issue #38), labelled as what it is:
a rule-based stand-in, not a model. Picking it starts it on this computer; a run with it says so and records the
model as cockpit-simulator."""
import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QApplication

from cockpit.core.demo import simulator
from cockpit.core.demo.simulator import SIM_MODEL
from cockpit.core.settings import load_settings
from tests.ui.windowtools import LONG, records, wait_idle

pytestmark = pytest.mark.usefixtures("isolated")  # a fresh COCKPIT_HOME, no OPENAI_API_KEY


def test_the_simulator_preset_says_it_is_not_a_model_starts_it_and_lists_its_one_model(make_dialog, qtbot,
                                                                                       monkeypatch):
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1024, 700))
    dlg = make_dialog("http://localhost:11434/v1", "llava")
    section = dlg.model
    action = section.preset_actions["Simulator"]
    assert "not a real model" in action.text() and "without a GPU" in action.text()
    assert not section.simulator_note.isVisible()
    section.dialect_field.load("uitars", "qwen")
    action.trigger()
    assert section.base_url_edit.text() == simulator.shared().base_url
    assert section.base_url_edit.text().startswith("http://127.0.0.1:")
    assert section.model_combo.currentText() == SIM_MODEL
    assert section.dialect_field.values() == ("marks", "pixels")  # it reads numbered marks only
    note = section.simulator_note
    assert note.isVisible() and "not a real model" in note.fullText() and "2–8 s" in note.fullText()
    for _ in range(3):
        QApplication.processEvents()
    assert note.height() >= note.heightForWidth(note.width())  # all its lines shown, within the dialog
    assert note.mapTo(dlg, note.rect().topLeft()).x() + note.width() <= dlg.width()
    said = dlg.check.status_label.fullText()
    assert said.startswith("Simulator: started on this computer.") and "not a real model" in said
    section.list_button.click()
    qtbot.waitUntil(lambda: section.model_combo.count() == 1, timeout=10_000)
    assert section.model_combo.itemText(0) == SIM_MODEL
    section.model_combo.setEditText("gpt-4o")  # another name: no longer the simulator, no note
    assert not note.isVisible()
    section.model_combo.setEditText(SIM_MODEL)
    assert note.isVisible()
    dlg.accept()
    saved = load_settings()[0].model
    assert (saved.model, saved.dialect) == (SIM_MODEL, "marks") and simulator.usual_address(saved.base_url)
    assert dlg.width() <= 1024 and dlg.height() <= 700


def test_a_run_with_the_simulator_preset_is_labelled_and_recorded_as_the_simulator(qtbot, window, site):
    w = window
    from cockpit.core.llm.client import ModelConfig
    w.settings.model = ModelConfig(base_url=simulator.USUAL_URL, model=SIM_MODEL, max_retries=0, timeout=60)
    w.live.task_bar.set_task("What is the title of this page?", site.url("agent_details.html"))
    assert w.start_run()
    qtbot.waitUntil(lambda: "[SIMULATOR: rule-based, not a model]" in w.live.banner.fullText()
                    or not w.runs.running, timeout=LONG)
    assert "[SIMULATOR: rule-based, not a model]" in w.live.banner.fullText()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    assert run["config"]["model"]["model"] == SIM_MODEL and steps and steps[0]["model_seconds"] >= 2.0
    assert simulator.usual_address(run["config"]["model"]["base_url"])
