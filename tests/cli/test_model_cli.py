"""Issue #39 from the command line: `cockpit model check-pointing`, and `cockpit run`'s device scale factor, Qwen
pixel budget and preset names, in real processes against the scripted model server."""
import json

import pytest

from cockpit.core.llm.modelserver import ModelServer, scripted
from cockpit.core.store import Store
from testkit.pixelmodel import PointingModel
from tests.clitools import cockpit, no_traceback


def check(home, srv, *args):
    return cockpit(home, "model", "check-pointing", "--base-url", srv.base_url, "--model", "scripted",
                   "--image-format", "png", "--retries", "0", *args)


def test_check_pointing_finds_0_to_1000_read_as_pixels_and_names_the_option(tmp_path, browser):
    with ModelServer(PointingModel(browser, [], "uitars", "norm1000")) as srv:
        r = check(tmp_path / "home", srv, "--dialect", "uitars", "--coords", "pixels")
    no_traceback(r)
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "target C" in r.stderr and "(9 of 9)" in r.stderr  # progress
    for label in "ABCDEFGHI":
        assert f"\n{label}  " in out
    assert "(miss)" in out and "The points fit 0..1000 on both axes" in out
    assert out.rstrip().endswith("Set --coords norm1000.")
    assert len(srv.requests) == 9


def test_check_pointing_finds_the_qwen_servers_budget(tmp_path, browser):
    with ModelServer(PointingModel(browser, [], "qwen", "qwen", qwen_pixels=(3136, 1003520))) as srv:
        r = check(tmp_path / "home", srv, "--preset", "qwen2.5-vl", "--device-scale-factor", "2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "screenshot 2048x1536 of a 1024x768 viewport (device scale 2)" in r.stdout
    assert "Qwen's 1148x840 grid (max_pixels 1,003,520)" in r.stdout
    assert r.stdout.rstrip().endswith("Set --qwen-max-pixels 1003520.")
    with ModelServer(PointingModel(browser, [], "qwen", "qwen", qwen_pixels=(3136, 1003520))) as srv:
        r = check(tmp_path / "home", srv, "--preset", "qwen2.5-vl", "--device-scale-factor", "2",
                  "--qwen-max-pixels", "1003520")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "9 of 9 clicks landed on their targets" in r.stdout and "the coordinate setting is right" in r.stdout


def test_check_pointing_refuses_a_set_of_mark_model_and_bad_numbers(tmp_path):
    r = cockpit(tmp_path / "home", "model", "check-pointing", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert r.returncode == 2 and "the pointing check is for pixel models" in r.stderr
    r = cockpit(tmp_path / "home", "model", "check-pointing", "--preset", "qwen2.5-vl", "--qwen-min-pixels",
                "2000000", "--qwen-max-pixels", "1003520")
    assert r.returncode == 2 and "more than its max pixels" in r.stderr
    r = cockpit(tmp_path / "home", "run", "--task", "t", "--url", "http://x", "--device-scale-factor", "9")
    assert r.returncode == 2 and "not a device scale factor from 0.5 to 4" in r.stderr


QWEN_ANSWER = '<tool_call>\n{"name": "computer_use", "arguments": {"action": "answer", "text": "done"}}\n</tool_call>'


@pytest.mark.parametrize("preset", ["vllm-qwen2.5-vl", "qwen2.5-vl"])
def test_run_takes_the_device_scale_the_budget_and_old_and_new_preset_names(tmp_path, site, preset):
    home = tmp_path / "home"
    with ModelServer(scripted([QWEN_ANSWER])) as srv:
        r = cockpit(home, "run", "--task", "look", "--url", site.url("pixel_shop.html"), "--base-url", srv.base_url,
                    "--model", "scripted", "--preset", preset, "--device-scale-factor", "2",
                    "--qwen-max-pixels", "1003520", "--retries", "0")
        sent = json.dumps(srv.requests[0])
    assert r.returncode == 0, r.stdout + r.stderr
    with Store(home) as store:
        run = store.run(store.runs()[0]["id"])
        step = store.steps(run["id"])[0]
    model = run["config"]["model"]
    assert (model["dialect"], model["coords"], model["qwen_max_pixels"]) == ("qwen", "qwen", 1003520)
    assert step["pointer"]["frame"] == {"viewport": [1024, 768], "image": [2048, 1536], "qwen_pixels": [3136, 1003520]}
    assert "1148x840" in sent and "2044x1540" not in sent and "2048x1536" not in sent
