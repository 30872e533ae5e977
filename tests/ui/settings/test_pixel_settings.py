"""Model… for pixel models (issues #38, #39): labelled Answers as rows, a preset suggested for a listed model, the
Qwen pixel budget with the grid it implies, the window's viewport and device scale, and Check pointing."""
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QApplication

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.settings import load_settings
from cockpit.ui.settings.dialog import ModelSettingsDialog
from cockpit.ui.settings.pointing import PointingReportDialog
from testkit.pixelmodel import PointingModel

pytestmark = pytest.mark.usefixtures("isolated")  # a fresh COCKPIT_HOME, no OPENAI_API_KEY


def test_the_answers_as_rows_are_labelled_and_say_what_they_mean(make_dialog):
    dlg = make_dialog("http://127.0.0.1:9/v1")
    form, field = dlg.model.form, dlg.model.dialect_field
    labels = {form.labelForField(w).text() for w in (field.preset, field.dialect, field.space)}
    assert labels == {"Answers &as:", "Reply format:", "Coordinates (&x, y):"}
    field.preset.setCurrentIndex(field.preset.findData("ui-tars-1.0"))
    assert field.what.fullText().startswith("UI-TARS 1.0: click(start_box='(x,y)') in 0..1000")
    assert field.space.currentText() == "norm1000: 0..1000 on both axes"
    assert field.grid.fullText() == ("The model points in 0..1000 on both axes of the 1024x768 screenshot "
                                     "(viewport 1024x768 at scale 1).")
    assert not field.budget_row.isVisible()  # the budget is the qwen space's


def test_a_model_listed_by_the_server_suggests_its_preset(make_dialog, qtbot):
    with ModelServer(["unused"], model_name="ByteDance-Seed/UI-TARS-1.5-7B") as srv:
        dlg = make_dialog(srv.base_url, "")
        qtbot.keyClick(dlg.model.list_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: dlg.model.model_combo.count() == 1, timeout=10_000)
    field = dlg.model.dialect_field
    assert field.suggestion.isVisible() and "answers as ui-tars-1.5" in field.suggestion.fullText()
    assert field.use_suggested.text() == "Use ui-tars-1.5"
    qtbot.mouseClick(field.use_suggested, Qt.MouseButton.LeftButton)
    assert field.values() == ("uitars", "qwen") and not field.use_suggested.isVisible()
    dlg.accept()
    assert (load_settings()[0].model.dialect, load_settings()[0].model.coords) == ("uitars", "qwen")


def test_the_qwen_budget_shows_its_grid_and_is_saved_with_the_model_and_the_browser(make_dialog, qtbot):
    dlg = make_dialog("http://127.0.0.1:9/v1", "qwen2.5vl:7b")
    field = dlg.model.dialect_field
    field.preset.setCurrentIndex(field.preset.findData("qwen2.5-vl"))
    assert field.budget_row.isVisible()
    assert field.grid.fullText().startswith("The model points on a 1036x756 grid: the 1024x768 screenshot")
    dlg.browser.scale_spin.setValue(2)
    assert field.grid.fullText().startswith("The model points on a 2044x1540 grid: the 2048x1536 screenshot")
    field.max_pixels.setValue(1003520)
    assert field.grid.fullText().startswith("The model points on a 1148x840 grid")
    dlg.browser.width_spin.setValue(1280)
    assert "viewport 1280x768 at scale 2" in field.grid.fullText()
    dlg.accept()
    saved = load_settings()[0]
    assert (saved.model.qwen_min_pixels, saved.model.qwen_max_pixels) == (None, 1003520)
    assert (saved.viewport, saved.device_scale_factor) == ([1280, 768], 2.0)
    again = ModelSettingsDialog(saved)  # opened again on what was saved
    qtbot.addWidget(again)
    assert again.model.dialect_field.budget() == (None, 1003520)
    assert again.browser.screen() == ((1280, 768), 2.0)


def test_a_budget_whose_min_is_above_its_max_is_said_in_the_window(make_dialog):
    dlg = make_dialog("http://127.0.0.1:9/v1", "qwen2.5vl:7b")
    field = dlg.model.dialect_field
    field.preset.setCurrentIndex(field.preset.findData("qwen2.5-vl"))
    field.min_pixels.setValue(2_000_000)
    field.max_pixels.setValue(1_003_520)
    assert "more than its max pixels" in field.grid.fullText()
    dlg.accept()
    assert dlg.isVisible() and "more than its max pixels" in dlg.error_label.fullText()


def test_check_pointing_reports_the_clicks_names_the_field_and_applies_it(make_dialog, qtbot, browser, monkeypatch):
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1024, 700))
    with ModelServer(PointingModel(browser, [], "uitars", "norm1000")) as srv:
        dlg = make_dialog(srv.base_url, "ui-tars-7b")
        field = dlg.model.dialect_field
        field.load("uitars", "pixels")  # the mistake: the model answers in 0..1000
        dlg.model.format_combo.setCurrentText("png")
        assert dlg.pointing.isVisible()
        qtbot.mouseClick(dlg.pointing.button, Qt.MouseButton.LeftButton)
        assert dlg.pointing.button.text() == "Checking…" and not dlg.pointing.button.isEnabled()
        qtbot.waitUntil(lambda: "target" in dlg.pointing.status.fullText(), timeout=60_000)
        qtbot.waitUntil(lambda: dlg.pointing.report is not None and dlg.pointing.report.isVisible(), timeout=120_000)
    report: PointingReportDialog = dlg.pointing.report
    assert report.width() <= 1024 and report.height() <= 700
    rows = report.text.toPlainText().splitlines()
    assert sum(1 for r in rows if r[:1] in "ABCDEFGHI" and r[1:3] == "  ") == 9
    assert report.verdict.fullText().endswith("Set Coordinates (x, y) to norm1000.")
    assert report.apply_button.text() == "&Apply: Coordinates (x, y) to norm1000"
    qtbot.mouseClick(report.apply_button, Qt.MouseButton.LeftButton)
    QApplication.processEvents()
    assert field.values() == ("uitars", "norm1000") and not report.isVisible()
    assert "Applied" in dlg.pointing.status.fullText()
    dlg.accept()
    assert load_settings()[0].model.coords == "norm1000"


def test_check_pointing_on_a_set_of_mark_model_says_why_not(make_dialog):
    dlg = make_dialog("http://127.0.0.1:9/v1")
    assert not dlg.pointing.isVisible()  # marks: no coordinates to check
    dlg.check_pointing()
    assert "for pixel models" in dlg.pointing.status.fullText()


def test_settings_saved_under_an_old_preset_name_open_on_its_new_name(qtbot):
    """Presets are saved as their reply format and coordinates; what vllm-ui-tars-1.5 saved shows as ui-tars-1.5."""
    from cockpit.core.llm.modelconfig import ModelConfig
    from cockpit.core.settings import Settings
    dlg = ModelSettingsDialog(Settings(model=ModelConfig(base_url="http://127.0.0.1:9/v1", model="m",
                                                         dialect="uitars", coords="qwen")))
    qtbot.addWidget(dlg)
    assert dlg.model.dialect_field.preset.currentText() == "ui-tars-1.5"


def test_model_dialog_and_pointing_report_fit_1024x700_with_every_pixel_row_shown(make_dialog, qtbot, monkeypatch):
    from cockpit.core.actions import coords
    from cockpit.core.actions.pointfit import explain
    from cockpit.core.agent.pointcheck import LABELS, Click, PointingReport
    from tests.ui.fits import fit_violations
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1024, 700))
    dlg = make_dialog("http://127.0.0.1:9/v1", "org/Qwen2.5-VL-72B-Instruct-AWQ-" + "x" * 150)
    field = dlg.model.dialect_field
    field.load("uitars", "qwen", 2_000_000, 1_003_520)  # the suggestion, the budget, an error on the grid line
    dlg.pointing.say("The pointing check could not finish: " + "a long server message " * 20)
    QApplication.processEvents()
    assert field.use_suggested.isVisible() and field.budget_row.isVisible()
    assert fit_violations(dlg) == []
    frame = coords.Frame((1024, 768), (2048, 1536))
    report = PointingReport("org/" + "m" * 200, "qwen", "qwen", frame, 2.0)
    centres = [(48 + 100 * i, 24 + 80 * i) for i in range(len(LABELS))]
    for label, c in zip(LABELS, centres):
        p = coords.to_model(c, "norm1000", frame)
        report.clicks.append(Click(label, c, (c[0] - 44, c[1] - 20, 88, 40), f"Click ({p[0]}, {p[1]})", p,
                                   (p[0] * 1024 / 2044, p[1] * 768 / 1540)))
    report.explanation = explain([c.point for c in report.clicks], centres, "qwen", frame, 2.0)
    shown = PointingReportDialog(report, lambda fix: None, dlg)
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    assert shown.apply_button.text() == "&Apply: Coordinates (x, y) to norm1000"
    assert fit_violations(shown) == []
