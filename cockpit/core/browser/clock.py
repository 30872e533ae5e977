"""Time and randomness as a recorded run had them: ``js/clock.js``, installed before any page script.

While a run is recorded, ``Math.random`` draws from a generator seeded with the run's seed and the
document's address, and every value of ``crypto.getRandomValues`` / ``crypto.randomUUID`` is reported
through a DevTools binding (:data:`BINDING`) into the archive. A replay installs the same script with the
same seed, the recorded values, and the clock moved back to the recording's time
(:func:`source`; browser/netreplay.py). The script is added on the recording's (or the replay's) own
DevTools connection, so it goes away with that connection.
"""
from __future__ import annotations

import json

from cockpit.core import resources
from cockpit.core.browser.cdp import DirectCDPError
from cockpit.core.browser.cdpstream import CDPStream

BINDING = "__cockpitRandom"


def source(seed: int, mode: str, *, offset_ms: float | None = None, random: dict | None = None) -> str:
    cfg = {"seed": seed, "mode": mode, "report": BINDING if mode == "record" else "",
           "offsetMs": offset_ms, "random": random or {}}
    return f"({resources.script('clock.js')})({json.dumps(cfg)});"


def install(stream: CDPStream, src: str, *, binding: bool = False) -> str:
    """Add `src` before page scripts of every new document on `stream`'s tab; its identifier ("" failed)."""
    try:
        stream.call("Page.enable", timeout=5.0)  # scripts for new documents run only with it
        if binding:
            stream.call("Runtime.enable", timeout=5.0)  # bindings reach new documents only with it
            stream.call("Runtime.addBinding", {"name": BINDING}, timeout=5.0)
        return stream.call("Page.addScriptToEvaluateOnNewDocument", {"source": src}, timeout=5.0).get(
            "identifier", "")
    except DirectCDPError:
        return ""


def uninstall(stream: CDPStream, identifier: str) -> None:
    if identifier:
        try:
            stream.call("Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier}, timeout=5.0)
        except DirectCDPError:
            pass
