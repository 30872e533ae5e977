"""Review's dialogs on a small and a large screen (issue #38): Compare runs and Re-ask, opened as a person opens
them, with long tasks, model names and answers, and Re-ask when its call fails.

The real window (offscreen), a real store, runs written by testkit.fakeruns, the scripted model server on
127.0.0.1 as the only stand-in. What is asserted is what a person sees: the dialog no larger than the screen,
both runs' headings and the Close button inside it, the error and Send inside the Re-ask dialog.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QSize, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog, QLabel, QPushButton, QSplitter

from cockpit.core.store import Store
from cockpit.ui.plaintext import shown_text
from testkit.fakeruns import make_run
from tests.ui.fits import fit_violations

TASK = ("Find the account settings page of the shop, read every paragraph about closing an account, compare what "
        "it says about refunds of open orders, saved addresses, stored payment cards and newsletter subscriptions "
        "with the help centre's article, and only then delete the account permanently; report what was lost.")
MODEL = "an-agent-model-with-a-rather-long-name-instruct-2026-11-preview-q4"
ANSWER = "The account was deleted, and every order, address and saved card went with it; nothing was refunded. " * 2


def inside(child, top) -> bool:
    """`child` is shown and lies wholly inside `top` (not cut off by its edge)."""
    r = QRect(child.mapTo(top, QPoint(0, 0)), child.size())
    return child.isVisible() and top.rect().contains(r)


def run_heading(dlg, letter: str) -> QLabel:
    """The label that heads run A or B ("A: <id> · <model> · …")."""
    return next(lab for lab in dlg.findChildren(QLabel) if shown_text(lab.text()).startswith(f"{letter}:"))


def answer_picker(qtbot, seen: list) -> None:
    """When the "Compare with" picker comes up, remember it and press OK."""
    def look():
        dlg = QApplication.activeModalWidget()
        if isinstance(dlg, QInputDialog):
            seen.append((dlg.size(), dlg.comboBoxItems()))
            dlg.accept()
        else:
            QTimer.singleShot(50, look)
    QTimer.singleShot(50, look)


def window_on_long_runs(qtbot, window_factory, tmp_path, screen):
    """Two long runs of the same task in the store; the window at the screen's size, Review, the first run."""
    with Store(tmp_path / "home") as s:
        a = make_run(s, steps=4, task=TASK, model=MODEL, answer=ANSWER)
        make_run(s, steps=5, task=TASK, model=MODEL + "-second", answer="no")
    w = window_factory()
    w.resize(screen)
    w.modes.setCurrentWidget(w.review)
    w.review.show_run(a)
    qtbot.waitUntil(lambda: w.review.viewer.view.has_screenshot(), timeout=10_000)
    return w


@pytest.mark.parametrize("size", [(1024, 700), (1600, 1000)])
def test_compare_runs_fits_the_screen_with_both_runs_and_close_in_view(qtbot, window_factory, tmp_path, screen_size,
                                                                       size):
    screen = screen_size(*size)
    w = window_on_long_runs(qtbot, window_factory, tmp_path, screen)
    if size == (1600, 1000):  # Review not compact: the run's header, answer and filmstrip, whole
        v = w.review.viewer
        assert v.header.isVisible() and v.answer.isVisible() and v.filmstrip.isVisible()
    assert fit_violations(w, screen) == []
    picked = []
    answer_picker(qtbot, picked)
    w.review.viewer.tools.compare_btn.click()  # Compare with… -> the picker -> OK
    assert picked, "no picker"
    dlg = next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "CompareDialog" and t.isVisible())
    qtbot.addWidget(dlg)
    qtbot.waitExposed(dlg)
    assert dlg.width() <= screen.width() and dlg.height() <= screen.height(), dlg.size()
    assert dlg.minimumSizeHint().width() <= 1024, dlg.minimumSizeHint()  # fits a small screen whatever the data
    heads = [run_heading(dlg, k) for k in "AB"]
    assert all(inside(h, dlg) for h in heads), [h.geometry() for h in heads]
    assert "-second" in shown_text(heads[1].toolTip()) + shown_text(heads[1].text())  # run B, by its model
    assert all(inside(v, dlg) for v in dlg.views)  # both screenshots
    close = next(b for b in dlg.findChildren(QPushButton) if b.text().replace("&", "") == "Close")
    assert inside(close, dlg)
    assert fit_violations(dlg, screen) == []
    close.click()
    assert not dlg.isVisible()


def test_reask_that_fails_keeps_its_size_and_shows_the_error_and_send(qtbot, window_factory, tmp_path, screen_size):
    """A run made without a model config goes to OpenAI without a key: the call fails at once."""
    screen = screen_size(1024, 700)
    w = window_on_long_runs(qtbot, window_factory, tmp_path, screen)
    w.review.go(1)
    w.review.viewer.tools.reask_btn.click()
    dlg = next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "ReaskDialog" and t.isVisible())
    qtbot.addWidget(dlg)
    qtbot.waitExposed(dlg)
    split = dlg.findChild(QSplitter)
    left_before = split.sizes()[0]
    dlg.send_btn.click()
    qtbot.waitUntil(lambda: dlg.send_btn.isEnabled() and bool(dlg.verdict.text()), timeout=30_000)
    QApplication.processEvents()
    assert dlg.width() <= screen.width() and dlg.height() <= screen.height(), dlg.size()
    assert inside(dlg.verdict, dlg) and inside(dlg.send_btn, dlg)
    assert split.sizes()[0] >= 0.8 * left_before, (split.sizes(), left_before)  # the left pane not crushed
    assert fit_violations(dlg, screen) == []


def stored_run_of(store, base_url: str, *, demo: bool = False, model: str = MODEL) -> str:
    """A run of one model step as the agent records it: its model config, the request with its screenshot."""
    from cockpit.core.llm import prompt
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.store.newrun import NewRun
    from testkit.fakeruns import screenshot
    rid = store.new_run(NewRun(TASK, "https://shop.example/account", model=model, demo=demo,
                               config={"model": ModelConfig(base_url=base_url, model=model).to_dict()}))
    conv = prompt.Conversation(prompt.system_prompt())
    png, marks = screenshot(3)
    files = store.write_step_files(rid, 1, screenshot=png, marked=png, marks=marks)
    conv.add_observation(1, prompt.observation_text('[1]: <button> "Delete my account";'),
                         lead=prompt.task_text(TASK, "https://shop.example/account"))
    store.commit_step(rid, dict(step=1, request=conv.request(), reply="Thought: delete it\nAction: Click [1]",
                                action="Click [1]", action_text="Click [1]", **files))
    store.finish_run(rid, "max_steps")
    return rid


def open_reask_at_step_1(qtbot, w, rid):
    w.modes.setCurrentWidget(w.review)
    w.review.refresh()
    w.review.show_run(rid)
    w.review.viewer.tools.reask_btn.click()
    dlg = next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "ReaskDialog" and t.isVisible())
    qtbot.addWidget(dlg)
    qtbot.waitExposed(dlg)
    return dlg


def test_reask_when_the_runs_model_server_is_gone_offers_the_current_model_in_one_click(
        qtbot, window_factory, tmp_path, screen_size):
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.llm.modelserver import ModelServer
    screen = screen_size(1024, 700)
    gone = ModelServer(lambda b: "Thought: x\nAction: Click [1]").start()
    with Store(tmp_path / "home") as s:
        rid = stored_run_of(s, gone.base_url)
    gone.stop()  # the session that served the run has ended: 127.0.0.1:<port> refuses connections
    with ModelServer(lambda b: "Thought: the button is the one\nAction: Click [1]") as today:
        w = window_factory()
        w.resize(screen)
        w.settings.model = ModelConfig(base_url=today.base_url, model="todays-model", max_retries=0)  # Model…
        dlg = open_reask_at_step_1(qtbot, w, rid)
        dlg.send_btn.click()
        # said within seconds (connection refused needs no waiting), not after the run's retries (~35 s)
        qtbot.waitUntil(lambda: dlg.send_btn.isEnabled() and bool(dlg.verdict.text()), timeout=8_000)
        said = shown_text(dlg.verdict.text())
        assert "model server is gone" in said and gone.base_url in said, said
        assert dlg.use_current_btn.isVisible() and inside(dlg.use_current_btn, dlg) and inside(dlg.verdict, dlg)
        assert dlg.width() <= screen.width() and fit_violations(dlg, screen) == []
        dlg.use_current_btn.click()  # one click: the current model settings, and the step asked again
        qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
        assert len(today.requests) == 1 and today.requests[0]["model"] == "todays-model"
        assert "Click [1]" in dlg.new.toPlainText() and "the same action" in shown_text(dlg.verdict.text())
        assert dlg.model.text() == "todays-model" and dlg.base_url.text() == today.base_url
        assert not dlg.use_current_btn.isVisible()


def test_reask_of_a_demo_run_serves_the_demo_policy_again(qtbot, window_factory, tmp_path, screen_size):
    """The run's demo policy server closed with its session; the dialog, left as it opened, asks the policy."""
    from cockpit.core.demo.policy import DEMO_MODEL
    screen_size(1024, 700)
    with Store(tmp_path / "home") as s:
        rid = stored_run_of(s, "http://127.0.0.1:9/v1", demo=True, model=DEMO_MODEL)  # port 9: nothing there
    w = window_factory()
    dlg = open_reask_at_step_1(qtbot, w, rid)
    dlg.send_btn.click()
    qtbot.waitUntil(lambda: dlg.send_btn.isEnabled() and bool(dlg.verdict.text()), timeout=30_000)
    assert dlg.result is not None, shown_text(dlg.verdict.text())
    assert dlg.result.base_url == "(demo policy)" and dlg.new.toPlainText().startswith("Thought:")


@pytest.mark.parametrize("width", [1024, 1100, 1280, 1440, 1600])
def test_the_label_bar_keeps_each_label_on_the_row_of_its_field(qtbot, window_factory, tmp_path, width):
    """Issue #38: at 1280x800 "Loop (L):" ended one row and its drop-down began the next."""
    w = window_on_long_runs(qtbot, window_factory, tmp_path, QSize(width, 800))
    bar = w.review.label_bar
    pairs = {"Annotator:": bar.annotator, "Side effects (X):": bar.axes["side_effects"],
             "Loop (L):": bar.axes["repetition"], "Category:": bar.category}
    for text, field in pairs.items():
        label = next(lab for lab in bar.findChildren(QLabel) if lab.text() == text)
        lc = label.mapTo(bar, label.rect().center()).y()
        top, bottom = field.mapTo(bar, QPoint(0, 0)).y(), field.mapTo(bar, QPoint(0, field.height())).y()
        assert label.isVisible() and field.isVisible() and top <= lc <= bottom, (text, lc, top, bottom)
        assert label.mapTo(bar, label.rect().topRight()).x() <= field.mapTo(bar, field.rect().topLeft()).x()


def test_reask_does_not_offer_a_model_that_answers_another_way(qtbot, window_factory, tmp_path, screen_size):
    """The run asked with marks; the current model is a pixel model (walkthrough: a UI-TARS model was offered for
    a Set-of-Mark step): re-ask sends the recorded prompt, so the person is told why nothing is offered."""
    from cockpit.core.llm.client import ModelConfig
    screen_size(1024, 700)
    with Store(tmp_path / "home") as s:
        rid = stored_run_of(s, "http://127.0.0.1:9/v1")  # port 9: nothing there
    w = window_factory()
    w.settings.model = ModelConfig(base_url="http://127.0.0.1:9/v1", model="ui-tars-1.5-7b", dialect="uitars",
                                   coords="qwen", max_retries=0)
    dlg = open_reask_at_step_1(qtbot, w, rid)
    dlg.send_btn.click()
    qtbot.waitUntil(lambda: dlg.send_btn.isEnabled() and bool(dlg.verdict.text()), timeout=8_000)
    said = shown_text(dlg.verdict.text())
    assert "model server is gone" in said and "answers another way than this step was asked (Set-of-Mark)" in said
    assert not dlg.use_current_btn.isVisible()
    # walkthrough 8: it said "set such a model in Model… (Ctrl+,)", though the dialog has a Server field of its own
    assert "in the Server field above" in said and "Model…" not in said, said
    from cockpit.core.llm.modelserver import ModelServer
    with ModelServer(lambda b: "Thought: the button\nAction: Click [1]") as marks:
        dlg.base_url.setText(marks.base_url)  # as the message says, then Send
        dlg.send_btn.click()
        qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
    assert "the same action" in shown_text(dlg.verdict.text())
