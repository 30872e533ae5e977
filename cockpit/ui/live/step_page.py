"""The step details' "Recorded page" tab: what the run's web recording keeps of the step (issue #41).

The element under the model's mark or point, read from the step's DOM snapshot (tag, attributes, text, a CSS
path to paste into DevTools), and the requests the step's action caused, from
:func:`cockpit.core.review.stepweb.step_web`. Worked out only while the tab is shown; the run's archive is
read once per run.
"""
from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser

from cockpit.core.review.stepweb import step_web
from cockpit.core.store.webarchive import WebArchive

MAX_REQUESTS = 60


class RecordedPage(QTextBrowser):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self._pending: tuple | None = None  # (store, run id, step row), shown when the tab is opened
        self._archive: tuple[str, WebArchive | None] | None = None  # (run id, its archive), read once

    def set_step(self, store, run_id: str, row: dict | None) -> None:
        self._pending = (store, run_id, row) if row is not None else None
        self.clear()

    def render(self) -> None:
        """Show the pending step (call when the tab becomes visible)."""
        if self._pending is None:
            return
        store, run_id, row = self._pending
        self._pending = None
        if self._archive is None or self._archive[0] != run_id:
            self._archive = (run_id, WebArchive.of(store.run_dir(run_id)))
        web = step_web(store, run_id, row, self._archive[1])
        self.setHtml(page_html(row["step"], web))


def page_html(n: int, web) -> str:
    e = html.escape
    out = [f"<h3>Step {n} as recorded</h3>"]
    if not web.recorded:
        return out[0] + f"<p><i>{e(web.note)}</i></p>"
    el = web.element
    if el is not None:
        attrs = " ".join(f'{e(k)}="{e(v[:80])}"' for k, v in el.attributes.items())
        out.append(f"<p><b>Under {e(web.how)}</b> (from the page snapshot):</p><table cellpadding=3>"
                   f"<tr><td><b>Element</b></td><td><code>&lt;{e(el.tag)} {attrs}&gt;</code></td></tr>"
                   f"<tr><td><b>Text</b></td><td>{e(el.text) or '—'}</td></tr>"
                   + (f"<tr><td><b>Value</b></td><td>{e(el.value)}</td></tr>" if el.value else "")
                   + f"<tr><td><b>CSS path</b></td><td><code>{e(el.css_path)}</code></td></tr>"
                   f"<tr><td><b>Box</b></td><td>{', '.join(f'{v:.0f}' for v in el.box)} (x, y, w, h)</td></tr>"
                   "</table>")
    elif web.note:
        out.append(f"<p><i>{e(web.note)}</i></p>")
    elif web.point is None:
        out.append("<p><i>This step's action aimed at no element (no mark, no point).</i></p>")
    else:
        out.append(f"<p><i>Nothing under {e(web.how)} in the page snapshot.</i></p>")
    reqs = web.requests
    out.append(f"<p><b>Requests the action caused</b>: {len(reqs)}</p>")
    if reqs:
        rows = "".join(f"<tr><td>{e(r['method'])}</td><td>{r['status'] or e(r['error'] or '—')}</td>"
                       f"<td>{e(r['type'])}</td><td>{e(r['url'])}</td></tr>" for r in reqs[:MAX_REQUESTS])
        more = f"<p>… and {len(reqs) - MAX_REQUESTS} more</p>" if len(reqs) > MAX_REQUESTS else ""
        out.append(f"<table cellpadding=2><tr><th>method</th><th>status</th><th>type</th><th>address</th></tr>"
                   f"{rows}</table>{more}")
    return "".join(out)
