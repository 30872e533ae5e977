"""The real window for UI tests: offscreen, a fresh data dir, annotator "ada"."""
import gc

import pytest
import shiboken6
from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QScreen

from cockpit.core.llm import apikeys
from cockpit.core.llm.client import ModelConfig
from cockpit.core.settings import Settings
from cockpit.ui.main_window import MainWindow


@pytest.fixture(autouse=True)
def collect_on_the_gui_thread():
    """Garbage of a test's Qt objects is freed here, on the GUI thread, not by a collection that happens
    to run in some later test's browser or model thread (a Qt object destroyed there can crash)."""
    yield
    gc.collect()


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """A fresh COCKPIT_HOME and no OPENAI_API_KEY in the environment."""
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(apikeys.ENV_VAR, raising=False)


@pytest.fixture
def window_factory(qtbot, tmp_path):
    """make(demo=False) -> a shown MainWindow on tmp_path/home; closed after the test."""
    opened = []

    def make(demo: bool = False) -> MainWindow:
        w = MainWindow(settings=Settings(annotator="ada"), store_root=tmp_path / "home", demo=demo)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitExposed(w)
        opened.append(w)
        return w
    yield make
    for w in opened:
        if shiboken6.isValid(w):  # a test may have closed and deleted it itself
            w.close()


@pytest.fixture
def window(window_factory):
    return window_factory()


@pytest.fixture
def demo_window(window_factory):
    """A window whose runs use the offline demo policy and the bundled Demo Shop."""
    return window_factory(demo=True)


@pytest.fixture
def screen_size(monkeypatch):
    """screen_size(width, height): the screen's free area, as the window and its dialogs size themselves to it
    (the offscreen platform's own screen is 800x800)."""
    def set_size(width: int, height: int) -> QSize:
        monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, width, height))
        return QSize(width, height)
    return set_size


@pytest.fixture
def small_window(window_factory):
    """The demo window at 1024x700 (a small screen)."""
    w = window_factory(demo=True)
    w.resize(QSize(1024, 700))
    return w


@pytest.fixture
def wide_window(window_factory):
    """The demo window at 1280x800."""
    w = window_factory(demo=True)
    w.resize(QSize(1280, 800))
    return w


@pytest.fixture
def make_dialog(qtbot):
    """make(base_url, model, demo=None, **settings) -> a shown Model… dialog on those settings."""
    from cockpit.ui.settings.dialog import ModelSettingsDialog

    def make(base_url=None, model="cockpit-test-model", demo=None, **settings_kw):
        settings = Settings(model=ModelConfig(base_url=base_url, model=model), **settings_kw)
        dlg = ModelSettingsDialog(settings, demo=demo)
        qtbot.addWidget(dlg)
        dlg.show()
        qtbot.waitExposed(dlg)
        return dlg
    return make


@pytest.fixture
def view(qtbot):
    """A shown ScreenshotView (800x600) on tests.ui.screenshot.screenshot_support's screenshot and MARKS."""
    from cockpit.ui.screenshot.view import ScreenshotView
    from tests.ui.screenshot.screenshot_support import MARKS, make_png
    v = ScreenshotView()
    qtbot.addWidget(v)
    v.resize(800, 600)
    v.show()
    qtbot.waitExposed(v)
    v.set_screenshot(make_png(), MARKS)
    return v
