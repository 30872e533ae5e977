"""The Live tab as a person sees it (#30): the status bar's news, the row count during a take-over, the row
waiting for approval, the approval panel's edit and its way back, and how a refusal on the last step reads.

Real window (offscreen), real Chromium, the demo policy; at 1024x700 where the issue saw the faults.
"""
import pytest
from PySide6.QtCore import Qt

from tests.ui.windowtools import LONG, cell_whole, choose_file, click_mark, records, wait_idle, wait_paused_after


@pytest.fixture
def w(window_factory):
    win = window_factory(demo=True)
    win.resize(1024, 700)
    return win


def _apart(a, b) -> bool:
    """Widgets `a` and `b` do not overlap on screen."""
    ra = a.rect().translated(a.mapTo(a.window(), a.rect().topLeft()))
    rb = b.rect().translated(b.mapTo(b.window(), b.rect().topLeft()))
    return not ra.intersects(rb)


def test_news_belongs_to_its_run_and_never_overlaps_the_state(qtbot, w):
    task, url, _ = w.live.task_bar.task()
    w.live.task_bar.set_task("", url)
    assert not w.start_run()
    assert w.status.current() == "Enter a task first."
    w.live.task_bar.set_task(task, url)
    w.toolbar.policy.setCurrentText("never")
    assert w.start_run()
    assert w.status.current() == ""  # the refusal to start is not news about this run
    wait_idle(qtbot, w)
    assert w.status.current().startswith("Run finished (answered)")
    msg = w.status.message
    # a long answer is cut with "…" in the status bar, whole in its tooltip, and stays left of the state
    assert msg.isVisible() and _apart(msg, w.status.state) and _apart(msg, w.status.steps)
    if msg.text() != msg.fullText():
        assert msg.text().endswith("…") and msg.fullText() in msg.toolTip()
    assert w.width() <= 1024
    w.step_clicked()  # a new run: the last run's ending is not shown during it
    assert "Run finished" not in w.status.current()
    wait_paused_after(qtbot, w, 1)
    w.bridge.stop()
    wait_idle(qtbot, w)


def test_the_row_count_follows_a_take_over(qtbot, w):
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)
    assert w.status.steps.text().startswith("row 1 ·")
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and "during take-over" in w.live.banner.fullText(), timeout=LONG)
    for n in (2, 3):
        w.live.takeover.down_btn.click()
        qtbot.waitUntil(lambda n=n: len([s for s in records(w)[1] if s["actor"] == "human"]) == n - 1, timeout=LONG)
        qtbot.waitUntil(lambda: w.live.takeover.down_btn.isEnabled(), timeout=LONG)
        assert w.live.log_panel.items[n].text(0) == f"{n} (you)"
        qtbot.waitUntil(lambda n=n: w.status.steps.text().startswith(f"row {n} ·"), timeout=10_000)
    assert "agent step 1/" in w.status.steps.text()  # human rows use none of the agent's budget
    w.bridge.stop()
    wait_idle(qtbot, w)


def test_the_row_asked_about_is_in_view_and_the_pane_can_go_back_to_it(qtbot, w):
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    log = w.live.log_panel
    step = w.live.approval.request.step
    qtbot.wait(200)  # the room keeper has given the approval panel its height
    row = log.visualItemRect(log.items[step])
    assert log.viewport().rect().contains(row.center()), (row, log.viewport().rect())
    target = w.live.approval.request.mark.id
    assert w.live.view.highlighted() == target
    # looking at an earlier step takes the pane away from the red box: a button brings it back
    assert not w.live.approval.back_btn.isVisible()
    log.select_step(2)
    assert w.live.shown_step == 2 and w.live.approval.back_btn.isVisible()
    assert w.live.banner.fullText().startswith("step 2 (agent)")
    w.live.approval.back_btn.click()
    assert w.live.shown_step is None and w.live.view.highlighted() == target
    assert w.live.banner.fullText().startswith(f"step {step}: what the model sees")  # its caption back too
    assert not w.live.approval.back_btn.isVisible() and log.current_step() == step
    # editing says what Approve will run, and that a box can be clicked instead
    w.live.approval.edit_btn.click()
    assert w.live.approval.edit.isVisible() and w.live.approval.edit_hint.isVisible()
    assert "Approve runs the action as written here" in w.live.approval.edit_hint.text()
    assert "Click a box on the screenshot" in w.live.approval.edit_hint.text()
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)


def test_a_refusal_on_the_last_allowed_step_reads_as_stopped_at_the_gate(qtbot, w):
    w.toolbar.max_steps.setValue(10)  # the demo asks at its 10th step
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    assert "agent step 10/10" in w.live.approval.title.text()
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    assert records(w)[0]["status"] == "refused"
    assert "finished: refused (stopped at the gate)" in w.live.banner.fullText()
    assert "max_steps" not in w.live.banner.fullText() + w.status.current()


def test_a_long_unbroken_address_at_the_gate_wraps_and_never_widens_the_window(qtbot, w):
    """An action to a 200-character address (no spaces) and an evidence line quoting it: wrapped in the panel."""
    from PySide6.QtWidgets import QApplication

    from cockpit.core.actions.grammar import parse_action
    from cockpit.core.agent.approval import ApprovalRequest
    from cockpit.core.safety.risk import Risk
    url = "https://shop.example/account/close?" + "&".join(f"confirm{i}=yes" for i in range(16))
    assert len(url) >= 200 and " " not in url
    req = ApprovalRequest("r1", 3, parse_action(f"Goto {url}"), None,
                          Risk("irreversible", (f"the address {url} closes the account",)), "every",
                          thought="Go. " + url)
    before = w.live.approval.minimumSizeHint().width()
    w.live.approval.show_request(req, "row 3 · agent step 3/15")
    w.live.approval.edit_btn.click()
    w.live.approval.edit.setText("Click [x" + url)  # does not parse: the error quotes it
    w.live.approval.approve_btn.click()
    for _ in range(3):
        QApplication.processEvents()
    assert w.live.approval.error.isVisible()
    assert w.width() <= 1024 and w.live.approval.minimumSizeHint().width() <= max(before, 300)
    title = w.live.approval.title
    assert title.height() > 2 * title.fontMetrics().height()  # the address wrapped onto lines of its own
    assert title.geometry().right() <= w.live.approval.width()


def test_corrections_without_a_step_hint_in_the_status_bar_not_the_red_banner(qtbot, w):
    from PySide6.QtCore import Qt
    w.live.view.setFocus()
    qtbot.keyClick(w.live.view, Qt.Key_M)  # Add mark, before any run
    assert not w.toolbar.act_add.isChecked() and not w.live.view.add_mode()
    assert not w.live.error_banner.isVisible()
    assert w.status.current().startswith("Start a run, or pick a step in the log")


def _seen(button) -> bool:
    """The whole button is on screen, not scrolled or clipped away."""
    r = button.visibleRegion()
    return button.isVisible() and not r.isEmpty() and r.boundingRect().height() >= button.height() - 2


def test_taking_over_at_the_gate_drops_the_question_and_acts_at_once_on_the_page_shown(qtbot, w):
    """#38: F8 while the gate waits before "Place order": the question goes, the pending click is recorded as
    rejected by the person and never runs, and the person's own actions run at once on the checkout page."""
    from cockpit.core.agent.gate import TOOK_OVER
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    asked = w.live.approval.request
    w.toolbar.act_take.trigger()
    # no answer at the gate needed: the take-over panel is ready on the live checkout page (before the fix the
    # panel's buttons stayed grey until someone answered the gate)
    qtbot.waitUntil(lambda: not w.live.approval.isVisible() and w.live.takeover.isVisible()
                    and w.live.takeover.down_btn.isEnabled() and "during take-over" in w.live.banner.fullText(),
                    timeout=30_000)
    assert "Checkout" in w.live.banner.fullText() and w.status.state.text() == "taken over"
    row = w.live.log_panel.items[asked.step]
    assert row.text(2) == "rejected by ada" and row.text(3) == f"rejected: {TOOK_OVER}"
    assert f"You have the browser — the agent's action at step {asked.step} ({asked.display}) was not run" in w.status.current()
    assert w.height() <= 700 and w.width() <= 1024, (w.width(), w.height())
    assert _seen(w.live.takeover.hand_btn) and not w.live.details.isVisible()  # details step aside (walk 10)
    home = next(m for m in w.live.view.marks() if m.tag == "a" and m.text.startswith("Demo"))
    click_mark(qtbot, w, home.id)  # a box clicked during the take-over picks the person's target
    assert w.live.takeover.target == home.id and f"Target: [{home.id}]" in w.live.takeover.info.text()
    assert w.live.approval.edit.text() != f"Click [{home.id}]"  # never the dropped question's edit field
    w.live.takeover.click_btn.click()
    qtbot.waitUntil(lambda: any(s["actor"] == "human" for s in records(w)[1]), timeout=30_000)
    w.bridge.stop()
    wait_idle(qtbot, w)
    _, steps, decisions = records(w)
    human = next(s for s in steps if s["actor"] == "human")
    assert human["step"] == asked.step + 1 and human["url"].endswith("checkout.html")  # the page the person saw
    assert human["url_after"].endswith("index.html")
    dropped = next(s for s in steps if s["step"] == asked.step)
    assert (dropped["status"], dropped["outcome"]) == ("refused", f"rejected: {TOOK_OVER}")
    assert [(d["approved"], d["by"], d["message"]) for d in decisions] == [(0, "human:ada", TOOK_OVER)]
    assert not any("order-placed" in (s["url_after"] or "") for s in steps)  # "Place order" never ran


def _whole(label) -> bool:
    """A wrapped label shows all its lines: as tall as its text needs at its width, and not cut by its parent."""
    from PySide6.QtCore import QPoint, QRect
    need = label.heightForWidth(label.width())
    parent = label.parentWidget()
    r = QRect(label.mapTo(parent, QPoint(0, 0)), label.size())
    return label.isVisible() and label.height() >= need - 1 and parent.rect().contains(r)


def test_editing_at_the_gate_shows_every_line_and_can_be_cancelled_or_reverted(qtbot, w):
    """Issue #38: at 1024x700 the risk line and the error's last line were clipped while editing, an old error
    stayed after clicking a box, and an edit could be neither cancelled nor reverted."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from tests.ui.windowtools import click_mark
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    qtbot.wait(200)
    a = w.live.approval
    proposed = a.request.display
    a.edit_btn.click()
    a.edit.setText("Clack [99] on the button that says delete everything now, please, and then the other one too")
    qtbot.keyClick(a.edit, Qt.Key_Return)  # does not parse: the error says what would
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(200)
    assert a.error.isVisible()
    assert "risk:" in a.title.text()
    for label in (a.title, a.error):
        assert _whole(label), (label.text()[:60], label.height(), label.heightForWidth(label.width()))
    assert not a.edit_hint.isVisible()  # the error stands in its place
    assert _seen(a.approve_btn) and _seen(a.reject_btn) and w.height() <= 700
    assert "…" not in a.edit_btn.text()  # it opens no dialog: the field is in the panel
    click_mark(qtbot, w, 4)  # a box on the screenshot: the agent's action aimed at it, and the old error goes
    assert a.edit.text() == "Click [4]" and not a.error.isVisible() and _whole(a.edit_hint)
    qtbot.keyClick(a.edit, Qt.Key_Escape)  # cancel: the agent's action again, the field closed
    assert not a.edit.isVisible() and a.edit.text() == proposed and a.isVisible()
    a.edit_btn.click()
    a.edit.setText("Click [1]")
    a.revert_btn.click()  # revert: the agent's action back in the field, still editing
    assert a.edit.isVisible() and a.edit.text() == proposed
    a.cancel_btn.click()
    assert not a.edit.isVisible() and not a.edit_hint.isVisible() and not a.cancel_btn.isVisible()
    a.reject_btn.click()
    wait_idle(qtbot, w)


def test_a_task_file_loaded_with_ctrl_o_leaves_the_task_field_its_room_and_names_tasks_whole(qtbot, w, tmp_path):
    """Issue #38: loading a task file shrank the Task field to ~95 px at 1024, and the picker cut its entries
    mid-word. Ctrl+O, the file dialog, the file chosen, as a person does it."""
    import json

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QFileDialog

    from cockpit.ui.plaintext import shown_text
    tasks = [{"id": f"account-{i}", "url": "https://shop.example/account",
              "task": f"Task {i}: find the account settings page of the shop, read every paragraph about closing an "
                      "account, compare what it says about refunds of open orders and saved addresses"}
             for i in range(3)]
    path = tmp_path / "my-tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    chosen = []

    def choose():
        dlg = QApplication.activeModalWidget()
        if not isinstance(dlg, QFileDialog):
            QTimer.singleShot(50, choose)
            return
        chosen.append(dlg)
        choose_file(dlg, path)
    QTimer.singleShot(50, choose)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=3000)
    qtbot.keyClick(w, Qt.Key_O, Qt.ControlModifier)
    assert chosen, "Ctrl+O opened no file dialog"
    bar = w.live.task_bar
    qtbot.waitUntil(lambda: bar.picker.isVisible(), timeout=3000)
    QApplication.processEvents()
    assert bar.task_edit.text() == tasks[0]["task"]
    assert bar.task_edit.width() >= 300, bar.task_edit.width()  # it was ~95 px
    for wid in (bar.task_edit, bar.url_edit, bar.domains_edit, bar.picker, bar.open_btn):
        assert wid.isVisible() and wid.mapTo(bar, wid.rect().bottomRight()).x() <= bar.width()
    model = bar.picker.model()
    for i, t in enumerate(tasks):  # each entry: the id and the whole task (the list elides it with "…")
        text = bar.picker.itemText(i)
        assert text == f"{t['id']}: {t['task']}", text
        assert t["task"] in shown_text(model.index(i, 0).data(Qt.ToolTipRole))
    assert bar.picker.width() >= 400  # a row of its own: the entries get the width


def test_run_from_the_reports_tab_shows_the_live_tab(qtbot, w):
    """A walkthrough pressed F5 on Reports: the demo ran unseen. Run and Step bring the Live tab forward."""
    for tab in (w.reports, w.review):
        w.modes.setCurrentWidget(tab)
        w.toolbar.act_run.trigger()
        assert w.modes.currentWidget() is w.live
        qtbot.waitUntil(lambda: w.runs.running and w.toolbar.act_stop.isEnabled(), timeout=LONG)
        w.toolbar.act_stop.trigger()
        wait_idle(qtbot, w)


def test_a_png_picked_as_a_task_file_is_named_and_keeps_the_tasks_loaded(qtbot, w, tmp_path):
    """A walkthrough picked a screenshot in the task file dialog: a wall of "line 1: not valid UTF-8" and the
    ten tasks loaded before gone. Now: one line that says what the file is, and the list stays."""
    import json

    from tests.images import png
    good = tmp_path / "ten.jsonl"
    good.write_text("".join(json.dumps({"id": f"t{i}", "task": f"task {i}", "url": "https://example.com/"}) + "\n"
                            for i in range(10)))
    shot = tmp_path / "screenshot3.png"
    shot.write_bytes(png(size=(64, 48)))
    bar = w.live.task_bar
    assert bar.load_file(good) == 10
    assert bar.load_file(shot) == 0
    said = w.live.error_banner.toolTip()
    assert "screenshot3.png is not a task file: it is a PNG image" in said, said
    assert "the 10 tasks from ten.jsonl stay loaded" in said and "UTF-8" not in said
    assert bar.picker.count() == 10 and len(bar.tasks) == 10
    empty = tmp_path / "notes.jsonl"
    empty.write_text("these are my notes, not tasks\n")
    assert bar.load_file(empty) == 0
    assert bar.picker.count() == 10


def test_a_good_task_file_takes_the_bad_one_s_banner_away_and_the_run_s_comes_back(qtbot, w, tmp_path):
    """Walkthrough 4: after a bad task file, a good one loaded while the red banner and the status bar still said
    the bad one's problem; and that problem had hidden why the run had stopped, which the screenshot pane still
    pointed at ("the red banner above says why")."""
    import json
    good, bad = tmp_path / "tasks10.jsonl", tmp_path / "bad.jsonl"
    good.write_text("".join(json.dumps({"id": f"t{i}", "task": f"task {i}", "url": "https://example.com/"}) + "\n"
                            for i in range(10)))
    bad.write_text(json.dumps({"hello": [1, 2, 3], "not": "tasks"}) + "\n")
    banner = w.live.error_banner
    w.live.show_error("The start page did not load: net::ERR_UNSAFE_PORT")  # as a run that stopped says it
    assert w.live.task_bar.load_file(bad) == 0
    assert banner.isVisible() and "bad.jsonl: 1 problem" in banner.text()
    assert w.live.task_bar.load_file(good) == 10
    assert banner.isVisible() and banner.text() == "The start page did not load: net::ERR_UNSAFE_PORT"
    assert "Tasks loaded from tasks10.jsonl" in w.status.current()
    w.live.error_banner.clear("run")
    assert w.live.task_bar.load_file(bad) == 0 and w.live.task_bar.load_file(good) == 10
    assert not banner.isVisible()


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)])
def test_the_step_log_shows_what_happened_and_who_decided_whole(qtbot, window_factory, size):
    """Issue #38: the Outcome ("typed …") and the Decision ("approved by …") were cut at 1024 and at 1280."""
    w = window_factory(demo=True)
    w.resize(*size)
    w.settings.annotator = "Maximiliane Theodora Featherstonehaugh (night shift)"
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.approve_btn.click()
    wait_idle(qtbot, w)
    log = w.live.log_panel
    rows = [log.items[n] for n in sorted(log.items)]
    typed = [it for it in rows if it.text(3).startswith("typed")]
    decided = [it for it in rows if it.text(2).startswith("approved by")]
    assert typed and decided, [(it.text(2), it.text(3)) for it in rows]
    for it in rows:
        log.scrollToItem(it)
        assert cell_whole(log, it, 3), (it.text(3), log.visualItemRect(it).height(), log.header().sectionSize(3))
        assert cell_whole(log, it, 2), (it.text(2), log.header().sectionSize(2))
        if not it.text(1).startswith("ANSWER"):  # an answer gets three lines here, the banner and details have it
            assert cell_whole(log, it, 1), it.text(1)
    assert log.header().sectionSize(3) >= 120


def test_the_status_bar_says_whose_news_it_is_on_the_other_tabs(qtbot, w):
    """Walkthrough 4: after a run, Review and Reports kept Live's "Run finished (answered): …" and its counts, read
    as news of the run open there. On another tab Live's news goes and the run's labels say they are Live's."""
    w.live.task_bar.set_task("What is the price of the Glass French Press in the Demo Shop?", "demo:index.html")
    w.toolbar.policy.setCurrentText("never")
    assert w.start_run()
    wait_idle(qtbot, w)
    assert w.status.current().startswith("Run finished") and not w.status.where.isVisible()
    w.modes.setCurrentWidget(w.review)
    assert w.status.where.isVisible() and w.status.where.text() == "<b>Live run:</b>"
    assert not w.status.current().startswith("Run finished")
    w.modes.setCurrentWidget(w.live)
    assert not w.status.where.isVisible()
