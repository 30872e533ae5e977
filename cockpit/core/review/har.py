"""A run's web archive as HAR 1.2 (HTTP Archive), for Chrome DevTools, Playwright's ``routeFromHAR`` and
any HAR viewer (``cockpit export --format har``).

One HAR page per recorded step (``step-<n>``, titled with the step's action); each entry's ``pageref`` is the
step it happened in (by time: the last step that had begun). Bodies are embedded: text as it is, anything
else base64 (``content.encoding``); request bodies as ``postData`` with their form parameters. Credentials
(``Authorization``, ``Cookie``, ``Set-Cookie`` headers, and the cookie lists) are left out unless
`credentials` is set and the run's folder still has them. Cockpit's own fields start with ``_`` as HAR
allows: ``_resourceType``, ``_cockpit`` (the step, whether the action of that step had begun, errors).
The format: http://www.softwareishard.com/blog/har-12-spec/ (HAR 1.2), as Chrome and Playwright write it.
"""
from __future__ import annotations

import base64
import bisect
import datetime as dt
import json
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from cockpit.core.store import Store
from cockpit.core.store.webarchive import CREDENTIAL, WebArchive

TEXT_TYPES = ("text/", "application/json", "application/javascript", "application/x-javascript",
              "application/xml", "application/xhtml", "image/svg+xml", "application/ld+json",
              "application/x-www-form-urlencoded", "application/manifest+json")


class NoArchive(LookupError):
    pass


def iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def header_value(headers: list, name: str) -> str:
    return next((v for k, v in headers if k.lower() == name), "")


def is_text(mime: str, data: bytes) -> bool:
    if mime.startswith(TEXT_TYPES) or "+json" in mime or "+xml" in mime:
        try:
            data.decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False
    return False


def run_har(store: Store, run_id: str, *, credentials: bool = False) -> dict:
    """The HAR of run `run_id` as a dict; NoArchive when the run recorded no web archive."""
    arc = WebArchive.of(store.run_dir(run_id))
    if arc is None:
        raise NoArchive(f"run {run_id} has no web recording (made with recording off, before Cockpit recorded "
                        "the web, or imported without it)")
    rows = {r["step"]: r for r in store.steps(run_id, with_request=False)}
    recorded = arc.steps()
    begins = sorted((r.get("started") or 0.0, n) for n, r in rows.items())
    pages = []
    for n in sorted(set(recorded) | set(rows)):
        row, st = rows.get(n) or {}, recorded.get(n) or {}
        t = row.get("started") or st.get("t") or arc.meta.get("t") or 0.0
        pages.append({"startedDateTime": iso(t), "id": f"step-{n}",
                      "title": f"step {n}: {row.get('action') or ''} ({st.get('url') or row.get('url') or ''})",
                      "pageTimings": {"onContentLoad": -1, "onLoad": -1}})
    acts = arc.acts()
    entries = [_entry(arc, e, begins, acts, credentials) for e in arc.requests()]
    entries.sort(key=lambda e: e["startedDateTime"])
    return {"log": {"version": "1.2", "creator": {"name": "Cockpit", "version": _version_of_cockpit()},
                    "browser": {"name": "Chromium", "version": ""}, "pages": pages, "entries": entries,
                    "comment": f"run {run_id}" + ("" if credentials and arc.has_credentials
                                                 else "; credentials left out")}}


def write_har(store: Store, run_id: str, out: Path, *, credentials: bool = False) -> Path:
    out.write_text(json.dumps(run_har(store, run_id, credentials=credentials), ensure_ascii=False, indent=1),
                   encoding="utf-8")
    return out


def _entry(arc: WebArchive, e: dict, begins: list, acts: dict, credentials: bool) -> dict:
    cred = arc.credentials(e) if credentials else {}
    req_h = _headers(arc, e.get("req_headers") or [], cred.get("req") or [], credentials)
    resp_h = _headers(arc, e.get("resp_headers") or [], cred.get("resp") or [], credentials)
    i = bisect.bisect_right(begins, (e["t"], float("inf"))) - 1
    n = begins[i][1] if i >= 0 else (begins[0][1] if begins else 0)
    total = max(0.0, ((e.get("end") or e["t"]) - e["t"]) * 1000)
    body = arc.body(e.get("body")) or b""
    mime = e.get("mime") or header_value(resp_h, "content-type") or "x-unknown"
    content = {"size": len(body), "mimeType": mime}
    if body:
        if is_text(mime, body):
            content["text"] = body.decode("utf-8")
        else:
            content["text"], content["encoding"] = base64.b64encode(body).decode("ascii"), "base64"
    request = {"method": e.get("method", "GET"), "url": e["url"], "httpVersion": _version(e),
               "cookies": _cookies(header_value(req_h, "cookie")) if credentials else [],
               "headers": [{"name": k, "value": v} for k, v in req_h],
               "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(e["url"]).query,
                                                                             keep_blank_values=True)],
               "headersSize": -1, "bodySize": 0}
    post = arc.body(e.get("post"))
    if post is not None:
        ptype = header_value(req_h, "content-type") or "application/octet-stream"
        text = post.decode("utf-8", "replace")
        request["postData"] = {"mimeType": ptype, "text": text}
        if ptype.startswith("application/x-www-form-urlencoded"):
            request["postData"]["params"] = [{"name": k, "value": v} for k, v in parse_qsl(text, keep_blank_values=True)]
        request["bodySize"] = len(post)
    response = {"status": int(e.get("status") or 0), "statusText": e.get("status_text") or "",
                "httpVersion": _version(e), "cookies": [], "headers": [{"name": k, "value": v} for k, v in resp_h],
                "content": content, "redirectURL": e.get("redirect") or header_value(resp_h, "location"),
                "headersSize": -1, "bodySize": e.get("size") if e.get("size") else len(body)}
    if e.get("error") and not e.get("status"):
        response["_error"] = e["error"]
    out = {"pageref": f"step-{n}", "startedDateTime": iso(e["t"]), "time": total, "request": request,
           "response": response, "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1,
                                                          "send": 0, "wait": total, "receive": 0},
           "_resourceType": (e.get("type") or "other").lower(),
           "_cockpit": {"step": n, "after_action": bool(acts.get(n) and e["t"] >= acts[n]),
                        **{k: e[k] for k in ("error", "body_error") if e.get(k)}}}
    if e.get("remote"):
        out["serverIPAddress"] = e["remote"].rsplit(":", 1)[0].strip("[]")
    return out


def _headers(arc: WebArchive, pairs: list, kept: list, credentials: bool) -> list:
    if credentials:
        pairs = arc.with_credentials(pairs, kept)
    return [[k, v] for k, v in pairs if v != CREDENTIAL]


def _version(e: dict) -> str:
    p = (e.get("protocol") or "").lower()
    return {"h2": "HTTP/2.0", "h3": "HTTP/3", "http/1.0": "HTTP/1.0"}.get(p, "HTTP/1.1")


def _cookies(header: str) -> list:
    out = []
    for part in header.split(";"):
        if "=" in part:
            k, v = part.strip().split("=", 1)
            out.append({"name": k, "value": v})
    return out


def _version_of_cockpit() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("cockpit")
    except PackageNotFoundError:  # a frozen bundle without metadata
        return ""
