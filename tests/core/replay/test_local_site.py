"""LocalSite and served_again: no directory listings, and serving again without holding others up.

Real HTTP servers on 127.0.0.1, fetched with urllib as a page's requests would be.
"""
import threading
import urllib.error
import urllib.request

import pytest

from cockpit.core.errors import CockpitError
from cockpit.core.localserver import LocalSite
from cockpit.core.replay import localfiles
from cockpit.core.replay.localfiles import served_again
from tests.clitools import free_port

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(url: str) -> tuple[int, str]:
    try:
        with OPENER.open(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def local_run(run_id: str, folder, port: int) -> dict:
    return {"id": run_id, "config": {"task_extra": {"served_from": {"folder": str(folder), "port": port}}}}


@pytest.mark.fault("hostile")
def test_a_folder_without_index_is_not_listed(tmp_path):
    (tmp_path / "secret-plans.txt").write_text("do not read")
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "salaries.csv").write_text("a,b")
    with LocalSite(tmp_path) as site:
        for path in ("", "inner/", "inner"):
            status, body = get(site.url(path))
            assert status == 404, (path, status)
            assert not any(name in body for name in ("secret-plans", "salaries", "inner")), body
        assert get(site.url("secret-plans.txt")) == (200, "do not read")  # files themselves are still served


def test_a_folder_with_index_serves_it(tmp_path):
    (tmp_path / "index.html").write_text("<title>Home</title>hello")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "index.html").write_text("inner page")
    with LocalSite(tmp_path) as site:
        assert get(site.url("")) == (200, "<title>Home</title>hello")
        assert get(site.url("sub/")) == (200, "inner page")


def test_a_started_site_entered_again_runs_once_and_stops_once(tmp_path):
    (tmp_path / "index.html").write_text("x")
    site = LocalSite(tmp_path).start()
    with site:  # as `cockpit demo` does with serve_demo_site()
        assert LocalSite.at(site.port) is site and get(site.url("")) == (200, "x")
    assert LocalSite.at(site.port) is None
    site.stop()  # again: nothing happens
    LocalSite(tmp_path).stop()  # never started: returns at once


def test_another_folder_on_the_port_is_named(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    port = free_port()
    with served_again(local_run("r1", a, port)):
        with pytest.raises(CockpitError) as e:
            with served_again(local_run("r2", b, port)):
                pass
        msg = str(e.value)
        assert f"127.0.0.1:{port}" in msg and "this Cockpit process serves another folder" in msg and str(a) in msg
        assert "same folder" not in msg
        with served_again(local_run("r3", a, port)) as again:  # the same folder nests
            assert again is LocalSite.at(port)
    assert LocalSite.at(port) is None


def test_a_site_stopping_does_not_hold_up_other_runs(tmp_path):
    """The last block for a port stops its server outside the lock: another port is served meanwhile,
    and the same port again once it is free."""
    port, other = free_port(), free_port()
    (tmp_path / "index.html").write_text("page")
    gate, leaving = threading.Event(), threading.Event()

    def first_run():
        with served_again(local_run("r1", tmp_path, port)) as site:
            real_stop = site.stop

            def slow_stop():  # a stop that takes as long as the test wants
                leaving.set()
                gate.wait(10)
                real_stop()
            site.stop = slow_stop
    t = threading.Thread(target=first_run)
    t.start()
    assert leaving.wait(10)
    results = {}

    def serve(key, p):
        with served_again(local_run(key, tmp_path, p)) as s:
            results[key] = get(s.url(""))
    meanwhile = threading.Thread(target=serve, args=("other", other))
    meanwhile.start()
    meanwhile.join(5)
    assert not meanwhile.is_alive() and results["other"] == (200, "page")  # not waiting for the stop
    same = threading.Thread(target=serve, args=("same", port))
    same.start()
    same.join(0.3)
    assert same.is_alive()  # waits for the port to come free...
    gate.set()
    t.join(10)
    same.join(10)
    assert results["same"] == (200, "page")  # ...and then serves it again
    assert localfiles._serving == {} and localfiles._closing == {}
