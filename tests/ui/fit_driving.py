"""The fit test's worst-case content and how it drives the window as a person does (keys, buttons and
tabs by their text, menus), and States: each state checked on a 1024x700 screen (tests/ui/test_window_fits.py)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QPushButton,
    QTabBar,
    QTreeWidget,
    QWidget,
)

from cockpit.core.llm.modelserver import Reply
from cockpit.ui.plaintext import shown_text
from tests.lookahead_helpers import mark_in, observation
from tests.ui.every_window import Watcher
from tests.ui.fits import SCREEN, frame_violations
from tests.ui.windowtools import when_shown

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
def menu_action(w, text: str) -> QAction:
    for a in w.findChildren(QAction):
        if a.text().replace("&", "") == text:
            return a
    raise AssertionError(f"no action {text!r}")


def shown_button(w, start: str, visible: bool = True) -> QPushButton:
    for b in w.findChildren(QPushButton):
        if b.text().replace("&", "").startswith(start) and (b.isVisible() or not visible):
            return b
    raise AssertionError(f"no shown button {start!r}")


def has_button(w, start: str) -> bool:
    return any(b.isVisible() and b.text().replace("&", "").startswith(start) for b in w.findChildren(QPushButton))


def tab(w, text: str) -> None:
    for bar in w.findChildren(QTabBar):
        for i in range(bar.count()):
            if bar.tabText(i).replace("&", "") == text and bar.isVisible():
                bar.setCurrentIndex(i)
                QApplication.processEvents()
                return
    raise AssertionError(f"no tab {text!r}")


def status(w) -> str:
    return " | ".join(lab.text() for lab in w.statusBar().findChildren(QLabel) if lab.isVisible())


def shows(w, words: str) -> bool:
    """Some shown label says `words` (its text, or the full text of an elided one)."""
    return any(lab.isVisible() and (words in shown_text(lab.text()) or words in shown_text(lab.toolTip()))
               for lab in w.findChildren(QLabel))


def by_shortcut(w, keys: str) -> QAction:
    return next(a for a in w.findChildren(QAction) if a.shortcut().toString() == keys)


def shortcut(qtbot, w, keys: str) -> None:
    """Trigger the window's action with this shortcut ("F5", "Shift+F5"), as the key or the menu would, once it
    is enabled (the browser warming up keeps Run greyed for a moment)."""
    def enabled():
        return [a for a in w.findChildren(QAction) if a.shortcut().toString() == keys and a.isEnabled()]
    wait(qtbot, w, lambda: bool(enabled()), f"{keys} enabled")
    enabled()[0].trigger()
    QApplication.processEvents()


def key(qtbot, widget, key, mod=Qt.NoModifier):
    qtbot.keyClick(widget, key, mod)
    QApplication.processEvents()


def wait(qtbot, w, cond, what: str) -> None:
    """Wait for `cond`; if it never comes, say what the window showed (status bar, error lines)."""
    try:
        qtbot.waitUntil(cond, timeout=LONG)
    except Exception:
        errors = [lab.text()[:200] for lab in w.findChildren(QLabel) if lab.isVisible() and lab.wordWrap()
                  and lab.text()]
        raise AssertionError(f"never reached: {what}; status: {status(w)}; shown: {errors[:6]}") from None


def run_over(w) -> bool:
    """Run (F5) reads Run and can be pressed, Stop (Shift+F5) cannot: no run, not even stopping."""
    run = by_shortcut(w, "F5")
    return run.isEnabled() and run.text() == "Run" and not by_shortcut(w, "Shift+F5").isEnabled()


def step_rows(w) -> int:
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


def active(qtbot, w) -> None:
    """The window active again (after a dialog): the keys a person presses go to it."""
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=5000)
