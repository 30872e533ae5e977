"""Every window fits (issue #38; #30 before it): every top-level window, dialog and panel state of the app, opened
as a person opens them on a 1024x700 screen with worst-case content, laid out and checked.

What windows there are is found from the code (tests/ui/every_window.py): every QWidget subclass under
cockpit/ui must have been on screen in a checked state, and every place in cockpit/ui that opens one of Qt's own
windows (a message box, an input or file dialog, a menu) must have opened one that was checked. A dialog or
panel written tomorrow fails this test until a state here shows it.

Driven as a person drives it: keys (F5 Run, F10 Step, F8 Take over, Shift+F5 Stop, Ctrl+O, review keys), buttons
and tabs by their text, the menus opened, a right-click on a box, a box drawn. Real Chromium, a real store, and
one stand-in: scripted OpenAI-compatible model servers on 127.0.0.1 whose agent thinks 2,000 characters and
clicks a button whose name makes the risk's evidence long, on a local page whose address is 200 characters long.
The task is 300 characters, the annotator's, model's and categories' names long; the store starts empty; a task
file has problems; the gate's edit is no action; a breakpoint's value is a bad pattern; a connection test and a
re-ask fail, the re-ask because the run's model server is gone. In each state `fit_violations` lists what a
person would see wrong: a window larger than the screen, a widget outside its window or cut off by its parent,
text cut without "…" and the full text in a tooltip.
"""
from __future__ import annotations

import json

from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDialog,
    QFileDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.settings import Settings
from cockpit.ui.main_window import MainWindow
from tests.ui.every_window import Watcher, opening_sites, widget_classes
from tests.ui.fit_driving import (
    ANNOTATOR,
    BUTTON,
    CATEGORY,
    LONG,
    MODEL,
    NOT_AN_ACTION,
    PAGE,
    SHOWN_ELSEWHERE,
    TASK,
    TODAYS_MODEL,
    States,
    agent,
    by_shortcut,
    has_button,
    key,
    menu_action,
    pointer,
    run_over,
    shortcut,
    shown_button,
    shows,
    status,
    step_rows,
    tab,
    wait,
)
from tests.ui.fit_review_states import import_and_export, reports, review
from tests.ui.fits import SCREEN, fit_violations
from tests.ui.windowtools import choose_file


def test_every_window_dialog_and_state_fits_1024x700_with_worst_case_content(qtbot, tmp_path, screen_size):
    screen_size(SCREEN.width(), SCREEN.height())
    classes, sites = widget_classes(), opening_sites()
    watcher = Watcher(sites)
    root = tmp_path / "site"
    root.mkdir()
    (root / "account.html").write_text(PAGE)
    try:
        with LocalSite(root) as site, ModelServer(agent) as srv, ModelServer(agent) as today, \
                ModelServer(pointer, model_name="ui-tars-7b") as pixel:
            url = site.url("account.html") + "?from=" + "help-centre-article-closing-your-account-"
            url += "x" * (200 - len(url))
            assert len(url) == 200
            settings = Settings(annotator=ANNOTATOR, model=ModelConfig(base_url=srv.base_url, model=MODEL,
                                                                       max_retries=0, timeout=30))
            w = MainWindow(settings=settings, store_root=tmp_path / "home")
            qtbot.addWidget(w)
            w.resize(SCREEN)
            w.show()
            qtbot.waitExposed(w)
            w.activateWindow()  # the keys a person presses go to the active window
            qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
            states = States(w, watcher)
            try:
                _empty_store_and_menus(qtbot, w, states)
                _task_files(qtbot, w, states, tmp_path, url)
                _demo_run(qtbot, w, states)
                _model_run(qtbot, w, states)
                _settings_dialog(qtbot, w, states, today)
                _pixel_model_dialog(qtbot, w, states, pixel)
                review(qtbot, w, states, srv)
                import_and_export(qtbot, w, states, tmp_path)
                reports(qtbot, w, states)
                _unexpected_error(qtbot, w, states)
            finally:
                if not run_over(w):
                    shortcut(qtbot, w, "Shift+F5")
                    qtbot.waitUntil(lambda: run_over(w), timeout=LONG)
                w.close()
        _start_error(qtbot, states)
        _damaged_store(qtbot, states, tmp_path)
    finally:
        watcher.close()
    print("\nchecked:\n" + "\n".join(f"  {state}: {kind}" for state, kind in dict.fromkeys(watcher.checked)))
    report = watcher.report()
    print(report)
    assert not report, "\n" + report
    missing = watcher.missing(classes, SHOWN_ELSEWHERE)
    assert not missing, "windows, panels and parts no state showed:\n" + "\n".join(missing)


def _empty_store_and_menus(qtbot, w, states: States) -> None:
    """The first start: an empty store in every tab; each menu of the menu bar opened."""
    states.check("Live, idle, an empty store")
    for name in ("Review", "Reports"):
        tab(w, name)
        if name == "Reports":
            shown_button(w, "Refresh").click()
        states.check(f"{name}, an empty store")
    tab(w, "Live")
    for action in w.menuBar().actions():
        menu = action.menu()
        menus = [menu] + [a.menu() for a in menu.actions() if a.menu() is not None]  # Run ▸ Ask before
        for m in menus:
            m.popup(w.mapToGlobal(QPoint(10, 10)))
            qtbot.waitUntil(m.isVisible, timeout=3000)
            states.check(f"the {m.title().replace('&', '')} menu", m)
            m.hide()


def _task_files(qtbot, w, states: States, tmp_path, url: str) -> None:
    """Ctrl+O twice: a file with problems (the red banner), then a good one with long tasks and hops."""
    bad = tmp_path / ("tasks-exported-from-the-annotation-tool-on-the-night-shift-" + "x" * 60 + ".jsonl")
    bad.write_text("".join(f'{{"id": "t{i}", "task": "{TASK[:80]}", "url": 12}}\n' for i in range(8)))
    good = tmp_path / "long-tasks.jsonl"
    tasks = [{"id": "close-account-and-compare-with-the-help-centre-article", "task": TASK, "url": url,
              "hops": ["account.html", "help-centre-article-closing-your-account"]}]
    tasks += [{"id": f"task-{i}", "task": f"{i}: {TASK}", "url": url} for i in range(3)]
    good.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    for path, state in ((bad, "a task file with problems"), (good, "a task file loaded")):
        seen = states.look_at(qtbot, QFileDialog, "the Open tasks file dialog",
                              lambda dlg, path=path: choose_file(dlg, path))
        shortcut(qtbot, w, "Ctrl+O")
        states.reached(state, bool(seen), "the file dialog")
        states.check(state)
    states.reached("a task file loaded", w.live.task_bar.picker.isVisible(), "the task picker")


def _demo_run(qtbot, w, states: States) -> None:
    """The demo: running, one step (F10, paused), the Breakpoints and Plan tabs, a take-over with a human step."""
    w.live.task_bar.set_task("", "")  # the fields cleared: ticking Demo policy fills in the demo's task
    demo = next(b for b in w.findChildren(QCheckBox) if b.text() == "Demo policy (offline)")
    demo.click()
    shortcut(qtbot, w, "F5")
    qtbot.waitUntil(lambda: by_shortcut(w, "F6").isEnabled(), timeout=LONG)
    states.check("running (demo run)")
    wait(qtbot, w, lambda: has_button(w, "Reject"), "the demo's gate before Place order")
    w.live.log_panel.select_step(2)  # an earlier row while the gate asks: the way back to the question
    states.reached("the demo's gate, an earlier step shown", has_button(w, "Show the action asked about"),
                   "Show the action asked about")
    states.check("the demo's gate, an earlier step shown")
    shown_button(w, "Show the action asked about").click()
    shown_button(w, "Reject").click()
    seen = states.look_at(qtbot, QDialog, "the Model dialog, Demo policy ticked", lambda d: d.reject())
    menu_action(w, "Model…").trigger()
    states.reached("the Model dialog, Demo policy ticked", bool(seen), "the dialog")
    qtbot.waitUntil(lambda: run_over(w), timeout=LONG)
    shortcut(qtbot, w, "F10")
    qtbot.waitUntil(lambda: "paused" in status(w) and step_rows(w) >= 1, timeout=LONG)
    states.check("paused")
    tab(w, "Breakpoints")
    w.live.bp_panel.kind.setCurrentIndex(w.live.bp_panel.kind.findData("url"))
    w.live.bp_panel.value.setText("(unclosed|" + "checkout-and-payment-pages-of-the-shop-" * 3)
    shown_button(w, "Add").click()
    states.reached("Breakpoints, a bad pattern", shows(w, "Not added"), "the breakpoint's error")
    states.check("Breakpoints, a bad pattern")
    tab(w, "Plan")
    states.check("the Plan tab")
    tab(w, "Steps")
    shortcut(qtbot, w, "F8")  # take over, and scroll by hand: a human step
    wait(qtbot, w, lambda: has_button(w, "Hand back") and w.live.takeover.down_btn.isEnabled(),
         "take-over, the page looked at anew")
    shown_button(w, "Scroll down").click()
    wait(qtbot, w, lambda: any(w.live.log_panel.items[n].text(0).endswith("(you)") for n in w.live.log_panel.items),
          "the human step")
    states.check("take-over, a human step")
    seen = states.look_at(qtbot, QMessageBox, "closing mid-run: the question", lambda m: m.button(
        QMessageBox.Cancel).click())
    shortcut(qtbot, w, "Ctrl+Q")  # a run is going on: asked first; Cancel
    states.reached("closing mid-run: the question", bool(seen) and w.isVisible(), "the question")
    shortcut(qtbot, w, "Shift+F5")
    qtbot.waitUntil(lambda: run_over(w), timeout=LONG)
    shortcut(qtbot, w, "Ctrl+Shift+H")  # your own attempt at the demo's task (Run ▸ Attempt it yourself…)
    wait(qtbot, w, lambda: has_button(w, "Finish with this answer") and has_button(w, "Scroll down"),
         "your own attempt")
    w.live.attempt_bar.text.setText(TASK)
    states.check("your own attempt at the task, a long answer typed")
    shown_button(w, "Finish with this answer").click()
    qtbot.waitUntil(lambda: run_over(w), timeout=LONG)
    demo.click()


def _model_run(qtbot, w, states: States) -> None:
    """The model's run of the file's task (its hops, memory on): the gate with a 2,000-character thought and long
    evidence; editing it, an action that is no action; take-over at the gate."""
    w.live.task_bar.picker.activated.emit(0)  # the first task of the file, as a click in the picker picks it
    menu_action(w, "every").trigger()  # Run ▸ Ask before ▸ every: the gate asks before each action
    w.toolbar.memory.setValue(1)
    shortcut(qtbot, w, "F5")
    wait(qtbot, w, lambda: has_button(w, "Approve"), "the approval gate")
    qtbot.wait(300)
    states.reached("the approval gate", w.live.hop_strip.isVisible(), "the hops and the memory line")
    gate = w.live.approval
    states.whole("the approval gate", gate.title, gate.approve_btn, gate.reject_btn, gate.edit_btn)
    states.check("the approval gate")
    shown_button(w, "Edit the action").click()
    edit = w.live.approval.edit
    states.reached("the gate, editing", edit.isVisible() and "Click [" in edit.text(), "the action's edit field")
    states.check("the gate, editing")
    edit.setText(NOT_AN_ACTION)
    key(qtbot, edit, Qt.Key_Return)
    qtbot.wait(300)
    states.reached("the gate, editing, an error", w.live.approval.error.isVisible(), "the edit's error")
    states.whole("the gate, editing, an error", gate.edit, gate.error, gate.approve_btn, gate.reject_btn)
    states.check("the gate, editing, an error")
    key(qtbot, edit, Qt.Key_Escape)
    shortcut(qtbot, w, "F8")  # take over at the gate
    wait(qtbot, w, lambda: has_button(w, "Hand back") and w.live.takeover.down_btn.isEnabled(),
         "take-over, the page looked at anew")
    qtbot.wait(300)
    states.check("take-over at the gate")
    shortcut(qtbot, w, "Shift+F5")
    qtbot.waitUntil(lambda: run_over(w), timeout=LONG)
    w.toolbar.memory.setValue(0)
    w.live.log_panel.select_step(1)
    for name in ("Messages sent", "Raw reply", "Recorded page", "Step"):  # the step's details, each tab
        tab(w, name)
        qtbot.wait(200)
        states.check(f"the step's details: {name}")


def _settings_dialog(qtbot, w, states: States, today: ModelServer) -> None:
    """Model… (Ctrl+,): the dialog, its Presets menu, a failed connection test; then today's model, saved."""
    def use(dlg: QDialog):
        presets = dlg.model.presets_button
        states.look_at(qtbot, QMenu, "the Model dialog's Presets menu", lambda m: m.hide())
        presets.click()
        dlg.model.base_url_edit.setText("http://127.0.0.1:9/v1/" + "a-path-that-goes-on-" * 8)
        dlg.model.model_combo.setEditText(TODAYS_MODEL)
        dlg.check.test_button.click()
        qtbot.waitUntil(lambda: not dlg.is_busy() and bool(dlg.check.status_label.text()), timeout=LONG)
        states.check("the Model dialog, a failed connection test")
        dlg.model.base_url_edit.setText("ftp://not a server/" + "x" * 120)
        dlg.ok_button.click()  # OK with an address that is none: the dialog says why and stays
        states.reached("the Model dialog, a bad address on OK", dlg.error_label.isVisible(), "the error")
        states.check("the Model dialog, a bad address on OK")
        dlg.model.base_url_edit.setText(today.base_url)
        dlg.ok_button.click()
    seen = states.look_at(qtbot, QDialog, "the Model dialog", use)
    menu_action(w, "Model…").trigger()
    states.reached("the Model dialog", bool(seen), "the dialog")
    assert w.settings.model.model == TODAYS_MODEL, w.settings.model


def _pixel_model_dialog(qtbot, w, states: States, pixel: ModelServer) -> None:
    """Model… again: a pixel preset (Check pointing shown) whose check runs and opens its report; then the
    Simulator preset and its note. Cancelled: today's model stays."""
    def use(dlg: QDialog):
        section = dlg.model
        section.base_url_edit.setText(pixel.base_url)
        section.model_combo.setEditText("ui-tars-7b")
        section.dialect_field.load("uitars", "pixels")  # the mistake the check is there to find
        qtbot.waitUntil(dlg.pointing.isVisible, timeout=3000)
        dlg.pointing.button.click()
        qtbot.waitUntil(lambda: dlg.pointing.report is not None and dlg.pointing.report.isVisible(), timeout=LONG)
        qtbot.wait(200)
        states.check("the Model dialog, the pointing check's report")
        dlg.pointing.report.reject()
        states.check("the Model dialog, a pixel model checked")
        section.preset_actions["Simulator"].trigger()
        states.reached("the Model dialog, the Simulator preset", section.simulator_note.isVisible(), "its note")
        states.check("the Model dialog, the Simulator preset")
        dlg.reject()
    seen = states.look_at(qtbot, QDialog, "the Model dialog, a pixel preset", use)
    menu_action(w, "Model…").trigger()
    states.reached("the Model dialog, a pixel preset", bool(seen), "the dialog")
    assert w.settings.model.model == TODAYS_MODEL, w.settings.model


def _unexpected_error(qtbot, w, states: States) -> None:
    """The box over the window for an error nobody foresaw, with a long message."""
    from cockpit.ui import unexpected
    box = unexpected.show(w, AttributeError, AttributeError("'str' object has no attribute 'get' " + "in a slot " * 60))
    qtbot.waitUntil(box.isVisible, timeout=5000)
    states.watcher.check("an unexpected error", only=box, site="cockpit.ui.unexpected:show")
    box.close()


def _start_error(qtbot, states: States) -> None:
    """The box that says why the window cannot start, for a data folder with a long path."""
    from cockpit.ui.app import start_error_box
    box = start_error_box("the data folder /home/a-researcher-with-a-long-name/" + "nested-folder/" * 12
                          + "cockpit is not writable (permission denied); set COCKPIT_HOME to a folder you own")
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    states.watcher.check("the start error box", only=box, site="cockpit.ui.app:start_error_box")
    box.close()


def _damaged_store(qtbot, states: States, tmp_path) -> None:
    """The question for a run store that cannot be used, for a data folder with a long path."""
    from cockpit.ui.store_check import aside_box, store_problem
    from testkit import damaged
    home = tmp_path / ("a-researcher-with-a-long-name/" + "nested-folder/" * 8 + "cockpit")
    damaged.make(home, "garbage")
    problem = store_problem(home)
    assert problem is not None and problem.damage is not None, problem
    box = aside_box(problem, home / "set-aside-2026-12-01T23-59-59")
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    states.watcher.check("a damaged run store", only=box, site="cockpit.ui.store_check:aside_box")
    box.close()


def test_the_window_list_is_found_from_the_code():
    """The discovery the fit test relies on: the dialogs and panels, and the places that open Qt's windows."""
    classes, sites = widget_classes(), opening_sites()
    for name in ("cockpit.ui.review.compare_dialog.CompareDialog", "cockpit.ui.review.reask_dialog.ReaskDialog",
                 "cockpit.ui.settings.dialog.ModelSettingsDialog", "cockpit.ui.live.approval_panel.ApprovalPanel",
                 "cockpit.ui.main_window.MainWindow"):
        assert name in classes
    assert sites["cockpit.ui.review.panel:ReviewPanel.compare"] == {"QInputDialog"}
    assert sites["cockpit.ui.live.task_bar:TaskBar.choose_file"] == {"QFileDialog"}
    assert "QMessageBox" in sites["cockpit.ui.review.reask_dialog:open_reask"]


def test_the_checker_names_what_does_not_fit(qtbot):
    """fit_violations on a small panel: a cut label, a squeezed button, a child cut off by its parent and a
    too-wide row are named; an elided label with its full text in the tooltip is not."""
    from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout

    from cockpit.ui.elide import ElidedLabel
    top = QWidget()
    lay = QVBoxLayout(top)
    cut = QLabel(CATEGORY)
    cut.setMinimumWidth(1)
    cut.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
    elided = ElidedLabel(CATEGORY)
    button = QPushButton(BUTTON)
    button.setMinimumWidth(1)
    button.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
    row = QHBoxLayout()
    row.addWidget(button)
    for w in (cut, elided):
        lay.addWidget(w)
    lay.addLayout(row)
    box = QWidget()
    box.setFixedSize(120, 40)
    lay.addWidget(box)
    clipped = QLabel("ok", box)
    clipped.setGeometry(100, 10, 60, 20)  # runs past its parent's right edge
    qtbot.addWidget(top)
    top.resize(300, 200)
    top.show()
    qtbot.waitExposed(top)
    found = fit_violations(top, QSize(1024, 700))
    assert any(v.startswith("QLabel 'Misread a confirmation dialog") and "no elision" in v for v in found), found
    assert any(v.startswith("QPushButton 'Delete my account") and "text cut" in v for v in found)
    assert any(v.startswith("QLabel 'ok'") and "cut off by its QWidget" in v for v in found), found
    assert not any("ElidedLabel" in v for v in found), found
    wide = QLabel("x" * 400)  # no elision, no wrap: its text is its minimum width
    lay.addWidget(wide)
    found = fit_violations(top, QSize(1024, 700))
    assert any("wants at least" in v and "QLabel 'xxxx" in v for v in found), found
