"""A pixel run's point corrected in Review (W, then a click) becomes training data in the model's own coordinate
space (issue #43): the exported reply, read back by its dialect and converted as the agent converts, lands on
the point that was clicked; the grounding sample holds it in the screenshot's pixels."""
import json

from PySide6.QtCore import QPoint, Qt

from cockpit.core.actions import coords, dialects
from cockpit.core.actions.dialects.common import Reply
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.store import corrections
from cockpit.core.store import labels as L
from cockpit.core.training.export import ExportOptions, export
from testkit.pixelmodel import Move
from tests.core.agent.test_pixel_agent import run_pixel
from tests.ui.review.test_review import focus


def test_a_point_clicked_in_review_is_exported_in_the_models_space(qtbot, panel, store, site, tmp_path):
    with BrowserSession(BrowserConfig(device_scale_factor=2)) as session:  # screenshots 2048x1536
        result, steps, model, _ = run_pixel(session, store, site, [
            Move("click", "h1", thought="The heading."), Move("click", "#name"), Move("answer", text="done")],
            dialect="uitars", space="norm1000")
    rid = result.run_id
    L.set_label(store, rid, "ada", "success")
    press = next(m for m in json.loads(store.read_file(steps[0]["marks_file"])) if m["text"] == "Hold to highlight")
    x, y, w, h = press["bbox"]
    css = (x + w // 2, y + h // 2)  # where step 1's click should have been (CSS pixels)

    p = panel("ada")
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    p.go(0)
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_W)
    pos = p.viewer.view.mapFromScene(css[0] * 2, css[1] * 2)  # the screenshot is in device pixels
    qtbot.mouseClick(p.viewer.view.viewport(), Qt.LeftButton, Qt.AltModifier, QPoint(pos.x(), pos.y()))
    (fix,) = [c for c in corrections.of(store, rid) if c["kind"] == "point"]
    clicked = fix["point"]
    assert abs(clicked[0] - css[0]) <= 1 and abs(clicked[1] - css[1]) <= 1

    frame = coords.Frame(tuple(steps[0]["pointer"]["frame"]["viewport"]), tuple(steps[0]["pointer"]["frame"]["image"]))
    out = export(store, ExportOptions("sft", "openai"), tmp_path / "sft")
    rows = [json.loads(x) for x in (out.out / "sft.openai.jsonl").read_text().splitlines()]
    reply = next(r["messages"][-1]["content"] for r in rows if "The heading." in r["messages"][-1]["content"])
    parsed = dialects.parse("uitars", Reply(text=reply))
    assert parsed.action.kind == "click" and parsed.thought == "The heading."
    assert all(0 <= v <= 1000 for v in parsed.action.point) and parsed.action.point != tuple(clicked)
    landed = coords.to_viewport(parsed.action.point, "norm1000", frame)  # as the agent would act on it
    assert abs(landed[0] - clicked[0]) <= 1 and abs(landed[1] - clicked[1]) <= 1
    assert out.tally.made["point"] == 1

    pairs = export(store, ExportOptions("preference", "sharegpt"), tmp_path / "pairs")
    (pair,) = [json.loads(x) for x in (pairs.out / "preference.sharegpt.jsonl").read_text().splitlines()]
    assert pair["chosen"]["value"] == reply and pair["step"] == 1
    assert pair["rejected"]["value"] == steps[0]["reply"]  # the model's own, pointing at the heading

    ground = export(store, ExportOptions("grounding", "screenspot"), tmp_path / "ground")
    entries = {e["step"]: e for e in json.loads((ground.out / "screenspot_web.json").read_text())}
    assert abs(entries[1]["point"][0] - clicked[0] * 2) <= 1 and entries[1]["bbox"] == [v * 2 for v in press["bbox"]]
    assert entries[1]["image_size"] == [2048, 1536] and entries[1]["instruction"] == "Hold to highlight"


def test_t_judges_a_step_harmful_and_it_becomes_a_process_label(qtbot, panel, store, tmp_path):
    from testkit.fakeruns import make_run
    rid = make_run(store, steps=2)
    p = panel("ada")
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_T)
    assert [(x["step"], x["judgement"]) for x in L.step_labels(store, rid)] == [(1, "harmful")]
    assert "step 1: harmful" in p.label_bar.status.text()
    L.set_label(store, rid, "ada", "success")
    out = export(store, ExportOptions("process", "trl"), tmp_path / "prm")
    import pyarrow.parquet as pq
    (row,) = pq.read_table(out.out / out.files[0]).to_pylist()
    assert row["judgements"] == ["harmful", None] and row["rewards"] == [-1.0, 1.0] and row["labels"] == [False, True]
