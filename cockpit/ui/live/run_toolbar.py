"""The Run toolbar: the run's commands (Run, Pause, Step, Stop, Take over, Hand back), its options (budget,
approval policy, memory, demo policy, browser state) and the screenshot's tools (boxes, fit, add a mark).

It owns the actions and the option widgets; the window connects the actions' signals. The menus
(:mod:`cockpit.ui.menus`) hold the very same actions, for a screen too narrow for the toolbar.

The options are a toolbar of their own (`options_bar`), beside the commands on a wide window and on a second row
when both do not fit (`place`): at 1024 pixels nothing hides behind Qt's "»", whose expanded row covered the tab
bar. They show on the Live tab, where runs start. On a window narrower still, "»" expands the row and Esc closes
it again (issue #38).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QLabel,
    QMainWindow,
    QSpinBox,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from cockpit.core.agent.approval import POLICIES
from cockpit.core.settings import Settings
from cockpit.ui.live.bridge import PAUSED, PAUSING, STOPPING, TAKEN_OVER


@dataclass(frozen=True)
class RunOptions:
    """The run options the bar holds, as values (the window asks for these, never for the bar's widgets)."""
    max_steps: int
    memory_k: int
    policy: str  # ask before: cockpit.core.agent.approval.POLICIES
    demo: bool  # the offline demo policy on the bundled demo shop
    keep_browser: bool  # start in the browser as the last run left it


class RunToolbar(QToolBar):
    demoToggled = Signal(bool)  # Demo policy (offline) ticked or unticked

    def __init__(self, window: QWidget, live_page: QWidget, settings: Settings, demo: bool):
        super().__init__("Run")
        self.setObjectName("runToolbar")
        self._window, self._live_page = window, live_page
        act = self._action
        self.act_run = act("Run", "F5", "Start a run, or resume a paused one")
        self.act_pause = act("Pause", "F6", "Pause after the current step")
        self.act_step = act("Step", "F10", "Run one step, then pause")
        self.act_stop = act("Stop", "Shift+F5", "Stop now, even during a model call")
        self.act_take = act("Take over", "F8", "Pause the agent and act by hand")
        self.act_hand = act("Hand back", "F9", "Resume the agent")
        for a in (self.act_run, self.act_pause, self.act_step, self.act_stop, self.act_take, self.act_hand):
            self.addAction(a)
        self.addSeparator()
        self.options_bar = QToolBar("Run options")
        self.options_bar.setObjectName("runOptionsToolbar")
        self._build_options(self.options_bar, settings, demo)
        self.act_boxes = act("Boxes", "B", "Show or hide the numbered boxes", checkable=True)
        self.act_boxes.setChecked(True)
        self.act_fit = act("Fit", "Ctrl+0", "Fit the screenshot to the pane")
        self.act_add = act("Add mark", "M", "Draw a box around an element the marking missed", checkable=True)
        for a in (self.act_boxes, self.act_add):  # single keys: only in Live (Review has its own)
            window.removeAction(a)
            a.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            live_page.addAction(a)
        self.act_settings = act("Model…", "Ctrl+,",
                                "Model server, model and API key; the browser (local, or a WebDriver URL)")
        self.act_open = act("Open tasks…", "Ctrl+O", "Load a task file")
        self.act_quit = act("Quit", "Ctrl+Q", "Stop any run, close the browser and quit")
        for a in (self.act_boxes, self.act_fit, self.act_add, self.act_settings):
            self.addAction(a)

    def _action(self, text: str, key: str, tip: str, checkable: bool = False) -> QAction:
        a = QAction(text, self._window)
        a.setShortcut(QKeySequence(key))
        a.setToolTip(f"{tip} ({QKeySequence(key).toString(QKeySequence.NativeText)})")
        a.setCheckable(checkable)
        self._window.addAction(a)
        return a

    def place(self, window: QMainWindow, tabs: QTabWidget) -> None:
        """Both toolbars into `window`: on one row when they fit its width, else the options on a second row. The
        options show with the Live tab only (where runs start): Review and Reports keep the row's height."""
        window.addToolBar(self)
        window.addToolBar(self.options_bar)
        self._rows = _Rows(window, self, self.options_bar)
        self._tabs = tabs
        tabs.currentChanged.connect(lambda _i: self.follow_tab())
        self.follow_tab()

    def follow_tab(self) -> None:
        """The options shown on the Live tab only, and the rows as the width allows (again after the window's
        remembered layout was restored: it remembers toolbars hidden and rows broken)."""
        self.options_bar.setVisible(self._tabs.currentWidget() is self._live_page)
        self._rows.arrange()

    def _build_options(self, bar: QToolBar, settings: Settings, demo: bool) -> None:
        bar.addWidget(QLabel(" Max steps "))
        self.max_steps = QSpinBox(minimum=1, maximum=500, value=settings.max_steps)
        bar.addWidget(self.max_steps)
        bar.addWidget(QLabel(" Ask before "))
        self.policy = QComboBox()
        self.policy.addItems(POLICIES)
        self.policy.setCurrentText(settings.approval_policy)
        self.policy.setToolTip("irreversible: ask before actions that cannot be undone; every: step mode, "
                               "ask before each action; never: do not ask")
        bar.addWidget(self.policy)
        bar.addWidget(QLabel(" Memory "))
        self.memory = QSpinBox(minimum=0, maximum=5, value=settings.memory_k)
        self.memory.setToolTip("Give the agent this many similar past successful runs as examples before it "
                               "starts (procedural memory; 0 = off)")
        bar.addWidget(self.memory)
        self.demo_box = QCheckBox("Demo policy (offline)")
        self.demo_box.setToolTip("Use Cockpit's rule-based demo policy on the bundled demo shop: no model, no key. "
                                 "Ticked, it is used instead of the model set in Model…")
        self.demo_box.setChecked(demo)
        self.demo_box.toggled.connect(self.demoToggled)
        bar.addWidget(self.demo_box)
        self.keep_browser_box = QCheckBox("Keep browser state")
        self.keep_browser_box.setToolTip("Start the run in the browser as the last run left it (cookies, storage, "
                                         "log-ins). Off: each run starts clean, in a new browser context")
        self.keep_browser_box.setChecked(settings.keep_browser_state)
        bar.addWidget(self.keep_browser_box)

    def run_options(self) -> RunOptions:
        """What the bar says a run started now is to be run with."""
        return RunOptions(self.max_steps.value(), self.memory.value(), self.policy.currentText(),
                          self.demo_box.isChecked(), self.keep_browser_box.isChecked())

    def options(self) -> tuple:
        """The option widgets a run going disables."""
        return self.demo_box, self.keep_browser_box, self.max_steps, self.policy

    def follow(self, busy: bool, state: str, taken_over: bool, human: bool = False, has_page: bool = True) -> None:
        """Enable what the bridge's state allows. `human`: a person's own attempt goes (the bridge's `human`):
        nothing hands its browser to an agent, so only Stop acts (cockpit.ui.live.attempt). `has_page`: the run
        has shown a page (while its browser starts there is nothing to take over)."""
        agent = busy and not human  # an agent's run, which Run, Step, Pause and the take-over act on
        self.act_run.setText("Resume" if agent and state in (PAUSED, TAKEN_OVER) else "Run")
        self.act_run.setEnabled(not busy or (agent and state in (PAUSED, TAKEN_OVER)))
        self.act_pause.setEnabled(agent and state not in (PAUSED, PAUSING, TAKEN_OVER, STOPPING))
        self.act_step.setEnabled(not busy or (agent and state in (PAUSED,)))
        self.act_stop.setEnabled(busy and state != STOPPING)
        self.act_take.setEnabled(agent and has_page and not taken_over and state != STOPPING)
        self.act_hand.setEnabled(agent and taken_over)
        for w in self.options():
            w.setEnabled(not busy)


class _Rows(QObject):
    """Keeps two toolbars of a window on one row when they fit its width, else puts the second on a row of its
    own; and closes a toolbar that "»" expanded when Esc is pressed."""

    def __init__(self, window: QMainWindow, first: QToolBar, second: QToolBar):
        super().__init__(window)
        self.window, self.first, self.second = window, first, second
        window.installEventFilter(self)
        for bar in (first, second):
            ext = bar.findChild(QToolButton, "qt_toolbar_ext_button")
            if ext is not None:
                ext.toggled.connect(self._on_expanded)
        self.arrange()

    def arrange(self) -> None:
        need = self.first.sizeHint().width() + self.second.sizeHint().width()
        broken = self.window.toolBarBreak(self.second)
        if need > self.window.width() and not broken:
            self.window.insertToolBarBreak(self.second)
        elif need <= self.window.width() and broken:
            self.window.removeToolBarBreak(self.second)

    def _on_expanded(self, expanded: bool) -> None:
        app = QApplication.instance()
        if expanded:  # Esc anywhere closes it (until it closes, then Esc is the widgets' again)
            app.installEventFilter(self)
        else:
            app.removeEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if obj is self.window and event.type() == QEvent.Resize:
            self.arrange()
        elif event.type() == QEvent.KeyPress and event.key() == Qt.Key_Escape:
            for bar in (self.first, self.second):
                ext = bar.findChild(QToolButton, "qt_toolbar_ext_button")
                if ext is not None and ext.isChecked():
                    ext.click()
                    return True
        return False
