"""The window supervising a planning run (issue #7): the Plan tab, picking another candidate at the gate,
planning cost apart in the status bar, the preview at the approval panel, and the look-ahead settings.
Offscreen Qt, real Chromium, real store, the real openai client against rule-based model servers."""
import json

import pytest
from PySide6.QtCore import QSize, Qt

from cockpit.core.llm import apikeys
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.settings import Settings, load_settings, settings_path
from cockpit.ui.live.lookahead_controller import tokens_text
from cockpit.ui.main_window import MainWindow
from cockpit.ui.plaintext import shown_text
from cockpit.ui.settings.dialog import ModelSettingsDialog
from tests.lookahead_helpers import candidates, kind, mark_in, observation, page_title, user_text
from tests.ui.fits import fit_violations
from tests.ui.windowtools import records

LONG = 120_000
OPENS = "The details page opens and shows the secret number."
NOTHING = "Nothing changes: the button does nothing."
SCROLLS = "The page scrolls down and shows more of the library."
VERDICTS = {OPENS: "complete", NOTHING: "incorrect", SCROLLS: "on track"}
HOSTILE_THOUGHT = "<b>look</b> <img src=x> further down"


def agent_policy(plan: bool):
    """The agent's model: three candidates on the start page (planning), else the details link."""
    def respond(body):
        k, title, text = kind(body), page_title(body), observation(body)
        if k == "refine":
            return Reply("All three are relevant.\nKeep: 1, 2, 3", prompt_tokens=7, completion_tokens=3)
        if title == "Details":
            reply = candidates(("it says 4217", "ANSWER; 4217")) if plan else "Thought: it says 4217\nAction: ANSWER; 4217"
        elif plan:
            reply = candidates((HOSTILE_THOUGHT, "Scroll [WINDOW]; down"),
                               ("try the button", f"Click [{mark_in(text, 'Does nothing')}]"),
                               ("the details are behind the link", f"Click [{mark_in(text, 'details page')}]"))
        else:
            reply = f"Thought: the details are behind the link\nAction: Click [{mark_in(text, 'details page')}]"
        return Reply(reply, prompt_tokens=100, completion_tokens=10)
    return respond


def window_world_model(body):
    k, text = kind(body), user_text(body)
    if k == "forecast":
        about = text.split("action about to run:" if "action about to run:" in text else "The next action:")[1]
        for label, change in (("details page", OPENS), ("Does nothing", NOTHING), ("Scroll", SCROLLS)):
            if label in about:
                return Reply(change, prompt_tokens=50, completion_tokens=5)
        return Reply("Nothing visible changes.", prompt_tokens=50, completion_tokens=5)
    if k == "score":
        future = text.split("The simulated future:")[1]
        return Reply(f"Verdict: {next(v for f, v in VERDICTS.items() if f in future)}",
                     prompt_tokens=20, completion_tokens=2)
    raise AssertionError(f"unexpected {k} call to the world model")


def set_up(w, site, agent, wm, *, plan: bool):
    w.settings.model = ModelConfig(base_url=agent.base_url, model="agent-model", max_retries=0, timeout=20)
    w.settings.preview_model, w.settings.preview_base_url = "wm-model", wm.base_url
    w.lookahead.box.setChecked(plan)
    w.toolbar.policy.setCurrentText("every")  # step mode: the gate asks before each action
    w.live.task_bar.set_task("Find the secret number", site.url("agent_start.html"))


def column(plan_table, col):
    t = plan_table.table
    return [t.item(r, col).text() for r in range(t.rowCount())]


def test_a_planning_run_fills_the_plan_tab_and_the_human_runs_candidate_2_instead(qtbot, window, site):
    w = window
    w.resize(1024, 700)  # a small screen: the gate's forecast and alternatives, the Plan tab's pick, all fit
    with ModelServer(agent_policy(plan=True)) as agent, ModelServer(window_world_model) as wm:
        set_up(w, site, agent, wm, plan=True)
        assert w.start_run()
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        t = w.lookahead.table
        # the Plan tab: one row per candidate with its simulation and scores; the planner's choice highlighted
        assert w.live.log_tabs.tabText(w.live.log_tabs.indexOf(t)) == "Plan" and t.step == 1
        assert column(t, 1)[0] == "Scroll [WINDOW]; down" and column(t, 2) == ["kept"] * 3
        assert column(t, 4) == [SCROLLS, NOTHING, OPENS]
        assert column(t, 5) == ["0.5", "0", "1"] and column(t, 6) == ["0.50", "0.00", "1.00"]
        assert t.highlighted_row() == 2 and column(t, 0)[2] == "➜ 3"
        assert HOSTILE_THOUGHT in shown_text(t.table.item(0, 1).toolTip())  # model text stays inert
        # the gate: the chosen candidate's simulation is the forecast; the other kept ones can run instead
        assert w.live.approval.prediction.isVisible() and w.live.approval.prediction.text() == f"If you approve: {OPENS}"
        assert sorted(w.live.approval.pick_buttons) == [1, 2] and "Run candidate 2 instead" in \
            w.live.approval.pick_buttons[2].text()
        assert w.live.log_tabs.currentWidget() is t and t.pick_btn.isVisible()  # the Plan tab came forward
        assert w.live.approval.alternatives.isVisible()
        qtbot.wait(200)
        found = fit_violations(w, QSize(1024, 700))
        assert found == [], "\n".join(found)
        qtbot.keyClick(w, Qt.Key_2, Qt.AltModifier)  # run candidate 2 (the button that does nothing)
        qtbot.waitUntil(lambda: w.live.approval.isVisible() and w.live.approval.request.step == 2, timeout=LONG)
        assert t.step == 2 and t.highlighted_row() == 2
        rect = t.table.visualRect(t.table.model().index(1, 1))  # double-clicking a row picks it too
        qtbot.mouseClick(t.table.viewport(), Qt.LeftButton, pos=rect.center())  # a real double-click: press,
        qtbot.mouseDClick(t.table.viewport(), Qt.LeftButton, pos=rect.center())  # release, press again
        qtbot.waitUntil(lambda: w.live.approval.isVisible() and w.live.approval.request.step == 3, timeout=LONG)
        qtbot.keyClick(w, Qt.Key_Return, Qt.ControlModifier)  # this time the planner's choice
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    run, steps, decisions = records(w)
    assert (run["status"], run["answer"]) == ("answered", "4217")
    first = steps[0]
    button = first["plan"]["candidates"][1]["action"]
    assert first["action"] == button and first["url_after"].endswith("agent_start.html")
    assert first["plan"]["picked"] == 2 and first["plan"]["picked_by"] == "human:ada"
    assert (decisions[0]["by"], decisions[0]["edited_action"]) == ("human:ada", button)
    assert steps[1]["action"] == button and steps[1]["plan"]["picked"] == 2
    assert steps[2]["url_after"].endswith("agent_details.html")
    # planning calls and tokens are shown apart from the agent's, and match the store
    assert run["plan_calls"] > 0
    assert w.lookahead.status.text().startswith(f"plan: {run['plan_calls']} calls, ")
    agent_tokens = run["prompt_tokens"] + run["completion_tokens"]
    assert w.status.tokens.text() == f"{agent_tokens:,} tokens"
    plan_tokens = run["plan_prompt_tokens"] + run["plan_completion_tokens"]
    assert f", {tokens_text(plan_tokens)}" in w.lookahead.status.text()
    # opening step 1 afterwards shows its plan with the human's pick highlighted
    w.live.log_panel.select_step(1)
    assert t.step == 1 and t.highlighted_row() == 1 and "ada picked 2 instead" in t.summary.text()


def test_a_preview_shows_at_the_approval_panel_and_its_call_is_counted_apart(qtbot, window, site):
    w = window
    with ModelServer(agent_policy(plan=False)) as agent, ModelServer(window_world_model) as wm:
        set_up(w, site, agent, wm, plan=False)
        assert w.start_run()
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        assert w.live.approval.prediction.text() == f"If you approve: {OPENS}"
        assert not w.live.approval.alternatives.isVisible() and w.live.approval.pick_buttons == {}
        assert w.lookahead.table.table.rowCount() == 0  # no planning: nothing in the Plan tab
        w.live.approval.approve_btn.click()
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
        forecasts = [b for b in wm.requests if kind(b) == "forecast"]
    run, steps, _ = records(w)
    assert run["answer"] == "4217" and steps[0]["prediction"]["text"] == OPENS
    assert steps[0]["prediction"]["actual"]["title_after"] == "Details"
    assert len(forecasts) == run["plan_calls"] == 1
    assert w.lookahead.status.text().startswith("plan: 1 call, ")


@pytest.mark.fault("secrets")
@pytest.mark.usefixtures("isolated")
def test_look_ahead_settings_persist_and_the_preview_key_goes_to_the_keyring(qtbot, memory_keyring, tmp_path,
                                                                             record_property):
    key = "sk-test-PREVIEW-KEY-0123456789"
    dlg = ModelSettingsDialog(Settings(model=ModelConfig(base_url="http://127.0.0.1:8/v1", model="agent-x")))
    qtbot.addWidget(dlg)
    box = dlg.lookahead
    assert not box.preview_key_edit.isEnabled()  # the agent's server: its key
    box.preview_model_edit.setText("wm-x")
    box.preview_url_edit.setText("http://127.0.0.1:9/v1")
    box.refresh_key_state()
    assert box.preview_key_edit.isEnabled()  # a server of its own: a keyring entry of its own
    box.preview_key_edit.setText(key)
    box.plan_box.setChecked(True)
    box.k_spin.setValue(4)
    box.horizon_spin.setValue(2)
    box.samples_spin.setValue(3)
    box.refine_box.setChecked(False)
    dlg.accept()
    assert dlg.result() == dlg.DialogCode.Accepted
    text = settings_path().read_text()
    record_property("key_hits", text.count(key))
    assert key not in text
    assert memory_keyring.store[(apikeys.SERVICE, "api-key:127.0.0.1:9")] == key
    s, problems = load_settings()
    assert problems == []
    assert (s.preview_model, s.preview_base_url, s.planning, s.plan_k, s.plan_horizon, s.plan_samples,
            s.plan_refine) == ("wm-x", "http://127.0.0.1:9/v1", True, 4, 2, 3, False)
    # reopened, the dialog shows them; a bad server address is refused
    again = ModelSettingsDialog(s)
    qtbot.addWidget(again)
    assert (again.lookahead.preview_model_edit.text(), again.lookahead.k_spin.value()) == ("wm-x", 4)
    assert again.lookahead.preview_key_edit.text() == ""  # the stored key is never shown
    again.lookahead.preview_url_edit.setText("127.0.0.1:9")
    again.accept()
    assert again.result() != again.DialogCode.Accepted and "preview server" in again.error_label.text()
    # the window starts runs with them: the Plan box is on, the agent gets the world model and planning
    w = MainWindow(settings=s, store_root=tmp_path / "store")
    qtbot.addWidget(w)
    try:
        assert w.lookahead.box.isChecked()
        cfg = w._agent_config(False)
        assert (cfg.preview.model.model, cfg.preview.model.base_url, cfg.preview.api_key) == \
            ("wm-x", "http://127.0.0.1:9/v1", None)
        assert (cfg.planning.k, cfg.planning.horizon, cfg.planning.samples, cfg.planning.refine) == (4, 2, 3, False)
        w.lookahead.box.setChecked(False)
        cfg = w._agent_config(False)
        assert cfg.planning is None and cfg.preview is not None and w.settings.planning is False
        assert w._agent_config(True).preview is None  # the demo policy runs without look-ahead
    finally:
        w.close()
    saved = json.loads(settings_path().read_text())  # the window saved its settings on close
    assert saved["planning"] is False and saved["preview_model"] == "wm-x"
    assert key not in settings_path().read_text()
