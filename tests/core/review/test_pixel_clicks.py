"""Corrected clicks of pixel runs export for training (issue #27): JSONL and COCO keypoints, through the CLI."""
import json

from cockpit.core.actions.grammar import parse_action
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.store import Store, corrections
from cockpit.core.store.labels import set_step_label
from testkit.pixelmodel import Move
from tests.clitools import cockpit
from tests.core.agent.test_pixel_agent import run_pixel


def test_a_point_correction_and_a_wrong_target_label_export_as_training_rows(tmp_path, site):
    home = tmp_path / "home"
    with Store(home) as store, BrowserSession(BrowserConfig(device_scale_factor=2)) as session:
        result, steps, model, _ = run_pixel(session, store, site, [
            Move("click", "h1"), Move("click", "#name"), Move("answer", text="done")])
        rid = result.run_id
        marks = json.loads(store.read_file(steps[1]["marks_file"]))
        press = next(m for m in marks if m["text"] == "Hold to highlight")
        corrections.add(store, rid, 1, "point", point=(114, 153), by="ada")  # step 1 should have pressed the box
        set_step_label(store, rid, 2, "bo", "wrong_target", corrected_target=press["id"])
    out = tmp_path / "clicks.jsonl"
    r = cockpit(home, "export", rid, "--format", "clicks-jsonl", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(row["step"], row["source"]) for row in rows] == [(1, "point correction"), (2, "wrong_target label")]
    first = rows[0]
    assert first["instruction"] == "reserve and order" and first["corrected"] == [114, 153]
    assert first["scale"] == 2 and first["corrected_px"] == [228, 306] and first["image_size"] == [2048, 1536]
    assert first["predicted"] == list(parse_action(steps[0]["action"]).point)  # where the agent clicked
    assert abs(first["predicted"][1] - model.targets[0][1]) <= 1
    x, y, w, h = press["bbox"]
    assert rows[1]["corrected"] == [x + w / 2, y + h / 2] and rows[1]["by"] == "bo"
    coco = tmp_path / "clicks.json"
    assert cockpit(home, "export", rid, "--format", "clicks-coco", "--out", str(coco)).returncode == 0
    data = json.loads(coco.read_text())
    assert data["categories"][0]["keypoints"] == ["predicted", "corrected"]
    kp = data["annotations"][0]["keypoints"]
    assert kp[3:] == [228, 306, 2] and data["images"][0]["width"] == 2048


def test_cockpit_runs_shows_what_the_model_wrote_and_what_its_point_hit(tmp_path, site, browser):
    home = tmp_path / "home"
    with Store(home) as store:
        result, steps, _, _ = run_pixel(browser, store, site, [Move("click", "#press"), Move("answer", text="ok")],
                                        dialect="uitars", space="norm1000")
    r = cockpit(home, "runs", result.run_id)
    assert r.returncode == 0, r.stderr
    assert f"action:   {steps[0]['action']}" in r.stdout
    assert "point:    uitars in norm1000: the model wrote click(start_box=" in r.stdout
    assert 'it hit <div> "Hold to highlight"' in r.stdout
