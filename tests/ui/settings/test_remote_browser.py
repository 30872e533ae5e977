"""The window's browser on a remote WebDriver endpoint (issue #21): set in the settings dialog, used by runs."""
from PySide6.QtCore import Qt

from cockpit.core.settings import Settings, load_settings
from cockpit.core.store import Store
from cockpit.ui.settings.dialog import ModelSettingsDialog
from tests.ui.windowtools import LONG


def test_the_settings_dialog_keeps_a_webdriver_url_and_refuses_a_bad_one(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "home"))
    dlg = ModelSettingsDialog(Settings())
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.browser.webdriver_edit.setText("hub:4444")
    qtbot.mouseClick(dlg.ok_button, Qt.MouseButton.LeftButton)
    assert dlg.isVisible() and "not an http:// or https:// address" in dlg.error_label.text()
    dlg.browser.webdriver_edit.setText("http://127.0.0.1:4444")
    dlg.browser.chrome_args_edit.setText("--no-sandbox --lang=en")
    qtbot.mouseClick(dlg.ok_button, Qt.MouseButton.LeftButton)
    assert not dlg.isVisible()
    saved = load_settings()[0]
    assert saved.webdriver_url == "http://127.0.0.1:4444" and saved.chrome_args == ["--no-sandbox", "--lang=en"]
    assert saved.record_web  # on by default (issue #41)


def test_recording_the_web_is_turned_off_in_the_dialog_and_the_window_runs_without_it(qtbot, tmp_path, monkeypatch,
                                                                                       window_factory):
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "home"))
    dlg = ModelSettingsDialog(Settings())
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.browser.record_box.isChecked()
    dlg.browser.record_box.setChecked(False)
    qtbot.mouseClick(dlg.ok_button, Qt.MouseButton.LeftButton)
    assert not dlg.isVisible() and load_settings()[0].record_web is False
    w = window_factory(demo=True)
    w.settings.record_web = False
    assert w._agent_config(demo=True).record_web is False
    w.settings.record_web = True
    assert w._agent_config(demo=True).record_web is True


def test_a_window_run_uses_the_remote_browser_of_the_settings(qtbot, window_factory, chromedriver_url):
    w = window_factory(demo=True)
    w.settings.webdriver_url = chromedriver_url
    w.settings.chrome_args = ["--no-sandbox"]  # this machine's chromedriver runs as our user (root in CI)
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)  # the demo reached "Place order"
    assert w.bridge.session.remote is not None
    w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    with Store(w.store_root) as s:
        browser = s.run_record(w.runs.run_id).config["browser"]
    assert browser["webdriver_url"] == chromedriver_url and browser["session_id"]
