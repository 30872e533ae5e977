"""`cockpit branch --recorded` (issue #41): a replay served from the run's web recording, on a site that has
changed, and what it says about a run that has none."""
from tests.clitools import cockpit


def test_replay_only_as_recorded_on_a_changed_site(recorded_run, store):
    run_id, shop = recorded_run
    shop.change()
    live = cockpit(store.root, "branch", run_id, "0", "--replay-only")
    assert live.returncode == 4 and "DIVERGED" in live.stdout, live.stdout + live.stderr
    before = len(shop.seen)
    r = cockpit(store.root, "branch", run_id, "0", "--replay-only", "--recorded")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "from its recording" in r.stderr and "replayed 3 steps" in r.stdout
    assert "irreversible, replayed from the recording: nothing was sent to the site" in r.stdout
    assert "0 requests not in the recording" in r.stdout
    assert len(shop.seen) == before  # the site heard nothing, the order was not posted again


def test_a_run_without_a_recording_is_refused_with_the_reason(recorded_run, store):
    run_id, _ = recorded_run
    (store.run_dir(run_id) / "web" / "log.jsonl").unlink()
    r = cockpit(store.root, "branch", run_id, "0", "--replay-only", "--recorded")
    assert r.returncode == 2 and "has no web recording" in r.stderr and "without --recorded" in r.stderr
