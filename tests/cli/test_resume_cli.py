"""What `cockpit resume` and `cockpit branch` tell the user: option defaults, the step counter, look-ahead."""
import re

from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.store import Store
from tests.clitools import cockpit
from tests.lookahead_helpers import calls, kind

SCROLL = "Thought: read on.\nAction: Scroll [WINDOW]; down"


def flat(text: str) -> str:
    return " ".join(text.split())


def option_help(help_text: str, option: str) -> str:
    """The help of one option (argparse wraps it over several lines)."""
    m = re.search(rf"^  {re.escape(option)}\b(.*?)(?=^  -|^\S|\Z)", help_text, re.S | re.M)
    assert m, f"no {option} in:\n{help_text}"
    return flat(m.group(1))


def test_resume_and_branch_help_say_which_defaults_come_from_the_run(tmp_path):
    resume = cockpit(tmp_path, "resume", "--help").stdout
    branch = cockpit(tmp_path, "branch", "--help").stdout
    for text, whose in ((resume, "the run's"), (branch, "the parent run's")):
        assert "(default gpt-4o)" not in text and "(default 1.0)" not in text and "default: OpenAI" not in text
        assert option_help(text, "--model").endswith(f"(default: {whose} model)")
        assert option_help(text, "--base-url").endswith(f"(default: {whose} server)")
        for opt in ("--temperature", "--max-tokens", "--timeout", "--retries", "--image-detail", "--image-format"):
            assert option_help(text, opt).endswith(f"(default: {whose})"), opt
    assert option_help(resume, "--max-steps").endswith("(default: what is left of the run's budget)")
    # branch's budget is the new run's own: 15, whatever the parent had; the help says so.
    assert "(default 15, whatever the parent's budget)" in option_help(branch, "--max-steps")
    assert "--no-lookahead" in resume


def fail_then_go_on(fail_at: set[int], answer_at: int):
    """The agent's model: scrolls, answers with a 500 at the agent calls in `fail_at` (the run fails there,
    --retries 0), and answers at call `answer_at`. Preview (forecast) calls get a short prediction."""
    count = {"agent": 0}

    def model(body):
        if kind(body) == "forecast":
            return "Nothing visible changes."
        count["agent"] += 1
        n = count["agent"]
        if n in fail_at:
            return Reply(status=500, error_message="the model is down")
        return "Thought: done.\nAction: ANSWER; done" if n >= answer_at else SCROLL
    return model


def step_lines(stderr: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"^step (\d+)/(\d+) ", stderr, re.M)]


def test_resumed_run_counts_steps_against_its_whole_budget_and_uses_the_run_s_model_settings(site, tmp_path):
    home = tmp_path / "home"
    with ModelServer(fail_then_go_on({2}, answer_at=99)) as srv:
        r = cockpit(home, "run", "--task", "Read the page", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m", "--temperature", "0.3", "--retries", "0",
                    "--max-steps", "4")
        assert r.returncode == 1, r.stderr
        assert step_lines(r.stderr)[0] == (1, 4)
        rid = re.search(r"^run (\S+):", r.stderr, re.M).group(1)
        before = len(srv.requests)
        res = cockpit(home, "resume", rid, "--approval", "allow")
        assert res.returncode == 0, res.stderr
        resumed = srv.requests[before:]
    m = re.search(r"resuming \S+ at step (\d+) \((\d+) agent steps? left\)", res.stderr)
    assert m, res.stderr
    first, left = int(m.group(1)), int(m.group(2))
    assert left == 3  # 4 - the one scroll that was taken
    lines = step_lines(res.stderr)
    assert [n for n, _ in lines] == list(range(first, first + left)), res.stderr
    assert all(total == first - 1 + left for _, total in lines), res.stderr  # e.g. step 5/5, never 5/3
    assert all(n <= total for n, total in lines)
    assert f"finished (max_steps) after {first - 1 + left} steps" in res.stderr
    # Model options not given: the run's model and temperature, as the help says (not gpt-4o, 1.0).
    assert resumed and all(b["model"] == "m" and b["temperature"] == 0.3 for b in resumed)


def test_resume_says_it_uses_the_run_s_preview_and_no_lookahead_goes_on_without(site, tmp_path):
    home = tmp_path / "home"
    with ModelServer(fail_then_go_on({2, 4}, answer_at=6)) as srv:
        r = cockpit(home, "run", "--task", "Read the page", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m", "--preview-model", "pm", "--retries", "0",
                    "--max-steps", "8", "--approval", "allow")
        assert r.returncode == 1, r.stderr
        rid = re.search(r"^run (\S+):", r.stderr, re.M).group(1)
        previews = len(calls(srv, "forecast"))
        assert previews >= 1  # the run was made with a preview

        off = cockpit(home, "resume", rid, "--no-lookahead", "--approval", "allow")
        assert off.returncode == 1, off.stderr  # fails again at the 500: resumable once more
        assert "world-model preview" not in off.stderr
        assert len(calls(srv, "forecast")) == previews  # no preview calls without the look-ahead
        assert "FAILED after" in off.stderr

        on = cockpit(home, "resume", rid, "--approval", "allow")
        assert on.returncode == 0, on.stderr
        assert (f"resuming with the run's world-model preview (model pm at {srv.base_url}); "
                "--no-lookahead goes on without it") in on.stderr
        assert len(calls(srv, "forecast")) > previews  # and it did use it
    with Store(home) as store:
        assert store.run(rid)["status"] == "answered"
    shown = cockpit(home, "runs", rid).stdout  # the forecasts, step by step, on the command line too
    assert "  forecast: Nothing visible changes.  (pm)" in shown


def test_a_branch_asks_as_its_parent_did_unless_told_otherwise(site, tmp_path):
    """A parent run that asked before every action: its branch asks before every action too (it used to fall
    back to 'irreversible' only). --ask-before given on the branch still wins."""
    home = tmp_path / "home"
    with ModelServer(fail_then_go_on(set(), answer_at=3)) as srv:
        r = cockpit(home, "run", "--task", "Read the page", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m", "--ask-before", "every", "--approval", "allow")
        assert r.returncode == 0, r.stderr
        parent = re.search(r"^run (\S+):", r.stderr, re.M).group(1)
        asked = cockpit(home, "branch", parent, "2", "--base-url", srv.base_url, "--approval", "allow")
        told = cockpit(home, "branch", parent, "2", "--base-url", srv.base_url, "--approval", "allow",
                       "--ask-before", "never")
    assert asked.returncode == 0 and told.returncode == 0, asked.stderr + told.stderr
    def policy(branched) -> str:
        run_id = re.search(r"^\d{8}-\d{6}-[0-9a-f]+$", branched.stdout, re.M).group(0)  # the new run's id
        return store.run(run_id)["config"]["agent"]["approval_policy"]
    with Store(home) as store:
        assert policy(asked) == "every" and policy(told) == "never"
    # `cockpit runs BRANCH` says where the branch goes on from, and each step's number in its parent
    branch = re.search(r"^\d{8}-\d{6}-[0-9a-f]+$", asked.stdout, re.M).group(0)
    shown = cockpit(home, "runs", branch)
    assert shown.returncode == 0, shown.stderr
    assert f"continues run {parent} at step 2 (its step 1 is that run's step 2)" in shown.stdout
    assert f"\nstep 1 (run {parent}'s step 2)" in shown.stdout, shown.stdout
