"""What DOM element is at a point of the live page: for human mark corrections.

Read-only: runs one small script, changes nothing on the page.
"""
from __future__ import annotations

from cockpit.core.browser.session import BrowserSession

_SCRIPT = """
const [x, y] = arguments;
let el = document.elementFromPoint(x, y);
if (!el) return null;
function path(e) {
  const parts = [];
  for (; e && e.nodeType === 1 && parts.length < 12; e = e.parentElement) {
    let i = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) i++;
    parts.unshift(e.tagName.toLowerCase() + '[' + i + ']');
  }
  return '/' + parts.join('/');
}
const r = el.getBoundingClientRect();
const text = (el.innerText || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 200);
return {tag: el.tagName.toLowerCase(), id: el.id || '', classes: String(el.className || '').slice(0, 200),
        role: el.getAttribute('role') || '', aria_label: el.getAttribute('aria-label') || '',
        href: el.getAttribute('href') || '', text: text, xpath: path(el),
        bbox: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
        cursor: getComputedStyle(el).cursor};
"""


def element_at(session: BrowserSession, x: float, y: float) -> dict | None:
    """The element at viewport point (x, y), described; None when there is none."""
    return session.js(_SCRIPT, float(x), float(y))
