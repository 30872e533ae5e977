"""`cockpit export --format webvoyager` then `cockpit import webvoyager` (issue #38): every step comes back in
its place, with its screenshot, action and actor: a person's take-over step, a step refused at the gate, and a
pixel model's (UI-TARS) action read in its own dialect with its point."""
import json

from cockpit.core.actions.grammar import parse_action
from cockpit.core.store import Store
from cockpit.core.store.wv_steps import SIDE_FILE
from cockpit.ui.screenshot.pointer import pointer_geometry
from testkit.pixelmodel import Move
from tests.clitools import cockpit, ok
from tests.core.agent.test_pixel_agent import run_pixel
from tests.core.training.supervised_run import REJECTION, supervised_run


def export_and_import(home, run_id, tmp_path):
    """The user's two commands; (the export's CompletedProcess, the import's, the folder, the new home)."""
    out = tmp_path / "wv_export"
    exported = cockpit(home, "export", "--format", "webvoyager", "--out", str(out), run_id)
    ok(exported)
    folder = next(out.iterdir())
    other = tmp_path / "fresh"
    imported = cockpit(other, "import", "webvoyager", str(out))
    ok(imported)
    return exported, imported, folder, other


def shot_bytes(store, steps):
    return [store.file(s["screenshot"]).read_bytes() if s["screenshot"] else None for s in steps]


def test_a_supervised_run_comes_back_step_for_step(browser, site, store, tmp_path):
    run = supervised_run(browser, site, store)
    before = store.steps(run.run_id)
    assert [s["actor"] for s in before][5] == "human" and before[3]["status"] == "refused"
    exported, imported, folder, other = export_and_import(store.root, run.run_id, tmp_path)

    # The export says what WebVoyager's format could not hold, and how it was written instead.
    assert "1 step taken by a human (step 6)" in exported.stderr
    refused = [s["step"] for s in before if s["status"] == "refused"]  # 4 rejected; 5 dropped by the take-over
    assert refused == [4, 5] and before[4]["decision"]["took_over"]
    assert "2 steps refused at the gate or dropped by a take-over (steps 4, 5)" in exported.stderr
    side = json.loads((folder / SIDE_FILE).read_text())
    assert any("human" in n for n in side["notes"])
    assert [s["actor"] for s in side["steps"]] == [s["actor"] for s in before]

    # One reply per screenshot, in WebVoyager's own folder.
    messages = json.loads((folder / "interact_messages.json").read_text())
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    assert len(replies) == len(before) == len(list(folder.glob("screenshot[0-9].png")))
    assert replies[5].endswith(f"Action: {before[5]['action']}")  # the person's Type [n]; Ada
    assert "Now given a task: Order a copy for Ada" in json.dumps(messages)

    assert "no matching reply" not in imported.stderr + imported.stdout
    with Store(other) as fresh:
        (back,) = fresh.runs()
        after = fresh.steps(back["id"])
        assert [s["step"] for s in after] == [s["step"] for s in before]
        assert [s["actor"] for s in after] == [s["actor"] for s in before]
        assert [s["action"] for s in after] == [s["action"] for s in before]
        assert [s["status"] for s in after] == [s["status"] for s in before]
        assert shot_bytes(fresh, after) == shot_bytes(store, before)  # each screenshot with its own step
        assert after[3]["decision"]["message"] == REJECTION and not after[3]["decision"]["approved"]
        assert after[5]["reply"] is None and after[5]["action"].endswith("; Ada")
        assert back["answer"] == "ordered"
        # What the side file keeps comes back too: the model, when the run began, tokens, addresses and risks
        run, back = store.run(run.run_id), fresh.run(back["id"])
        assert back["model"] == run["model"] != "(imported)"
        assert back["status"] == run["status"]  # how it ended (a run refused at the gate came back "answered")
        assert back["started"] == run["started"] and back["config"].get("started_known", True)
        assert (back["prompt_tokens"], back["completion_tokens"]) == (run["prompt_tokens"], run["completion_tokens"])
        assert run["prompt_tokens"] > 0
        for key in ("url", "url_after", "risk", "prompt_tokens", "completion_tokens", "started"):
            assert [s[key] for s in after] == [s[key] for s in before], key
        assert any(s["risk"] for s in before) and all(s["url"] for s in before)


def test_a_ui_tars_run_comes_back_with_its_points(browser, site, store, tmp_path):
    result, before, _, _ = run_pixel(browser, store, site, [
        Move("click", "#name"), Move("type", text="Ada"), Move("click", "#press"), Move("answer", text="done")],
        dialect="uitars", space="norm1000")
    assert result.status == "answered" and "start_box" in before[0]["reply"]
    exported, imported, folder, other = export_and_import(store.root, result.run_id, tmp_path)
    assert "written in the model's own dialect" in exported.stderr and "uitars" in exported.stderr
    assert json.loads((folder / SIDE_FILE).read_text())["steps"][0]["pointer"]["dialect"] == "uitars"

    with Store(other) as fresh:
        (back,) = fresh.runs()
        after = fresh.steps(back["id"])
        assert [s["status"] for s in after] == ["ok", "ok", "ok", "answered"]
        assert [s["action"] for s in after] == [s["action"] for s in before]
        first = after[0]
        assert parse_action(first["action"]).point == parse_action(before[0]["action"]).point
        assert first["pointer"]["dialect"] == "uitars" and first["pointer"]["space"] == "norm1000"
        # Review draws the crosshair where the click was (what the run viewer computes for its pane)
        size = (before[0]["pointer"]["frame"]["viewport"][0], before[0]["pointer"]["frame"]["viewport"][1])
        point, _, _ = pointer_geometry(first["action"], first["pointer"], size)
        assert point == tuple(float(v) for v in parse_action(before[0]["action"]).point)
        assert back["answer"] == "done"


def test_a_run_refused_at_the_gate_comes_back_refused(tmp_path):
    """The hand round trip of this session: the demo run refused at the gate (its agent then answered that it
    stopped) came back "answered" from WebVoyager's layout; the side file gives back how it ended."""
    from testkit.fakeruns import make_run
    home = tmp_path / "home"
    with Store(home) as s:
        rid = make_run(s, steps=3, task="Buy it", answer="I stopped: the order was refused", status="refused")
    _exported, _imported, _folder, other = export_and_import(home, rid, tmp_path)
    with Store(other) as fresh:
        (back,) = fresh.runs()
    assert (back["status"], back["answer"]) == ("refused", "I stopped: the order was refused")
