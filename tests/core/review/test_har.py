"""HAR out (issue #41): `cockpit export --format har` writes HAR 1.2 that Playwright's routeFromHAR opens (with
Debian's Chromium, no browser download); credentials only when asked; bundles carry the archive."""
import json
import zipfile

import pytest

from cockpit.cli import main as cockpit_main
from cockpit.core.store.bundle import read_bundle

REQUIRED = {"log": ("version", "creator", "entries"),
            "entry": ("startedDateTime", "time", "request", "response", "cache", "timings"),
            "request": ("method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize",
                        "bodySize"),
            "response": ("status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL",
                         "headersSize", "bodySize")}


def export(monkeypatch, store, *args):
    monkeypatch.setenv("COCKPIT_HOME", str(store.root))
    assert cockpit_main(["export", *args]) == 0


def test_a_run_exports_as_har_without_credentials(recorded_run, store, tmp_path, monkeypatch):
    run_id, shop = recorded_run
    export(monkeypatch, store, run_id, "--format", "har", "--out", str(tmp_path / "har"))
    path = tmp_path / "har" / f"{run_id}.har"
    har = json.loads(path.read_text())["log"]
    assert har["version"] == "1.2" and all(k in har for k in REQUIRED["log"])
    assert [p["id"] for p in har["pages"]] == ["step-1", "step-2", "step-3", "step-4"]
    for e in har["entries"]:
        assert all(k in e for k in REQUIRED["entry"]) and e["pageref"] in {p["id"] for p in har["pages"]}
        assert all(k in e["request"] for k in REQUIRED["request"])
        assert all(k in e["response"] for k in REQUIRED["response"]) and "mimeType" in e["response"]["content"]
    done = next(e for e in har["entries"] if e["request"]["method"] == "POST")
    assert done["pageref"] == "step-3" and done["_cockpit"]["after_action"]  # what the order button caused
    assert done["request"]["postData"]["params"][0] == {"name": "id", "value": "2"}
    assert "Order placed" in done["response"]["content"]["text"]
    def credentials(entries):
        return [h["value"] for e in entries for h in e["request"]["headers"] + e["response"]["headers"]
                if h["name"].lower() in ("authorization", "cookie", "set-cookie")]
    assert credentials(har["entries"]) == [] and "Pw-9-replayed" not in path.read_text()

    export(monkeypatch, store, run_id, "--format", "har", "--with-credentials", "--out", str(tmp_path / "cred"))
    with_cred = json.loads((tmp_path / "cred" / f"{run_id}.har").read_text())["log"]["entries"]
    assert "Bearer tok-web-123" in credentials(with_cred)


def test_playwright_routes_from_the_har(recorded_run, store, tmp_path, monkeypatch):
    playwright = pytest.importorskip("playwright.sync_api")
    run_id, shop = recorded_run
    export(monkeypatch, store, run_id, "--format", "har", "--out", str(tmp_path))
    har = tmp_path / f"{run_id}.har"
    shop.stop()  # only the HAR answers
    item = next(e["request"]["url"] for e in json.loads(har.read_text())["log"]["entries"]
                if "web_item.html" in e["request"]["url"])
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            ctx = browser.new_context()
            ctx.route_from_har(str(har), not_found="abort")
            page = ctx.new_page()
            page.goto(item)
            page.wait_for_function("document.title.startsWith('Web item ')", timeout=15000)
            assert page.title() == "Web item Red kettle"
            assert page.eval_on_selector("body", "b => getComputedStyle(b).marginTop") == "40px"  # web.css too
        finally:
            browser.close()


def test_bundles_carry_the_archive_and_its_credentials_only_when_asked(recorded_run, store, tmp_path, monkeypatch):
    run_id, _ = recorded_run
    export(monkeypatch, store, run_id, "--format", "bundle", "--out", str(tmp_path / "b.zip"))
    names = zipfile.ZipFile(tmp_path / "b.zip").namelist()
    assert f"runs/{run_id}/files/web/log.jsonl" in names
    assert any(n.startswith(f"runs/{run_id}/files/web/bodies/") for n in names)
    assert f"runs/{run_id}/files/web/credentials.jsonl" not in names
    assert b"Bearer tok-web-123" not in b"".join(zipfile.ZipFile(tmp_path / "b.zip").read(n) for n in names)
    export(monkeypatch, store, run_id, "--format", "bundle", "--with-credentials", "--out", str(tmp_path / "c.zip"))
    run = read_bundle(tmp_path / "c.zip")[0]
    assert b"Bearer tok-web-123" in run.files["web/credentials.jsonl"]
    assert run.content_hash == read_bundle(tmp_path / "b.zip")[0].content_hash  # the same run either way
