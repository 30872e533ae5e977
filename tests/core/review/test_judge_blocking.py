"""judge_runs_blocking: the judge on a worker thread (the window's background task), stopped by a thread's
cancel flag, its progress reported from that thread."""
import threading
import time

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.review.judge import judge_runs_blocking
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from testkit.fakeruns import make_run


def _config(srv: ModelServer) -> ModelConfig:
    return ModelConfig(base_url=srv.base_url, model="judge-model", temperature=0.0, timeout=30, backoff=0.01,
                       max_retries=1)


def test_a_batch_judged_on_a_worker_thread_reports_progress_from_it(tmp_path):
    with Store(tmp_path) as store:
        ids = [make_run(store, steps=2, task=f"task {i}") for i in range(3)]
    seen, threads = [], set()

    def progress(done, total, run_id, verdict):
        seen.append((done, total))
        threads.add(threading.current_thread().name)
    out = {}
    with ModelServer(lambda body: "All good.\nSUCCESS") as srv:
        worker = threading.Thread(name="judge-worker", target=lambda: out.setdefault("report", judge_runs_blocking(
            ids, store_root=tmp_path, config=_config(srv), k=1, api_key="x", progress=progress)))
        worker.start()
        worker.join(60)
    report = out["report"]
    assert not report.cancelled and report.errors == {}
    assert sorted(seen) == [(1, 3), (2, 3), (3, 3)] and threads == {"judge-worker"}
    with Store(tmp_path) as store:
        assert {v["run_id"]: v["verdict"] for v in L.verdicts(store)} == {i: 1 for i in ids}


def test_the_cancel_flag_stops_the_batch_and_requests_in_flight(tmp_path):
    with Store(tmp_path) as store:
        ids = [make_run(store, steps=1, task=f"task {i}") for i in range(5)]
    cancel, out = threading.Event(), {}
    with ModelServer(lambda body: Reply("SUCCESS", delay=20)) as srv:
        worker = threading.Thread(target=lambda: out.setdefault("report", judge_runs_blocking(
            ids, store_root=tmp_path, config=_config(srv), k=1, concurrency=2, api_key="x", cancel=cancel)))
        worker.start()
        deadline = time.monotonic() + 30
        while not srv.requests and time.monotonic() < deadline:  # a request is out: now cancel
            time.sleep(0.02)
        assert srv.requests
        t0 = time.monotonic()
        cancel.set()
        worker.join(10)
        took = time.monotonic() - t0
    assert not worker.is_alive() and took < 5  # not the 20 s the answers would take
    assert out["report"].cancelled
    with Store(tmp_path) as store:
        assert L.verdicts(store) == []
