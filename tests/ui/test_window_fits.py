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

from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractScrollArea, QApplication, QCheckBox,
                               QComboBox, QDialog, QLabel, QLineEdit, QListView, QPushButton, QRadioButton,
                               QSizePolicy, QStyle, QStyleOptionComboBox, QTabBar, QTableView, QToolButton, QTreeView,
                               QWidget)

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.localserver import LocalSite
from cockpit.core.settings import Settings
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.ui.main_window import MainWindow
from cockpit.ui.plaintext import shown_text
from tests.core.lookahead_helpers import mark_in, observation

LONG = 120_000
SCREEN = QSize(1024, 700)
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


# ---------- the checker ----------
def _owner(widget: QWidget) -> str:
    """The nearest Cockpit class around `widget` (where to fix it), with its module."""
    p = widget
    while p is not None:
        if type(p).__module__.startswith("cockpit"):
            return f"{type(p).__name__} ({type(p).__module__})"
        p = p.parentWidget()
    return "?"


def _name(widget: QWidget, text: str = "") -> str:
    short = text if len(text) <= 40 else text[:38] + "…"
    obj = f" #{widget.objectName()}" if widget.objectName() else ""
    return f"{type(widget).__name__}{obj} {short!r}" if text else f"{type(widget).__name__}{obj}"


def _in_scroll_area(widget: QWidget, top: QWidget) -> bool:
    """Inside a scroll area's viewport: it may lie beyond it, scrolled out of view."""
    p = widget.parentWidget()
    while p is not None and p is not top:
        outer = p.parentWidget()
        if isinstance(outer, QAbstractScrollArea) and p is outer.viewport():
            return True
        p = outer
    return False


def _plain(label: QLabel) -> tuple[str, bool]:
    """A label's text as shown, and whether it is rich text."""
    text = label.text()
    rich = label.textFormat() == Qt.RichText or (label.textFormat() == Qt.AutoText and QtGui.Qt.mightBeRichText(text))
    return (shown_text(text, Qt.RichText) if rich else text), rich


def _text_width(label: QLabel, rich: bool) -> int:
    if rich:
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(label.text())
        return int(doc.idealWidth())
    fm, text = label.fontMetrics(), label.text()
    if label.buddy() is not None:  # "&Task:" shows "Task:", the T underlined
        text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return max((fm.horizontalAdvance(line) for line in text.split("\n")), default=0)


def _elided_with_tip(shown: str, tooltip: str) -> bool:
    """Shown with "…", and the tooltip holds what was left out (every shown piece is in it, and it is longer)."""
    if "…" not in shown or not tooltip:
        return False
    full = " ".join(shown_text(tooltip).split())
    pieces = [" ".join(p.split()) for p in shown.split("…") if p.strip()]
    return len(full) > len(" ".join(pieces)) and all(p in full for p in pieces)


def _label_problem(label: QLabel) -> str | None:
    shown, rich = _plain(label)
    if not shown.strip():
        return None
    room = label.contentsRect().width() - 2 * max(label.margin(), 0) - max(label.indent(), 0)
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need > label.height() + 2:
            return f"wrapped text needs {need} px of height, has {label.height()} px"
        return None
    width = _text_width(label, rich)
    elided = _elided_with_tip(shown, label.toolTip())
    if width > room + 1 and not elided:
        return f"text {width} px in {room} px, no elision" + (" (… but no full tooltip)" if "…" in shown else "")
    filled = width > room - 2 * label.fontMetrics().averageCharWidth()  # cut to its room, not a "Starting…"
    if "…" in shown and filled and not elided and not label.toolTip():
        return "elided without its full text in a tooltip"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    if isinstance(button, QToolButton) or not button.text():
        return None
    if button.width() + 1 < button.sizeHint().width():
        return f"text cut: {button.width()} px, needs {button.sizeHint().width()} px"
    return None


def _combo_problem(box: QComboBox) -> str | None:
    if box.isEditable() or not box.currentText():
        return None
    opt = QStyleOptionComboBox()
    box.initStyleOption(opt)
    room = box.style().subControlRect(QStyle.CC_ComboBox, opt, QStyle.SC_ComboBoxEditField, box).width()
    need = box.fontMetrics().horizontalAdvance(box.currentText())
    if need > room + 1 and box.currentText() not in shown_text(box.toolTip()):
        return f"shows {need} px of text in {room} px, cut without a tooltip"
    return None


def _view_problems(view: QAbstractItemView) -> list[str]:
    """Cells whose text is wider than their column and that have no tooltip (Qt elides them with "…")."""
    model, found = view.model(), []
    if model is None:
        return found
    fm = view.fontMetrics()
    columns = model.columnCount(QModelIndex()) if isinstance(view, (QTableView, QTreeView)) else 1
    margin = 2 * (view.style().pixelMetric(QStyle.PM_FocusFrameHMargin, None, view) + 1)  # Qt's text margins
    for c in range(columns):
        if isinstance(view, (QTableView, QTreeView)) and view.isColumnHidden(c):
            continue
        for r in range(min(model.rowCount(QModelIndex()), 40)):
            idx = model.index(r, c)
            text = idx.data(Qt.DisplayRole)
            if not isinstance(text, str) or not text:
                continue
            width = view.visualRect(idx).width() - margin
            if idx.data(Qt.DecorationRole) is not None:
                width -= view.iconSize().width() if view.iconSize().width() > 0 else 16
            if fm.horizontalAdvance(text.split("\n")[0]) > width and not idx.data(Qt.ToolTipRole):
                head = model.headerData(c, Qt.Horizontal)
                found.append(f"cell ({r}, {head!r}) {text[:30]!r}: {fm.horizontalAdvance(text)} px in {width} px, "
                             "no tooltip")
                break  # one per column is enough to say what to fix
    return found


def _minimum(widget: QWidget) -> QSize:
    """What a layout gives `widget` at least."""
    hint = widget.minimumSizeHint()
    pol = widget.sizePolicy()
    w = 0 if pol.horizontalPolicy() == QSizePolicy.Ignored else max(hint.width(), 0)
    h = 0 if pol.verticalPolicy() == QSizePolicy.Ignored else max(hint.height(), 0)
    return QSize(max(w, widget.minimumWidth()), max(h, widget.minimumHeight()))


def _depth(widget: QWidget) -> int:
    n, p = 0, widget
    while p is not None:
        n, p = n + 1, p.parentWidget()
    return n


def _who_wants(top: QWidget, hint: QSize, screen: QSize) -> str:
    """The innermost shown widget that asks for more than the screen, and the chain of biggest parts under it."""
    said = []
    for horizontal, over in ((True, hint.width() > screen.width()), (False, hint.height() > screen.height())):
        if not over:
            continue
        size = (lambda c: _minimum(c).width()) if horizontal else (lambda c: _minimum(c).height())
        limit = screen.width() - 60 if horizontal else screen.height() - 120
        big = [c for c in top.findChildren(QWidget) if c.isVisible() and not c.isWindow()
               and not _in_scroll_area(c, top) and size(c) > limit]
        if not big:
            continue
        inner = max(big, key=_depth)
        path, at = [], inner
        for _ in range(8):  # down the biggest child, while it is a big part of the need
            kids = [c for c in at.findChildren(QWidget, options=Qt.FindDirectChildrenOnly) if c.isVisible()]
            if not kids or size(max(kids, key=size)) < 200:
                break
            at = max(kids, key=size)
            path.append(f"{_name(at, _text_of(at))} {_minimum(at).width()}x{_minimum(at).height()}")
        said.append(f"{_name(inner, _text_of(inner))} in {_owner(inner)} needs {_minimum(inner).width()}x{_minimum(inner).height()}"
                    + (f", most of it: {' > '.join(path)} in {_owner(at)}" if path else ""))
    return ": " + "; ".join(said) if said else ""


def _text_of(widget: QWidget) -> str:
    if isinstance(widget, (QLabel, QAbstractButton)):
        return widget.text()
    return widget.currentText() if isinstance(widget, QComboBox) else ""


def _in_combo(widget: QWidget) -> bool:
    p = widget
    while p is not None:
        if isinstance(p, QComboBox) or type(p).__name__.startswith("QComboBox"):
            return True
        p = p.parentWidget()
    return False


def fit_violations(top: QWidget, screen: QSize = SCREEN) -> list[str]:
    """What does not fit `top` (a window or dialog) on a `screen`-sized screen, in words that say what to fix:
    the window grown or wanting to grow past the screen; a shown widget outside the window (children of a scroll
    area's viewport may be scrolled away); a shown label, button or combo box whose text is cut without "…" and
    the full text in its tooltip; table and tree cells cut without a tooltip."""
    for _ in range(3):
        QApplication.processEvents()
    found = []
    hint = top.minimumSizeHint()
    wants_more = hint.width() > screen.width() or hint.height() > screen.height()
    if top.width() > screen.width() or top.height() > screen.height():
        found.append(f"{type(top).__name__} grew to {top.width()}x{top.height()}"
                     + ("" if wants_more else " though its minimum fits (opened at this size, or grown in an "
                                              "earlier state and not shrunk back)"))
    if wants_more:
        found.append(f"{type(top).__name__} wants at least {hint.width()}x{hint.height()} (its minimum size hint)"
                     + _who_wants(top, hint, screen))
    box = top.rect()
    for child in top.findChildren(QWidget):
        if not child.isVisible() or child.isWindow() or child.width() <= 0 or child.height() <= 0:
            continue
        text = _text_of(child)
        where = f"{_name(child, text)} in {_owner(child)}"
        r = QRect(child.mapTo(top, QPoint(0, 0)), child.size())
        if not _in_scroll_area(child, top) and not box.contains(r):
            found.append(f"{where}: at {r.getRect()}, outside the {box.width()}x{box.height()} window")
        problem = None
        if isinstance(child, QLabel) and child.parentWidget() is not None \
                and not isinstance(child.parentWidget(), QTabBar):
            problem = _label_problem(child)
        elif isinstance(child, (QPushButton, QCheckBox, QRadioButton)):
            problem = _button_problem(child)
        elif isinstance(child, QComboBox):
            problem = _combo_problem(child)
        if problem:
            found.append(f"{where}: {problem}")
        if isinstance(child, (QTableView, QTreeView, QListView)) and not _in_combo(child):
            found += [f"{_name(child)} in {_owner(child)}: {p}" for p in _view_problems(child)]
    return found


# ---------- driving the window as a person does ----------
def _action(w, text: str) -> QAction:
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
    _action(w, "Model…").trigger()
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
    _action(w, "every").trigger()  # Run ▸ Ask before ▸ every: the gate asks before each action
    _shortcut(qtbot, w, "F5")
    _wait(qtbot, w, lambda: _has_button(w, "Approve"), "the approval gate")
    qtbot.wait(300)
    states.check("approval gate")
    _button(w, "Edit action").click()
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
