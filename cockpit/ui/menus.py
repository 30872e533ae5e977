"""The window's menu bar: every toolbar action, with the same shortcut, for when the toolbar is cut short.

On a 1024-pixel screen the toolbar hides its last items behind "»" (issue #20). The menus hold the very same
QActions (one enabled state, one shortcut each), and checkable twins of the toolbar's check boxes and of
"Ask before", kept in step with them both ways.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QCheckBox, QComboBox, QMainWindow, QMenu, QTabWidget

from cockpit.core.agent.approval import POLICIES


def build_menus(w: QMainWindow, tb, modes: QTabWidget, boxes: tuple[QCheckBox, ...] = (),
                file_actions: tuple[QAction, ...] = (), run_actions: tuple[QAction, ...] = ()) -> None:
    """Fill `w`'s menu bar with the actions of `tb` (a RunToolbar), the check boxes `boxes` besides its own,
    the window's own File actions `file_actions` (Import runs…, Export training data…), its own Run actions
    `run_actions` (Attempt it yourself…) and one entry per tab of `modes`."""
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    for a in (tb.act_open, *file_actions, tb.act_settings):
        file_menu.addAction(a)
    file_menu.addSeparator()
    file_menu.addAction(tb.act_quit)
    run = bar.addMenu("&Run")
    for a in (tb.act_run, tb.act_pause, tb.act_step, tb.act_stop):
        run.addAction(a)
    run.addSeparator()
    for a in (tb.act_take, tb.act_hand, *run_actions):
        run.addAction(a)
    run.addSeparator()
    _policy_menu(run.addMenu("Ask &before"), tb.policy)
    for box in (tb.demo_box, tb.keep_browser_box, *boxes):
        run.addAction(_twin(box, w))
    view = bar.addMenu("&View")
    for a in (tb.act_boxes, tb.act_fit, tb.act_add):
        view.addAction(a)
    view.addSeparator()
    for i in range(modes.count()):
        tab = QAction(modes.tabText(i), w)
        tab.triggered.connect(lambda _=False, i=i: modes.setCurrentIndex(i))
        view.addAction(tab)


def _twin(box: QCheckBox, parent) -> QAction:
    """A checkable menu action that is `box`: ticking either ticks both, and it is enabled when the box is."""
    a = QAction(box.text(), parent)
    a.setCheckable(True)
    a.setChecked(box.isChecked())
    a.setToolTip(box.toolTip())
    a.toggled.connect(box.setChecked)
    box.toggled.connect(a.setChecked)
    a.setEnabled(box.isEnabled())
    box.installEventFilter(_EnabledFollower(a, box))
    return a


def _policy_menu(menu: QMenu, combo: QComboBox) -> None:
    group = QActionGroup(menu)
    for name in POLICIES:
        a = menu.addAction(name)
        a.setCheckable(True)
        a.setChecked(combo.currentText() == name)
        a.triggered.connect(lambda _=False, n=name: combo.setCurrentText(n))
        group.addAction(a)
    combo.currentTextChanged.connect(lambda n: [a.setChecked(a.text() == n) for a in group.actions()])
    menu.aboutToShow.connect(lambda: [a.setEnabled(combo.isEnabled()) for a in group.actions()])


class _EnabledFollower(QObject):
    """Enables the menu twin when its check box is enabled (a run going disables both)."""

    def __init__(self, action: QAction, box: QCheckBox):
        super().__init__(action)
        self.action, self.box = action, box

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.EnabledChange:
            self.action.setEnabled(self.box.isEnabled())
        return False
