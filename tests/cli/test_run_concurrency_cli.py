"""`cockpit run --tasks FILE --concurrency 2` (#38): two tasks run at once, and every line the terminal shows
about one of them begins with its task id, whole (no line run into another task's). A real process, real
headless Chromium on the test site, the scripted model server."""
import json
import re

from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.clitools import cockpit
from tests.models import answer_with_title


def test_lines_of_tasks_run_at_once_say_their_task(site, tmp_path):
    ids = ["Local--0", "Local--1", "Local--2"]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"web_name": "Local", "id": i, "ques": f"Title of page {n}?",
                                         "web": site.url(page)}) + "\n"
                             for n, (i, page) in enumerate(zip(ids, ["agent_start.html", "agent_details.html",
                                                                     "agent_order.html"]))))
    with ModelServer(lambda body: Reply(text=answer_with_title(body), delay=0.5)) as srv:  # the runs overlap
        r = cockpit(tmp_path / "home", "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m",
                    "--concurrency", "2", "--approval", "deny")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    # walkthrough 8: nothing was printed for 20-30 s while the browsers started; now a line at once, first
    assert lines[0] == "starting 2 browsers for 3 tasks…", r.stderr
    about_runs = [ln for ln in lines if re.search(r"\brun \d{8}-\d{6}-\w+:|finished \(", ln)]
    assert len(about_runs) == 6, r.stderr  # each task's start and end, each on a line of its own
    for task_id in ids:
        mine = [ln for ln in about_runs if ln.startswith(f"[{task_id}] ")]
        assert len(mine) == 2 and "run " in mine[0] and "finished (answered)" in mine[1], r.stderr
    assert all(ln.count("finished (") + ln.count(" run 2") <= 1 for ln in lines), r.stderr  # no two run together
    assert len([ln for ln in lines if re.match(r"\[[#.]+\] \d/3 ", ln)]) == 3  # the batch's counter, whole lines
