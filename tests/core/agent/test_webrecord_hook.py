"""The web archive hook (issue #41): a run records every exchange and each step's page as it goes."""
import gzip
import json

import pytest

from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store.webarchive import CREDENTIAL, WebArchive
from tests.webshop import WebShop, web_shopper


def run_shop(make_agent, shop, **config):
    with ModelServer(web_shopper()) as srv:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2, **config), approver=PolicyApprover(True))
        result = agent.run(Fresh("buy the red kettle", shop.url("web_list.html")))
    assert result.status == "answered", result
    return result


def test_a_run_records_its_requests_pages_and_actions(make_agent, store, tmp_path):
    with WebShop(tmp_path / "shop") as shop:
        result = run_shop(make_agent, shop)
    arc = WebArchive.of(store.run_dir(result.run_id))
    assert arc is not None and arc.meta["network"] and arc.meta["clock"]
    reqs = arc.requests()
    by_path = {(r["method"], r["url"].split("/", 3)[3].split("?")[0]): r for r in reqs}
    assert {("GET", "web_list.html"), ("GET", "web.css"), ("GET", "items.json"), ("GET", "web_item.html"),
            ("POST", "web_done.html")} <= set(by_path)
    items = by_path[("GET", "items.json")]
    assert items["status"] == 200 and json.loads(arc.body(items["body"]))[1]["name"] == "Red kettle"
    assert b"Order placed" in arc.body(by_path[("POST", "web_done.html")]["body"])
    assert arc.body(by_path[("POST", "web_done.html")]["post"]).startswith(b"id=2")
    # each body once, compressed, by its hash: web.css was loaded on three pages
    css = [r for r in reqs if r["url"].endswith("web.css")]
    assert len(css) == 3 and len({r["body"]["sha"] for r in css}) == 1
    files = list((store.run_dir(result.run_id) / "web" / "bodies").rglob("*.gz"))
    assert len(files) == len({r["body"]["sha"] for r in reqs if r.get("body")} |
                             {r["post"]["sha"] for r in reqs if r.get("post")} |
                             {s["snapshot"]["sha"] for s in arc.steps().values()})
    assert gzip.decompress(files[0].read_bytes())
    # each step's page: a DOM snapshot as the model saw it, and when the action began
    steps, acts = arc.steps(), arc.acts()
    assert sorted(steps) == [1, 2, 3] and sorted(acts) == [1, 2, 3]
    snap = json.loads(arc.body(steps[1]["snapshot"]))
    assert "Red kettle" in snap["strings"] and snap["documents"][0]["layout"]["bounds"]
    assert steps[1]["t"] < acts[1] <= by_path[("GET", "web_item.html")]["t"] < steps[2]["t"]
    # credentials only beside the log
    fetch = next(r for r in reqs if r["url"].endswith("items.json") and r["t"] > acts[1])
    auth = [v for k, v in fetch["req_headers"] if k.lower() == "authorization"]
    assert auth == [CREDENTIAL]
    assert ["Authorization", "Bearer tok-web-123"] in arc.credentials(fetch)["req"]
    assert b"tok-web-123" not in (store.run_dir(result.run_id) / "web" / "log.jsonl").read_bytes()
    # crypto.randomUUID drawn by the list page, reported as it was drawn
    assert any(r["url"].endswith("web_list.html") and len(r["hex"]) == 32 for r in
               [e for e in arc.entries if e["kind"] == "random"])
    assert store.run(result.run_id)["config"]["web"] == {"recorded": True}


def test_recording_off_keeps_no_archive(make_agent, store, tmp_path):
    with WebShop(tmp_path / "shop") as shop:
        result = run_shop(make_agent, shop, record_web=False)
    assert WebArchive.of(store.run_dir(result.run_id)) is None
    assert not (store.run_dir(result.run_id) / "web").exists()
    assert store.run(result.run_id)["config"]["agent"]["record_web"] is False


def test_without_a_devtools_event_connection_only_the_pages_are_recorded(store, tmp_path, chromedriver_url):
    """A remote WebDriver without se:cdp (a bare chromedriver): no network, each step's page through WebDriver's
    DevTools command, and the run and the archive say why; a replay as recorded is refused with that reason."""
    from cockpit.core.agent.hooks.webrecord import NO_EVENTS
    from cockpit.core.browser.session import BrowserConfig, BrowserSession
    from cockpit.core.replay.recorded import NotRecorded, ServedRun
    from tests.models import model_client

    with WebShop(tmp_path / "shop") as shop, ModelServer(web_shopper()) as srv, model_client(srv) as client, \
            BrowserSession(BrowserConfig(webdriver_url=chromedriver_url, extra_args=["--no-sandbox"])) as remote:
        from cockpit.core.agent.loop import Agent
        result = Agent(remote, client, store, config=AgentConfig(wait_seconds=0.2),
                       approver=PolicyApprover(True)).run(Fresh("buy the red kettle", shop.url("web_list.html")))
        assert result.status == "answered", result
        arc = WebArchive.of(store.run_dir(result.run_id))
        assert arc.meta["network"] is False and arc.meta["why_not"] == NO_EVENTS and arc.requests() == []
        assert sorted(arc.steps()) == [1, 2, 3] and all(s["snapshot"] for s in arc.steps().values())
        with pytest.raises(NotRecorded, match="recorded no network"):
            ServedRun.open(remote, store, result.run_id)
