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
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabBar,
    QTreeWidget,
    QWidget,
)

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.localserver import LocalSite
from cockpit.core.settings import Settings
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.assignments import assign
from cockpit.ui.main_window import MainWindow
from cockpit.ui.plaintext import shown_text
from cockpit.ui.review.reason_dialog import ReasonDialog
from testkit.fakeruns import make_run
from tests.lookahead_helpers import mark_in, observation
from tests.ui.every_window import Watcher, opening_sites, widget_classes
from tests.ui.fits import SCREEN, fit_violations, frame_violations
from tests.ui.windowtools import choose_file, right_click, when_shown

LONG = 120_000
TASK = ("Find the account settings page of the shop, read every paragraph about closing an account, compare what "
        "it says about refunds of open orders, saved addresses, stored payment cards and newsletter subscriptions "
        "with the help centre's article, and only then delete the account permanently; report what was lost.")
assert len(TASK) >= 300
ANNOTATOR = "Maximiliane Theodora Featherstonehaugh-Wolfeschlegelsteinhausen (night shift)"
CATEGORY = "Misread a confirmation dialog as a success page after an irreversible action"
OTHER = "Bartholomew Octavian Montgomery-Smythe-Vanderbilt (second annotator)"
MODEL = "an-agent-model-with-a-rather-long-name-instruct-2026-11-preview-q4"
TODAYS_MODEL = "todays-model-with-an-equally-long-name-instruct-2027-01-preview-q8"
BUTTON = "Delete my account permanently, with every order, address and saved card, right now"
THOUGHT = ("The settings page lists several ways to close the account. " * 12
           + "I looked at http://shop.example/help/articles/closing-your-account-and-what-happens-to-orders"
             "-addresses-cards-and-subscriptions-after-deletion-in-every-region-and-currency and it says the "
             "refunds are kept. " + "Deleting now is what the task asks for, so I click the button. " * 30)[:2000]
PAGE = f"""<!doctype html><html><head><title>Account settings</title></head><body>
<h1>Account settings</h1><p>Closing your account deletes every order, address and card.</p>
<form method="post" action="/delete-account"><button type="submit" name="delete">{BUTTON}</button></form>
</body></html>"""
#: Parts of panels that no state here shows, each laid out and checked in the test named.
COMPACT = ("on a 1024x700 screen Review is compact (cockpit/ui/review/layout.py: one-line header_line and answer_line, "
           "←/→ for the filmstrip); tests/ui/review/test_review_dialogs_fit.py checks them at 1600x1000")
PLANNING = "a planning run's gate: tests/ui/live/test_planning_window.py lays it out at 1024x700 and checks it"
SHOWN_ELSEWHERE = {
    "cockpit.ui.review.run_viewer.RunViewer.header": COMPACT,
    "cockpit.ui.review.run_viewer.RunViewer.answer": COMPACT,
    "cockpit.ui.review.run_viewer.RunViewer.filmstrip": COMPACT,
    "cockpit.ui.live.approval_panel.ApprovalPanel.alternatives": PLANNING,
    "cockpit.ui.live.approval_panel.ApprovalPanel.prediction": PLANNING,
    "cockpit.ui.live.plan_table.PlanTable.pick_btn": PLANNING,
}
NOT_AN_ACTION = ("Clack [99] on the button that says delete everything now, please, and then on the one "
                 "beside it, and after that on whatever the page shows next")


# ---------- driving the window as a person does ----------
def _menu_action(w, text: str) -> QAction:
    for a in w.findChildren(QAction):
        if a.text().replace("&", "") == text:
            return a
    raise AssertionError(f"no action {text!r}")


def _button(w, start: str, visible: bool = True) -> QPushButton:
    for b in w.findChildren(QPushButton):
        if b.text().replace("&", "").startswith(start) and (b.isVisible() or not visible):
            return b
    raise AssertionError(f"no shown button {start!r}")


def _has_button(w, start: str) -> bool:
    return any(b.isVisible() and b.text().replace("&", "").startswith(start) for b in w.findChildren(QPushButton))


def _tab(w, text: str) -> None:
    for bar in w.findChildren(QTabBar):
        for i in range(bar.count()):
            if bar.tabText(i).replace("&", "") == text and bar.isVisible():
                bar.setCurrentIndex(i)
                QApplication.processEvents()
                return
    raise AssertionError(f"no tab {text!r}")


def _status(w) -> str:
    return " | ".join(lab.text() for lab in w.statusBar().findChildren(QLabel) if lab.isVisible())


def _shows(w, words: str) -> bool:
    """Some shown label says `words` (its text, or the full text of an elided one)."""
    return any(lab.isVisible() and (words in shown_text(lab.text()) or words in shown_text(lab.toolTip()))
               for lab in w.findChildren(QLabel))


def _field(w, placeholder: str) -> QLineEdit:
    return next(e for e in w.findChildren(QLineEdit) if e.placeholderText().startswith(placeholder))


def _by_shortcut(w, keys: str) -> QAction:
    return next(a for a in w.findChildren(QAction) if a.shortcut().toString() == keys)


def _shortcut(qtbot, w, keys: str) -> None:
    """Trigger the window's action with this shortcut ("F5", "Shift+F5"), as the key or the menu would, once it
    is enabled (the browser warming up keeps Run greyed for a moment)."""
    def enabled():
        return [a for a in w.findChildren(QAction) if a.shortcut().toString() == keys and a.isEnabled()]
    _wait(qtbot, w, lambda: bool(enabled()), f"{keys} enabled")
    enabled()[0].trigger()
    QApplication.processEvents()


def _key(qtbot, widget, key, mod=Qt.NoModifier):
    qtbot.keyClick(widget, key, mod)
    QApplication.processEvents()


def _wait(qtbot, w, cond, what: str) -> None:
    """Wait for `cond`; if it never comes, say what the window showed (status bar, error lines)."""
    try:
        qtbot.waitUntil(cond, timeout=LONG)
    except Exception:
        errors = [lab.text()[:200] for lab in w.findChildren(QLabel) if lab.isVisible() and lab.wordWrap()
                  and lab.text()]
        raise AssertionError(f"never reached: {what}; status: {_status(w)}; shown: {errors[:6]}") from None


def _run_over(w) -> bool:
    """Run (F5) reads Run and can be pressed, Stop (Shift+F5) cannot: no run, not even stopping."""
    run = _by_shortcut(w, "F5")
    return run.isEnabled() and run.text() == "Run" and not _by_shortcut(w, "Shift+F5").isEnabled()


def _step_rows(w) -> int:
    trees = [t for t in w.findChildren(QTreeWidget) if t.isVisible()]
    return max((t.topLevelItemCount() for t in trees), default=0)


def pointer(body):
    """A pixel model for the pointing check, answering on UI-TARS's 0..1000 grid while the preset says pixels:
    every target clicked at the grid's middle, so the report has misses to show."""
    return Reply("Thought: the target is in the middle of the screen, I think.\n"
                 "Action: click(start_box='<|box_start|>(500,500)<|box_end|>')")


def agent(body):
    """The agent's model: 2,000 characters of thought, then a click on the long delete button."""
    text = observation(body)
    return Reply(f"Thought: {THOUGHT}\nAction: Click [{mark_in(text, 'Delete my account')}]",
                 prompt_tokens=1200, completion_tokens=600)


class States:
    """The watcher's checks, each state judged from a 1024x700 window."""

    def __init__(self, w, watcher: Watcher):
        self.w, self.watcher = w, watcher

    def check(self, state: str, top: QWidget | None = None, *, site: str = "") -> None:
        """Every visible window (or `top`, and credit `site` for it) laid out and checked."""
        self.watcher.check(state, only=top, site=site)
        if top is None:  # the main window's minimum leaves room for a window manager's frame
            print(f"  {state}: minimum {self.w.minimumSizeHint().width()}x{self.w.minimumSizeHint().height()}")
            self.watcher.violations.setdefault(state, []).extend(frame_violations(self.w))
        self.w.resize(SCREEN)  # each state is judged from 1024x700, not from what the previous one left

    def whole(self, state: str, *widgets: QWidget) -> None:
        """Each of `widgets` all in view at 1024x700, none of it scrolled away (the Live panels scroll only in a
        window shorter than that, issue #38)."""
        for part in widgets:
            if part.visibleRegion().boundingRect() != part.rect():
                text = part.text() if hasattr(part, "text") else ""
                self.watcher.violations.setdefault(state, []).append(
                    f"{type(part).__name__} {text!r}: {part.visibleRegion().boundingRect().getRect()} of it "
                    f"in view, not all of {part.rect().getRect()}")

    def reached(self, state: str, seen: bool, what: str) -> None:
        """A state is judged only once a person would see it; if not, that is said."""
        if not seen:
            self.watcher.violations.setdefault(state, []).append(f"state not reached: {what} not shown")

    def look_at(self, qtbot, kind: type, state: str, then) -> list:
        """When a window of `kind` opens (a modal dialog or a menu waits for the person), check it, then
        `then(window)` (answer it). Returns a list that holds the window once it was seen."""
        seen = []

        def find():
            return next((t for t in QApplication.topLevelWidgets() if isinstance(t, kind) and t.isVisible()
                         and t not in seen), None)

        def act(win):
            seen.append(win)
            try:
                qtbot.wait(100)
                self.check(state)
            except Exception as e:  # said, and the window still answered: a modal one would wait for ever
                self.watcher.violations.setdefault(state, []).append(f"checking it raised {e!r}")
            finally:
                then(win)
        when_shown(qtbot, find, act)
        return seen


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
                _review(qtbot, w, states, srv)
                _import_and_export(qtbot, w, states, tmp_path)
                _reports(qtbot, w, states)
            finally:
                if not _run_over(w):
                    _shortcut(qtbot, w, "Shift+F5")
                    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
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
    for tab in ("Review", "Reports"):
        _tab(w, tab)
        if tab == "Reports":
            _button(w, "Refresh").click()
        states.check(f"{tab}, an empty store")
    _tab(w, "Live")
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
        _shortcut(qtbot, w, "Ctrl+O")
        states.reached(state, bool(seen), "the file dialog")
        states.check(state)
    states.reached("a task file loaded", w.live.task_bar.picker.isVisible(), "the task picker")


def _demo_run(qtbot, w, states: States) -> None:
    """The demo: running, one step (F10, paused), the Breakpoints and Plan tabs, a take-over with a human step."""
    w.live.task_bar.set_task("", "")  # the fields cleared: ticking Demo policy fills in the demo's task
    demo = next(b for b in w.findChildren(QCheckBox) if b.text() == "Demo policy (offline)")
    demo.click()
    _shortcut(qtbot, w, "F5")
    qtbot.waitUntil(lambda: _by_shortcut(w, "F6").isEnabled(), timeout=LONG)
    states.check("running (demo run)")
    _wait(qtbot, w, lambda: _has_button(w, "Reject"), "the demo's gate before Place order")
    w.live.log_panel.select_step(2)  # an earlier row while the gate asks: the way back to the question
    states.reached("the demo's gate, an earlier step shown", _has_button(w, "Show the action asked about"),
                   "Show the action asked about")
    states.check("the demo's gate, an earlier step shown")
    _button(w, "Show the action asked about").click()
    _button(w, "Reject").click()
    seen = states.look_at(qtbot, QDialog, "the Model dialog, Demo policy ticked", lambda d: d.reject())
    _menu_action(w, "Model…").trigger()
    states.reached("the Model dialog, Demo policy ticked", bool(seen), "the dialog")
    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
    _shortcut(qtbot, w, "F10")
    qtbot.waitUntil(lambda: "paused" in _status(w) and _step_rows(w) >= 1, timeout=LONG)
    states.check("paused")
    _tab(w, "Breakpoints")
    w.live.bp_panel.kind.setCurrentIndex(w.live.bp_panel.kind.findData("url"))
    w.live.bp_panel.value.setText("(unclosed|" + "checkout-and-payment-pages-of-the-shop-" * 3)
    _button(w, "Add").click()
    states.reached("Breakpoints, a bad pattern", _shows(w, "Not added"), "the breakpoint's error")
    states.check("Breakpoints, a bad pattern")
    _tab(w, "Plan")
    states.check("the Plan tab")
    _tab(w, "Steps")
    _shortcut(qtbot, w, "F8")  # take over, and scroll by hand: a human step
    _wait(qtbot, w, lambda: _has_button(w, "Hand back"), "take-over")
    _button(w, "Scroll down").click()
    _wait(qtbot, w, lambda: any(w.live.log_panel.items[n].text(0).endswith("(you)") for n in w.live.log_panel.items),
          "the human step")
    states.check("take-over, a human step")
    _shortcut(qtbot, w, "Shift+F5")
    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
    demo.click()


def _model_run(qtbot, w, states: States) -> None:
    """The model's run of the file's task (its hops, memory on): the gate with a 2,000-character thought and long
    evidence; editing it, an action that is no action; take-over at the gate."""
    w.live.task_bar.picker.activated.emit(0)  # the first task of the file, as a click in the picker picks it
    _menu_action(w, "every").trigger()  # Run ▸ Ask before ▸ every: the gate asks before each action
    w.toolbar.memory.setValue(1)
    _shortcut(qtbot, w, "F5")
    _wait(qtbot, w, lambda: _has_button(w, "Approve"), "the approval gate")
    qtbot.wait(300)
    states.reached("the approval gate", w.live.hop_strip.isVisible(), "the hops and the memory line")
    gate = w.live.approval
    states.whole("the approval gate", gate.title, gate.approve_btn, gate.reject_btn, gate.edit_btn)
    states.check("the approval gate")
    _button(w, "Edit the action").click()
    edit = w.live.approval.edit
    states.reached("the gate, editing", edit.isVisible() and "Click [" in edit.text(), "the action's edit field")
    states.check("the gate, editing")
    edit.setText(NOT_AN_ACTION)
    _key(qtbot, edit, Qt.Key_Return)
    qtbot.wait(300)
    states.reached("the gate, editing, an error", w.live.approval.error.isVisible(), "the edit's error")
    states.whole("the gate, editing, an error", gate.edit, gate.error, gate.approve_btn, gate.reject_btn)
    states.check("the gate, editing, an error")
    _key(qtbot, edit, Qt.Key_Escape)
    _shortcut(qtbot, w, "F8")  # take over at the gate
    _wait(qtbot, w, lambda: _has_button(w, "Hand back"), "take-over")
    qtbot.wait(300)
    states.check("take-over at the gate")
    _shortcut(qtbot, w, "Shift+F5")
    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
    w.toolbar.memory.setValue(0)
    w.live.log_panel.select_step(1)
    for tab in ("Messages sent", "Raw reply", "Recorded page", "Step"):  # the step's details, each tab
        _tab(w, tab)
        qtbot.wait(200)
        states.check(f"the step's details: {tab}")


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
    _menu_action(w, "Model…").trigger()
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
    _menu_action(w, "Model…").trigger()
    states.reached("the Model dialog, a pixel preset", bool(seen), "the dialog")
    assert w.settings.model.model == TODAYS_MODEL, w.settings.model


def _import_and_export(qtbot, w, states: States, tmp_path) -> None:
    """File → Import runs… (Ctrl+I) with a path that is not there, as WebVoyager folders, each Browse… opened
    and cancelled; File → Export training data… (Ctrl+Shift+E) with a date that is none, its Browse… too."""
    _active(qtbot, w)
    _shortcut(qtbot, w, "Ctrl+I")
    dlg = w._import_dialog
    qtbot.waitUntil(lambda: dlg is not None and dlg.isVisible(), timeout=5000)
    dlg.kind.setCurrentIndex(dlg.kind.findData("webvoyager"))
    dlg.path.setText(str(tmp_path / ("results-of-the-overnight-webvoyager-run-on-643-tasks-" + "y" * 80)))
    qtbot.waitUntil(lambda: bool(dlg.found.fullText()), timeout=10_000)
    states.check("Import runs, WebVoyager folders, a path that is not there")
    for button in (dlg.folder_btn, dlg.file_btn, dlg.tasks_btn, dlg.answers_btn):
        seen = states.look_at(qtbot, QFileDialog, f"Import runs, {button.text().replace('&', '')}",
                              lambda d: d.reject())
        button.click()
        states.reached(f"Import runs, {button.text().replace('&', '')}", bool(seen), "the file dialog")
    dlg.kind.setCurrentIndex(dlg.kind.findData("browser-use"))
    states.reached("Import runs, browser-use histories", dlg.agent.isVisible() and dlg.task.isVisible(),
                   "the Agent and Task rows")
    states.check("Import runs, browser-use histories")
    _import_a_bundle(qtbot, w, states, dlg, tmp_path)
    dlg.close()

    def use(dlg):
        qtbot.waitUntil(lambda: "selected" in dlg.counts.fullText(), timeout=LONG)
        dlg.runs.since.setText("2026-13-45")
        qtbot.waitUntil(lambda: "YYYY-MM-DD" in dlg.error.fullText(), timeout=5000)
        states.check("Export training data, a date that is none")
        # the progress bar as a count or an export shows it: on this small store the background job is done
        # before a check could see it, so it is shown as they show it
        dlg.progress.setRange(0, 643)
        dlg.progress.setValue(212)
        dlg.progress.setVisible(True)
        states.check("Export training data, counting")
        dlg.progress.setVisible(False)
        seen = states.look_at(qtbot, QFileDialog, "Export training data, Browse…", lambda d: d.reject())
        dlg.browse.click()
        states.reached("Export training data, Browse…", bool(seen), "the folder dialog")
        dlg.reject()
    from cockpit.ui.export_training import ExportTrainingDialog
    seen = states.look_at(qtbot, ExportTrainingDialog, "Export training data", use)
    _shortcut(qtbot, w, "Ctrl+Shift+E")
    states.reached("Export training data", bool(seen), "the dialog")


def _import_a_bundle(qtbot, w, states: States, dlg, tmp_path) -> None:
    """A bundle of the store's own runs imported while another program holds the store's write lock (the
    dialog busy: its progress and Cancel), then the lock let go: the report, every run already there."""
    import sqlite3

    from cockpit.core.store.bundle import write_bundle
    with Store(w.store_root) as s:
        bundle = write_bundle(s, [r["id"] for r in s.run_summaries()], tmp_path / ("night-shift-" + "z" * 90 + ".zip"))
    dlg.kind.setCurrentIndex(dlg.kind.findData("bundle"))
    dlg.path.setText(str(bundle))
    other = sqlite3.connect(w.store_root / "cockpit.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program writing: the import waits for it
    try:
        dlg.import_btn.click()
        states.reached("Import runs, importing", dlg.progress.isVisible(), "the progress bar")
        states.check("Import runs, importing")
    finally:
        other.execute("ROLLBACK")
        other.close()
    qtbot.waitUntil(lambda: not dlg.busy and dlg.message.isVisible(), timeout=LONG)
    states.reached("Import runs, the report", bool(dlg.report.toPlainText()), "the report")
    states.check("Import runs, the report")


def _review(qtbot, w, states: States, srv: ModelServer) -> None:
    _tab(w, "Review")
    with Store(w.store_root) as s:  # another run of the task, by another model, to compare with
        model_run = next(r["id"] for r in s.run_summaries() if r["task"] == TASK)
        make_run(s, steps=3, task=TASK, model=MODEL + "-second", answer="The account is gone. " * 12)
    w.review.refresh()
    w.review.show_run(model_run)
    qtbot.wait(1500)  # the run's steps and screenshots load in the background
    states.check("Review, a run selected")
    _labels(qtbot, w, states)
    _corrections(qtbot, w, states)
    _compare(qtbot, w, states)
    _reask(qtbot, w, states, model_run, srv)
    _queue_and_adjudication(qtbot, w, states)
    _interrupted_run(qtbot, w, states)


def _active(qtbot, w) -> None:
    """The window active again (after a dialog): the keys a person presses go to it."""
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=5000)


def _labels(qtbot, w, states: States) -> None:
    _active(qtbot, w)
    table = w.review.browser.table
    table.setFocus()
    seen = states.look_at(qtbot, ReasonDialog, "Review, why is the run not executable?",
                          lambda d: _key(qtbot, d.choices, Qt.Key_1))
    _key(qtbot, table, Qt.Key_D)  # not executable: asks why; 1 picks CAPTCHA
    states.reached("Review, why is the run not executable?", bool(seen), "the question")
    qtbot.waitUntil(lambda: not any(t.isVisible() for t in seen), timeout=5000)
    _active(qtbot, w)
    states.reached("Review, a run not executable", _shows(w, "not executable (CAPTCHA)"), "the label")
    states.check("Review, a run not executable")
    _key_points(qtbot, w, states)
    category = next(c for c in w.findChildren(QComboBox) if c.isVisible() and c.toolTip().startswith("Failure cat"))
    category.setEditText(CATEGORY)
    table.setFocus()
    _key(qtbot, table, Qt.Key_F)
    states.reached("Review, a label given", _shows(w, "fail"), "the label (fail)")
    states.check("Review, a label given")
    _key(qtbot, table, Qt.Key_W)
    states.reached("Review, the W correction hint", _shows(w, "wrong target"), "the wrong-target hint")
    states.check("Review, the W correction hint")
    _key(qtbot, table, Qt.Key_Q)
    states.reached("Review, the Q judgement", _shows(w, "correct"), "the step's judgement (correct)")
    states.check("Review, the Q judgement")


def _key_points(qtbot, w, states: States) -> None:
    """K: the task's key points typed (long ones), then one ticked at the step shown (Ctrl+1)."""
    table = w.review.browser.table

    def typed(d):
        d.setTextValue("\n".join(f"{n}. {CATEGORY} ({TASK[:80]})" for n in range(1, 7)))
        d.accept()
    seen = states.look_at(qtbot, QInputDialog, "Review, the task's key points typed", typed)
    table.setFocus()
    _key(qtbot, table, Qt.Key_K)
    states.reached("Review, the task's key points typed", bool(seen), "the question")
    qtbot.waitUntil(lambda: len(w.review.key_points.boxes) == 6, timeout=5000)
    _active(qtbot, w)
    table.setFocus()
    _key(qtbot, table, Qt.Key_1, Qt.ControlModifier)
    states.reached("Review, a key point ticked", _shows(w, "1 of 6 met"),
                   f"the count of ticks (the footer said {w.review.label_bar.status.text()!r}, the box "
                   f"{w.review.key_points.summary.text()!r})")
    states.check("Review, a key point ticked")


def _corrections(qtbot, w, states: States) -> None:
    """A right-click on a box (its menu), then M and a box drawn (what is it?)."""
    _active(qtbot, w)
    view = w.review.viewer.view
    qtbot.waitUntil(view.has_screenshot, timeout=LONG)
    mark = view.marks()[0]
    x, y, bw, bh = mark.bbox
    at = view.mapFromScene(x + bw / 2, y + bh / 2)
    seen = states.look_at(qtbot, QMenu, "Review, a box's right-click menu", lambda m: m.hide())
    right_click(view, QPoint(at.x(), at.y()))
    states.reached("Review, a box's right-click menu", bool(seen), "the menu")
    seen = states.look_at(qtbot, QInputDialog, "Review, what is the missing mark?", lambda d: d.reject())
    view.setFocus()
    _key(qtbot, view, Qt.Key_M)
    a, b = view.mapFromScene(20, 20), view.mapFromScene(160, 70)
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=a)
    qtbot.mouseMove(view.viewport(), b)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=b)
    states.reached("Review, what is the missing mark?", bool(seen), "the question")


def _compare(qtbot, w, states: States) -> None:
    """Compare with… -> the picker -> OK -> the two runs side by side, then Close."""
    seen = states.look_at(qtbot, QInputDialog, "Review, the Compare with picker", lambda d: d.accept())
    _button(w, "Compare with").click()
    states.reached("Compare runs", bool(seen), "the picker")
    dlg = next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "CompareDialog" and t.isVisible())
    qtbot.wait(300)
    states.check("Compare runs")
    _button(dlg, "Close").click()


def _reask(qtbot, w, states: States, model_run: str, srv: ModelServer) -> None:
    """Re-ask at step 1 of the model's run: the reply; then, its server gone, the failed call and one click for
    today's model; and a human's step, which cannot be re-asked (a message box says why)."""
    def dialog():
        return next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "ReaskDialog" and t.isVisible())
    w.review.go(0)
    _button(w, "Re-ask this step").click()
    dlg = dialog()
    qtbot.wait(300)
    states.check("Re-ask")
    _button(dlg, "Send").click()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=LONG)
    states.check("Re-ask, the new reply")
    dlg.close()
    srv.stop()  # the run's model server is gone
    _button(w, "Re-ask this step").click()
    dlg = dialog()
    _button(dlg, "Send").click()
    qtbot.waitUntil(lambda: _has_button(dlg, "Re-ask with the current"), timeout=LONG)
    states.check("Re-ask after a failed call: the run's model server is gone")
    _button(dlg, "Re-ask with the current").click()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=LONG)
    states.check("Re-ask with the current model settings")
    dlg.close()
    _button(w, "Branch from this step").click()  # the run's server is gone: said, the current model offered
    box = w.branch_question
    qtbot.waitUntil(lambda: box is not None and box.isVisible(), timeout=LONG)
    states.check("Branch from a step: the run's model server is gone")
    box.button(QMessageBox.Cancel).click()
    with Store(w.store_root) as s:
        human = next((r["id"], st["step"]) for r in s.run_summaries() for st in s.steps(r["id"], with_request=False)
                     if st["actor"] == "human")
    w.review.show_run(human[0])
    w.review.go(next(i for i, st in enumerate(w.review.viewer.steps) if st["step"] == human[1]))
    seen = states.look_at(qtbot, QMessageBox, "Re-ask of a human's step: why not", lambda m: m.accept())
    _button(w, "Re-ask this step").click()
    states.reached("Re-ask of a human's step: why not", bool(seen), "the message")


def _queue_and_adjudication(qtbot, w, states: States) -> None:
    table = w.review.browser.table
    with Store(w.store_root) as s:  # a batch for this annotator; a second annotator and a judge disagree
        runs = [r["id"] for r in s.run_summaries()]
        assign(s, "night-shift-pilot-batch-with-a-long-name", runs, [ANNOTATOR, OTHER], 2,
               "Success only when the final page shows the account deleted and nothing else was changed. " * 6)
        for run in runs:
            L.set_label(s, run, OTHER, "success", comment="the account page said it was gone " * 6)
            L.set_verdict(s, run, MODEL, 3, "cockpit-judge-1", 1, reply="SUCCESS: it was deleted " * 10)
    w.review.refresh()
    w.review.next_unlabelled()
    _button(w, "Guideline").click()
    states.reached("Review, a batch and its guideline", w.review.label_bar.queue_bar.isVisible(), "the queue bar")
    states.check("Review, a batch and its guideline")
    _button(w, "To adjudicate").click()
    qtbot.wait(500)
    table.setFocus()
    rect = table.visualRect(table.model().index(0, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.wait(1000)
    states.reached("Review, adjudication", _has_button(w, "Record adjudicated verdict"), "Record adjudicated verdict")
    states.check("Review, adjudication")


def _interrupted_run(qtbot, w, states: States) -> None:
    """A run whose process died, imported with its marked screenshots only: Resume and Close run, and the note
    that the screenshot is the marked one; nobody labels it, so Reports counts it a failure and says so."""
    from cockpit.core.store.newrun import NewRun
    from testkit.fakeruns import screenshot
    with Store(w.store_root) as s:
        rid = s.new_run(NewRun(TASK, "https://shop.example/account", model=MODEL))
        png, marks = screenshot(5)
        files = s.write_step_files(rid, 1, marked=png, marks=marks)
        s.commit_step(rid, dict(step=1, thought=THOUGHT, action="Click [3]", action_text="Click [3]", **files))
        s.finish_run(rid, "interrupted")
    _button(w, "To adjudicate").click()  # out of adjudication: every run
    w.review.refresh()
    w.review.show_run(rid)
    qtbot.wait(1000)
    states.reached("Review, an interrupted run", _has_button(w, "Resume") and _has_button(w, "Close run"),
                   "Resume and Close run")
    states.check("Review, an interrupted run")


def _reports(qtbot, w, states: States) -> None:
    from cockpit.core.review.canary_audit import FOLDER, KNOWN
    from cockpit.core.store.newrun import NewRun
    with Store(w.store_root / FOLDER) as canaries:  # the judge said success on failed canaries: it is flagged
        for name in ("answer-without-doing-the-task-at-all", "captcha-blocked-on-the-security-check-page"):
            rid = canaries.new_run(NewRun(TASK, "http://127.0.0.1/demo", task_id=name))
            canaries.finish_run(rid, "answered", answer="done")
            L.set_label(canaries, rid, KNOWN, "fail")
            L.set_verdict(canaries, rid, MODEL, 3, "cockpit-judge-1", 1)
    with Store(w.store_root) as s:  # a run both annotators found not executable, with long reasons
        blocked = make_run(s, steps=1, task=TASK, model=MODEL)
        L.set_label(s, blocked, ANNOTATOR, L.NOT_EXECUTABLE, category="Login wall: " + CATEGORY)
        L.set_label(s, blocked, OTHER, L.NOT_EXECUTABLE, category="Blocked region: " + CATEGORY)
    _tab(w, "Reports")
    _button(w, "Refresh").click()
    audit = w.reports.audit
    qtbot.waitUntil(lambda: not audit.busy, timeout=LONG)
    states.reached("Reports, judges audited, one flagged", "FLAGGED" in audit.status.text(), "the flagged judge")
    states.check("Reports, labels and verdicts")
    audit.split.setFocus()
    audit.split.setCurrentIndex(audit.split.findData("agent"))
    qtbot.waitUntil(lambda: not audit.busy, timeout=LONG)
    audit.figure.setCurrentIndex(audit.figure.findData("gap"))
    w.reports.findChild(QScrollArea).ensureWidgetVisible(audit.chart)
    states.check("Reports, judges audited by agent, the gap's intervals drawn")
    _tab(w, "Live")


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
