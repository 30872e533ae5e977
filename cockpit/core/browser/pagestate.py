"""A page as it is at one moment, for the web archive: its DOM snapshot, cookies and storage.

``DOMSnapshot.captureSnapshot`` gives every node of the page and of its frames with attributes, text,
input values, layout boxes and paint order (what ``cockpit.core.page.snapshot`` reads back: the element
at a point, its CSS path). The values of password fields are blanked in the snapshot; whatever else was
typed into a secret field is scrubbed by the archive as it writes. Cookies come from ``Network.getCookies``
(those the page's addresses would send), storage from the page itself (``localStorage`` and
``sessionStorage`` of the top document, at most :data:`MAX_STORAGE` characters each).
"""
from __future__ import annotations

import json
import logging

from cockpit.core.browser.cdpstream import CDPStream

log = logging.getLogger(__name__)

STYLES: list[str] = []  # no computed styles: the boxes and paint order say what was on top
MAX_STORAGE = 200_000
_STORAGE = ("(() => { const read = s => { const o = {}; try { for (let i = 0; i < s.length; i++) "
            "{ const k = s.key(i); o[k] = s.getItem(k); } } catch (e) { /* denied */ } return o; }; "
            "let l = {}, s = {}; try { l = read(localStorage); } catch (e) { /* opaque origin */ } "
            "try { s = read(sessionStorage); } catch (e) { /* opaque origin */ } "
            f"const cut = o => {{ const t = JSON.stringify(o); return t.length > {MAX_STORAGE} ? "
            "{'(cut)': t.length} : o; }; return {local: cut(l), session: cut(s), origin: location.origin}; })()")


def blank_passwords(snap: dict) -> None:
    """Replace the input values of ``type=password`` fields with "" in a captured snapshot."""
    strings = snap.get("strings") or []
    try:
        empty = strings.index("")
    except ValueError:
        strings.append("")
        empty = len(strings) - 1
    for doc in snap.get("documents") or []:
        nodes = doc.get("nodes") or {}
        attrs = nodes.get("attributes") or []
        values = nodes.get("inputValue") or {}
        secret = set()
        for i, pairs in enumerate(attrs):
            named = {strings[pairs[j]].lower(): strings[pairs[j + 1]].lower() for j in range(0, len(pairs) - 1, 2)}
            if named.get("type") == "password" or named.get("autocomplete", "").startswith(("cc-", "one-time")):
                secret.add(i)
        for k, node in enumerate(values.get("index") or []):
            if node in secret:
                values["value"][k] = empty


def capture(stream: CDPStream, timeout: float = 15.0) -> tuple[bytes | None, list, dict]:
    """(snapshot, cookies, storage), the three asked for at once (the page answers them in one go)."""
    asked = [stream.call_async("DOMSnapshot.captureSnapshot", {"computedStyles": STYLES, "includePaintOrder": True}),
             stream.call_async("Network.getCookies", {}),
             stream.call_async("Runtime.evaluate", {"expression": _STORAGE, "returnByValue": True})]
    got = []
    for fut in asked:
        try:
            msg = fut.result(timeout)
        except Exception as e:  # noqa: BLE001 - no reply in time: that part is missing
            log.info("page state not recorded: %s", e)
            msg = {}
        got.append(msg.get("result") if "result" in msg else None)
    snap_raw, cookie_res, storage_res = got
    snap = None
    if snap_raw is not None:
        blank_passwords(snap_raw)
        snap = json.dumps(snap_raw, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return (snap, (cookie_res or {}).get("cookies") or [],
            ((storage_res or {}).get("result") or {}).get("value") or {})
