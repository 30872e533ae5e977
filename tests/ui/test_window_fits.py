"""Issue #30, "done when": the window laid out at 1024x700 in every state, with long data everywhere.

Driven as a person drives it: the task and URL typed into the task bar, the toolbar's actions by their shortcut
(F5 Run, F6 Pause, F8 Take over, Shift+F5 Stop), buttons by their text, tabs by their text, keys in Review.
Real Chromium, a real store, and one stand-in: a scripted OpenAI-compatible model server on 127.0.0.1 whose
agent thinks 2,000 characters and clicks a button whose name makes the risk's evidence long, on a local page
whose address is 200 characters long. The task is 300 characters, the annotator's and the categories' names
long. In each state, `fit_violations` lists what a person would see wrong: the window grown past the screen, a
widget outside it, text cut without "…" and the full text in a tooltip.
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTabBar,
    QTableView,
    QWidget,
)

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.localserver import LocalSite
from cockpit.core.settings import Settings
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.ui.main_window import MainWindow
from cockpit.ui.plaintext import shown_text
from tests.lookahead_helpers import mark_in, observation
from tests.ui.fits import SCREEN, fit_violations

LONG = 120_000
TASK = ("Find the account settings page of the shop, read every paragraph about closing an account, compare what "
        "it says about refunds of open orders, saved addresses, stored payment cards and newsletter subscriptions "
        "with the help centre's article, and only then delete the account permanently; report what was lost.")
assert len(TASK) >= 300
ANNOTATOR = "Maximiliane Theodora Featherstonehaugh-Wolfeschlegelsteinhausen (night shift)"
CATEGORY = "Misread a confirmation dialog as a success page after an irreversible action"
OTHER = "Bartholomew Octavian Montgomery-Smythe-Vanderbilt (second annotator)"
MODEL = "an-agent-model-with-a-rather-long-name-instruct-2026-11-preview-q4"
BUTTON = "Delete my account permanently, with every order, address and saved card, right now"
THOUGHT = ("The settings page lists several ways to close the account. " * 12
           + "I looked at http://shop.example/help/articles/closing-your-account-and-what-happens-to-orders"
             "-addresses-cards-and-subscriptions-after-deletion-in-every-region-and-currency and it says the "
             "refunds are kept. " + "Deleting now is what the task asks for, so I click the button. " * 30)[:2000]
PAGE = f"""<!doctype html><html><head><title>Account settings</title></head><body>
<h1>Account settings</h1><p>Closing your account deletes every order, address and card.</p>
<form method="post" action="/delete-account"><button type="submit" name="delete">{BUTTON}</button></form>
</body></html>"""


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


def _shortcut(qtbot, w, keys: str) -> None:
    """Trigger the window's action with this shortcut ("F5", "Shift+F5"), as the key or the menu would, once it
    is enabled (the browser warming up keeps Run greyed for a moment)."""
    def enabled():
        return [a for a in w.findChildren(QAction) if a.shortcut().toString() == keys and a.isEnabled()]
    _wait(qtbot, w, lambda: bool(enabled()), f"{keys} enabled")
    enabled()[0].trigger()
    QApplication.processEvents()


def _key(qtbot, w, key, mod=Qt.NoModifier):
    qtbot.keyClick(w, key, mod)
    QApplication.processEvents()


def _wait(qtbot, w, cond, what: str) -> None:
    """Wait for `cond`; if it never comes, say what the window showed (status bar, error lines)."""
    try:
        qtbot.waitUntil(cond, timeout=LONG)
    except Exception:
        errors = [lab.text()[:200] for lab in w.findChildren(QLabel) if lab.isVisible() and lab.wordWrap()
                  and lab.text()]
        raise AssertionError(f"never reached: {what}; status: {_status(w)}; shown: {errors[:6]}") from None


def _by_shortcut(w, keys: str) -> QAction:
    return next(a for a in w.findChildren(QAction) if a.shortcut().toString() == keys)


def _run_over(w) -> bool:
    """Run (F5) reads Run and can be pressed, Stop (Shift+F5) cannot: no run, not even stopping."""
    run = _by_shortcut(w, "F5")
    return run.isEnabled() and run.text() == "Run" and not _by_shortcut(w, "Shift+F5").isEnabled()


def _step_rows(w) -> int:
    from PySide6.QtWidgets import QTreeWidget
    trees = [t for t in w.findChildren(QTreeWidget) if t.isVisible()]
    return max((t.topLevelItemCount() for t in trees), default=0)


def agent(body):
    """The agent's model: 2,000 characters of thought, then a click on the long delete button."""
    text = observation(body)
    return Reply(f"Thought: {THOUGHT}\nAction: Click [{mark_in(text, 'Delete my account')}]",
                 prompt_tokens=1200, completion_tokens=600)


class States:
    """Each state's violations, in the order they were reached."""

    def __init__(self, w):
        self.w, self.seen = w, {}

    def check(self, state: str, top: QWidget | None = None) -> None:
        self.seen.setdefault(state, []).extend(fit_violations(top or self.w))
        self.w.resize(SCREEN)  # each state is judged from 1024x700, not from what the previous one left

    def reached(self, state: str, seen: bool, what: str) -> None:
        """A state is judged only once a person would see it; if not, that is said."""
        if not seen:
            self.seen.setdefault(state, []).append(f"state not reached: {what} not shown")

    def report(self) -> str:
        return "\n".join(f"[{s}] {v}" for s, vs in self.seen.items() for v in dict.fromkeys(vs))


def _settings_dialog(qtbot, w, states: States) -> None:
    """Model… (Ctrl+,) opens a modal dialog: looked at while it is open, then closed with Escape."""
    opened = []

    def look():
        dlg = QApplication.activeModalWidget()
        if isinstance(dlg, QDialog):
            opened.append(dlg)
            states.check("Model settings dialog", dlg)
            dlg.reject()
    QTimer.singleShot(500, look)
    _menu_action(w, "Model…").trigger()
    assert opened, "the Model settings dialog did not open"


def test_every_state_fits_1024x700_with_long_data(qtbot, tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "account.html").write_text(PAGE)
    with LocalSite(root) as site, ModelServer(agent) as srv:
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
        states = States(w)
        try:
            _drive(qtbot, w, url, states)
        finally:
            if not _run_over(w):
                _shortcut(qtbot, w, "Shift+F5")
                qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
            w.close()
    print("\n" + states.report())
    assert not any(states.seen.values()), "\n" + states.report()


def _drive(qtbot, w, url: str, states: States) -> None:
    _field(w, "Task").setText(TASK)
    states.check("idle")
    # the demo run: Demo policy ticked, Run (F5), looked at while it runs; then Step (F10): one step, paused
    demo = next(b for b in w.findChildren(QCheckBox) if b.text() == "Demo policy (offline)")
    demo.click()
    _shortcut(qtbot, w, "F5")
    qtbot.waitUntil(lambda: _by_shortcut(w, "F6").isEnabled(), timeout=LONG)
    states.check("running (demo run)")
    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
    _shortcut(qtbot, w, "F10")
    qtbot.waitUntil(lambda: "paused" in _status(w) and _step_rows(w) >= 1, timeout=LONG)
    states.check("paused")
    _shortcut(qtbot, w, "Shift+F5")
    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
    demo.click()
    # the model's run: the gate with a 2,000-character thought and long evidence, Edit action…, take-over
    _field(w, "Task").setText(TASK)
    _field(w, "Start URL").setText(url)
    _menu_action(w, "every").trigger()  # Run ▸ Ask before ▸ every: the gate asks before each action
    _shortcut(qtbot, w, "F5")
    _wait(qtbot, w, lambda: _has_button(w, "Approve"), "the approval gate")
    qtbot.wait(300)
    states.check("approval gate")
    _button(w, "Edit the action").click()
    states.reached("approval gate, Edit action…", any(e.isVisible() and "Click [" in e.text()
                                                    for e in w.findChildren(QLineEdit)), "the action's edit field")
    states.check("approval gate, Edit action…")
    _shortcut(qtbot, w, "F8")  # take over
    _wait(qtbot, w, lambda: _has_button(w, "Hand back"), "take-over")
    qtbot.wait(300)
    states.check("take-over")
    _shortcut(qtbot, w, "Shift+F5")
    qtbot.waitUntil(lambda: _run_over(w), timeout=LONG)
    _review(qtbot, w, states)
    _tab(w, "Reports")
    _button(w, "Refresh").click()
    states.check("Reports")
    _tab(w, "Live")
    _settings_dialog(qtbot, w, states)


def _review(qtbot, w, states: States) -> None:
    _tab(w, "Review")
    table = next(t for t in w.findChildren(QTableView) if t.isVisible() and t.model() is not None
                 and "Run" in [t.model().headerData(c, Qt.Horizontal) for c in range(t.model().columnCount())])
    rect = table.visualRect(table.model().index(0, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.wait(1500)  # the run's steps and screenshots load in the background
    states.reached("Review, a run selected", table.selectionModel().hasSelection(), "a selected run")
    states.check("Review, a run selected")
    category = next(c for c in w.findChildren(QComboBox) if c.isVisible() and c.toolTip().startswith("Failure cat"))
    category.setEditText(CATEGORY)
    table.setFocus()
    _key(qtbot, table, Qt.Key_F)
    states.reached("Review, a label given", _shows(w, "fail"), "the label (fail)")
    states.check("Review, a label given")
    _key(qtbot, table, Qt.Key_W)
    states.reached("Review, the W correction hint", _shows(w, "wrong target") or _shows(w, "wrong_target"),
                   "the wrong-target hint")
    states.check("Review, the W correction hint")
    _key(qtbot, table, Qt.Key_Q)
    states.reached("Review, the Q correction hint", _shows(w, "correct"), "the step's judgement (correct)")
    states.check("Review, the Q correction hint")
    with Store(w.store_root) as s:  # a second annotator and a judge disagree with this one
        for run in s.run_summaries():
            L.set_label(s, run["id"], OTHER, "success", comment="the account page said it was gone " * 6)
            L.set_verdict(s, run["id"], MODEL, 3, "cockpit-judge-1", 1, reply="SUCCESS: it was deleted " * 10)
    _button(w, "To adjudicate").click()
    qtbot.wait(500)
    table.setFocus()
    rect = table.visualRect(table.model().index(0, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.wait(1000)
    states.reached("Review, adjudication", _has_button(w, "Record adjudicated verdict"), "Record adjudicated verdict")
    states.check("Review, adjudication")


def test_the_checker_names_what_does_not_fit(qtbot):
    """fit_violations on a small panel: a cut label, a squeezed button and a too-wide row are named; an elided
    label with its full text in the tooltip is not."""
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
    qtbot.addWidget(top)
    top.resize(300, 200)
    top.show()
    qtbot.waitExposed(top)
    found = fit_violations(top, QSize(1024, 700))
    assert any(v.startswith("QLabel 'Misread a confirmation dialog") and "no elision" in v for v in found), found
    assert any(v.startswith("QPushButton 'Delete my account") and "text cut" in v for v in found)
    assert not any("ElidedLabel" in v for v in found), found
    wide = QLabel("x" * 400)  # no elision, no wrap: its text is its minimum width
    lay.addWidget(wide)
    found = fit_violations(top, QSize(1024, 700))
    assert any("wants at least" in v and "QLabel 'xxxx" in v for v in found), found
