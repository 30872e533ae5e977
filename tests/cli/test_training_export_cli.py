"""`cockpit export --format sft|preference|process|grounding` (issue #43): Review's filters choose the runs,
the summary says what was made, and a missing pyarrow is said plainly."""
import json

import pytest

from cockpit.core.store import Store
from tests.clitools import cockpit
from tests.core.training.supervised_run import supervised_run


@pytest.fixture(scope="module")
def home(browser, site, tmp_path_factory):
    home = tmp_path_factory.mktemp("cli-training") / "home"
    with Store(home) as store:
        run = supervised_run(browser, site, store)
    return home, run


def test_sft_through_the_cli_with_reviews_filters(home, tmp_path):
    home, run = home
    out = tmp_path / "sft"
    r = cockpit(home, "export", "all", "--format", "sft", "--human", "success", "--agreement", "agree",
                "--out", str(out))
    assert r.returncode == 0, r.stderr  # one annotator: no agreement to speak of, so no run
    assert "0 rows from 0 of 0 runs" in r.stdout
    r = cockpit(home, "export", "all", "--format", "sft", "--human", "success", "--annotated-by", "ada",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "sft (openai): 6 rows from 1 of 1 run (3 accepted, 1 edited, 1 takeover, 1 target)" in r.stdout
    assert len((out / "sft.openai.jsonl").read_text().splitlines()) == 6
    assert "- human: success" in (out / "README.md").read_text()
    r = cockpit(home, "export", run.run_id[:12], "--format", "grounding", "--layout", "hf", "--steps", "corrected",
                "--out", str(tmp_path / "g"))
    assert r.returncode == 0, r.stderr
    assert "grounding (hf): 3 rows" in r.stdout  # the target, the edit and the take-over


def test_the_cli_refuses_what_does_not_fit(home, tmp_path):
    home, _ = home
    r = cockpit(home, "export", "all", "--format", "process", "--layout", "openai", "--out", str(tmp_path / "p"))
    assert r.returncode == 2 and "process is written as trl, not openai" in r.stderr
    r = cockpit(home, "export", "all", "--format", "gif", "--layout", "hf", "--out", str(tmp_path / "p"))
    assert r.returncode == 2 and "--layout is for the training formats" in r.stderr
    (tmp_path / "file").write_text("x")
    r = cockpit(home, "export", "all", "--format", "sft", "--out", str(tmp_path / "file"))
    assert r.returncode == 2 and "is a file" in r.stderr


def test_without_pyarrow_parquet_layouts_say_what_to_install_and_json_ones_work(home, tmp_path):
    home, _ = home
    blocker = tmp_path / "nopyarrow" / "pyarrow"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('pyarrow is not installed here')\n")
    import os
    env = {"PYTHONPATH": os.pathsep.join([str(blocker.parent), os.environ.get("PYTHONPATH", "")])}
    r = cockpit(home, "export", "all", "--format", "preference", "--out", str(tmp_path / "p"), env=env)
    assert r.returncode == 2
    assert "writing Parquet needs pyarrow, which is not installed: pip install 'cockpit[parquet]'" in r.stderr
    r = cockpit(home, "export", "all", "--format", "preference", "--layout", "sharegpt", "--out",
                str(tmp_path / "s"), env=env)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in (tmp_path / "s" / "preference.sharegpt.jsonl").read_text().splitlines()]
    assert len(rows) == 3
