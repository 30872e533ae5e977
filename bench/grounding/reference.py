"""The reference: what a person could click on the page, built without som.js.

Taken once the page has been idle for several seconds (see run.wait_idle), from
Chrome itself over CDP, through the session's WebDriver connection
(``session.cdp`` = ``driver.execute_cdp_cmd``):

1. **Accessibility tree.** ``Accessibility.getFullAXTree`` of the main frame.
   A node is a target when it is not ignored, not disabled, has a DOM node, and
   its role is interactive: button, link, textbox, searchbox, combobox,
   checkbox, radio, switch, slider, spinbutton, tab, menuitem(checkbox|radio),
   treeitem, option / ListBoxOption / MenuListOption (only visible ones count,
   so a closed ``<select>``'s options never do), DisclosureTriangle (a
   ``<summary>``), PopUpButton, ColorWell and the date/time inputs; listbox
   only when it is a native ``<select>``. Containers (menu, tablist, tree,
   grid, radiogroup, row, cell) are not targets.
2. **Listener-only clickables.** ``DOMDebugger.getEventListeners`` with
   ``depth=-1, pierce=true`` on the document and on window gives every
   listener for click, mousedown, mouseup, pointerdown, pointerup,
   touchstart, touchend and dblclick (inline ``onclick=`` included) with the
   node it sits on. An element that is not already a target counts when:
   its computed ``cursor`` is ``pointer`` and its parent's is not (it is
   where the pointer starts; cursor is inherited, so its insides do not
   count again), it carries such a listener itself or has an ancestor that
   does (delegation: jQuery ``.on(sel)``, a framework's root listener, or
   one on document/window), it is neither inside nor around a target of
   rule 1 (a wrapper around a real control is not a second target: the
   innermost real control is), and it is not ``<html>``/``<body>``.
   A ``cursor`` other than pointer (a modal's backdrop, a drag surface, a
   framework root) is not evidence enough.
3. **Labels of hidden controls.** A ``<label>`` with ``cursor: pointer`` whose
   control is a checkbox or radio that is itself not visible (custom checkboxes, CSS-only toggles
   as in MkDocs Material) is the target a person clicks; the same for a
   checkbox/radio/switch of rule 1 whose own box is invisible: its label's
   box stands for it.
4. **Hidden from the tree, not from the eye.** A link, button, input, select,
   textarea, summary or element with an interactive ``role`` attribute that is
   not disabled but sits under ``aria-hidden="true"`` (a popup that hides
   everything outside it from assistive technology, as React Aria's does) is
   a target all the same when it is visible and uncovered.
5. **Editors with a hidden textarea.** A text field of rule 1 (a textarea or
   text input) that is not visible itself (CodeMirror 5 types through a
   textarea in a 3x0 px box) stands for its nearest ancestor (up to 8 up)
   with a visible box of at least 20x10 px, holding no other target of rule 1,
   where one of the five hit-test points (below) lands on something of its
   own with ``cursor: text``: the editor a person clicks into.

Every target must be **visible in the viewport**: its box (getBoundingClientRect,
clipped to the viewport and to ancestors with overflow other than visible, up
to a fixed-position ancestor) is at least 3x3 px, visibility is visible,
no ancestor has opacity < 0.05, and the browser's own hit test
(``elementFromPoint``, descending into shadow roots) at one of five points of
the clipped box (centre and four at 25%/75%) lands on the element, inside it,
or on one of its labels: a target under a modal, a sticky header or another
layer is covered and not a target.

**Nesting.** When a target lies inside another and covers at least 70% of its
area (``<li role=option><a>..</a></li>``, a button filling its tab), they are one
target: the inner one is kept. Smaller targets inside a larger one (a button in
a link card, a treeitem's children) stay separate. Two targets with nearly the
same box (IoU >= 0.8: a custom radio's label and a link inside it) are one.

Frames: only the main frame is read (none of the bench's apps puts controls
in an iframe); marks inside iframes are scored like any other.
"""
from __future__ import annotations

from cockpit.core.browser.session import BrowserSession

ROLES = {
    "button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "switch", "slider",
    "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "option",
    "listboxoption", "menulistoption", "disclosuretriangle", "popupbutton", "colorwell", "date",
    "datetime", "inputtime", "togglebutton", "listbox",
}
CLICK_EVENTS = {"click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend",
                "dblclick"}
GROUP = "grounding-ref"

# Runs in the page with `this` = document and arguments: count of AX elements, then the AX elements,
# then the listener hosts, then a flag (a click listener on document/window/html/body).
_GEOMETRY_JS = r"""
function(nAx, ...rest) {
  const axEls = rest.slice(0, nAx), hosts = new Set(rest.slice(nAx, rest.length - 1));
  const docDelegates = rest[rest.length - 1];
  const de = document.documentElement;
  const VW = de.clientWidth || innerWidth, VH = de.clientHeight || innerHeight;
  const parentOf = el => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const within = (node, anc) => { for (let a = node; a; a = a.nodeType === 1 ? parentOf(a) : (a.parentNode || a.host)) if (a === anc) return true; return false; };
  const isect = (a, b) => { const x1 = Math.max(a[0], b[0]), y1 = Math.max(a[1], b[1]), x2 = Math.min(a[2], b[2]), y2 = Math.min(a[3], b[3]); return x2 - x1 >= 1 && y2 - y1 >= 1 ? [x1, y1, x2, y2] : null; };
  function deepHit(x, y) {
    let h = document.elementFromPoint(x, y);
    while (h && h.shadowRoot) { const h2 = h.shadowRoot.elementFromPoint(x, y); if (!h2 || h2 === h) break; h = h2; }
    return h;
  }
  function box(el) {
    if (!el || el.nodeType !== 1 || !el.isConnected) return null;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible" || cs.display === "none") return null;
    let b = isect([r.left, r.top, r.right, r.bottom], [0, 0, VW, VH]);
    if (!b) return null;
    let fixed = cs.position === "fixed";
    for (let a = el; a; a = parentOf(a)) {
      const s = getComputedStyle(a);
      if (parseFloat(s.opacity) < 0.05) return null;
      if (a !== el && !fixed && (s.overflowX !== "visible" || s.overflowY !== "visible") && a !== de && a !== document.body) {
        const ar = a.getBoundingClientRect();
        b = isect(b, [ar.left, ar.top, ar.right, ar.bottom]);
        if (!b) return null;
      }
      if (a !== el && s.position === "fixed") fixed = true;
    }
    if (b[2] - b[0] < 3 || b[3] - b[1] < 3) return null;
    return b;
  }
  function hit(el, b, alsoEls) {
    const w = b[2] - b[0], h = b[3] - b[1];
    const pts = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
    for (const [fx, fy] of pts) {
      const x = b[0] + w * fx, y = b[1] + h * fy;
      const t = deepHit(x, y);
      if (!t) continue;
      if (within(t, el)) return true;
      for (const o of alsoEls) if (o && within(t, o)) return true;
    }
    return false;
  }
  const labelsOf = el => { try { return el.labels ? Array.from(el.labels) : []; } catch (e) { return []; } };
  const text = el => ((el.innerText || el.value || el.getAttribute("aria-label") || el.getAttribute("title") || el.getAttribute("placeholder") || "") + "").replace(/\s+/g, " ").trim().slice(0, 80);
  const out = [];
  const axSet = new Set(axEls.filter(Boolean));
  axEls.forEach((el, i) => {
    if (!el) return out.push(null);
    let b = box(el), via = "";
    const labels = labelsOf(el);
    if (b && hit(el, b, labels)) return out.push({ i, box: b, via, tag: el.tagName.toLowerCase(), text: text(el) });
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (el.tagName === "INPUT" && (type === "checkbox" || type === "radio") || ["checkbox", "radio", "switch"].includes(el.getAttribute("role"))) {
      const lab = labels[0] || (el.closest && el.closest("label"));
      const lb = lab && box(lab);
      if (lb && hit(lab, lb, [el])) return out.push({ i, box: lb, via: "label", tag: "label", text: text(lab) });
    }
    const textual = el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && ["text", "search", ""].includes(type));
    if (textual) {  // an editor typing through a hidden textarea
      let a = parentOf(el);
      for (let k = 0; a && k < 8; k++, a = parentOf(a)) {
        if (axEls.some(o => o && o !== el && within(o, a))) break;  // not a form or section around other controls
        const ab = box(a);
        if (!ab || ab[2] - ab[0] < 20 || ab[3] - ab[1] < 10) continue;
        const texty = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]].some(([fx, fy]) => {
          const c = deepHit(ab[0] + (ab[2] - ab[0]) * fx, ab[1] + (ab[3] - ab[1]) * fy);
          return c && within(c, a) && getComputedStyle(c).cursor === "text"; });
        if (texty) return out.push({ i, box: ab, via: "editor", tag: a.tagName.toLowerCase(), text: text(a) });
      }
    }
    out.push(null);
  });
  // Ancestors of AX targets: a listener-only wrapper around one is not a target of its own.
  const axAnc = new Set();
  for (const el of axSet) for (let a = parentOf(el); a && !axAnc.has(a); a = parentOf(a)) axAnc.add(a);
  const insideAx = el => { for (let a = el; a; a = parentOf(a)) if (axSet.has(a)) return true; return false; };
  const delegated = el => { if (docDelegates) return true; for (let a = el; a; a = parentOf(a)) if (hosts.has(a)) return true; return false; };
  const extra = [];
  const NATIVE = /^(A|BUTTON|INPUT|SELECT|TEXTAREA|SUMMARY)$/;
  const ROLE_ATTR = new Set(["button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "switch", "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "option"]);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "path", "HTML", "BODY"]);
  function walk(root) {
    const all = root.querySelectorAll("*");
    for (const el of all) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (SKIP.has(el.tagName) || axSet.has(el)) continue;
      let kind = "";
      if (NATIVE.test(el.tagName) || ROLE_ATTR.has((el.getAttribute("role") || "").toLowerCase())) {
        // hidden from the accessibility tree by aria-hidden on it or an ancestor (a popup's
        // "hide outside"), yet on screen: a person still sees and clicks it
        if (el.disabled || el.getAttribute("aria-disabled") === "true" || (el.tagName === "INPUT" && el.type === "hidden")) continue;
        if (el.tagName === "A" && !el.hasAttribute("href")) continue;
        if (!el.closest("[aria-hidden=true]")) continue;
        kind = "aria-hidden";
      }
      if (el.tagName === "LABEL") {
        const c = el.control;
        if (c && (c.type === "checkbox" || c.type === "radio") && !axSet.has(c) && !within(c, el) && !box(c)
            && getComputedStyle(el).cursor === "pointer") kind = "label";
        else if (c && (c.type === "checkbox" || c.type === "radio") && axSet.has(c) && !within(c, el)) continue;
      }
      if (!kind) {
        const cs = getComputedStyle(el);
        if (cs.cursor !== "pointer") continue;
        const p = parentOf(el);
        if (p && p.nodeType === 1 && getComputedStyle(p).cursor === "pointer") continue;
        if (!delegated(el)) continue;
        kind = hosts.has(el) ? "listener" : "delegated";
      }
      if (insideAx(el) || axAnc.has(el)) continue;
      const b = box(el);
      if (!b || !hit(el, b, [])) continue;
      extra.push({ el, box: b, via: kind, tag: el.tagName.toLowerCase(), text: text(el) });
    }
  }
  walk(document);
  window.__groundingExtra = extra.map(e => e.el);
  return { ax: out, extra: extra.map(e => ({ box: e.box, via: e.via, tag: e.tag, text: e.text })), vw: VW, vh: VH };
}
"""

_NESTING_JS = r"""
function(...els) {
  const parentOf = el => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const out = [];
  els.forEach((el, i) => { for (let a = el && parentOf(el); a; a = parentOf(a)) { const j = els.indexOf(a); if (j >= 0) { out.push([i, j]); break; } } });
  return out;
}
"""


def _resolve(session: BrowserSession, backend_id: int) -> str | None:
    try:
        return session.cdp("DOM.resolveNode", {"backendNodeId": backend_id, "objectGroup": GROUP})["object"]["objectId"]
    except Exception:
        return None


def _area(b) -> float:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


def reference(session: BrowserSession) -> list[dict]:
    """The reference targets: [{box: [x, y, w, h], role, name, tag, text, via}], in the viewport."""
    cdp = session.cdp
    cdp("DOM.enable")
    cdp("Accessibility.enable")
    try:
        cdp("DOM.getDocument", {"depth": -1, "pierce": True})
        ax_nodes = cdp("Accessibility.getFullAXTree").get("nodes", [])
        ax = []
        for n in ax_nodes:
            if n.get("ignored") or not n.get("backendDOMNodeId"):
                continue
            role = str((n.get("role") or {}).get("value", "")).lower()
            if role not in ROLES:
                continue
            props = {p["name"]: (p.get("value") or {}).get("value") for p in n.get("properties", [])}
            if props.get("disabled") is True or props.get("hidden") is True:
                continue
            ax.append({"backend": n["backendDOMNodeId"], "role": role,
                       "name": str((n.get("name") or {}).get("value", ""))[:80]})
        # listeners on the whole (pierced) tree, and on window
        doc_obj = cdp("Runtime.evaluate", {"expression": "document", "objectGroup": GROUP})["result"]["objectId"]
        win_obj = cdp("Runtime.evaluate", {"expression": "window", "objectGroup": GROUP})["result"]["objectId"]
        listeners = cdp("DOMDebugger.getEventListeners", {"objectId": doc_obj, "depth": -1, "pierce": True})
        win_listeners = cdp("DOMDebugger.getEventListeners", {"objectId": win_obj})
        doc_delegates = any(l["type"] in CLICK_EVENTS for l in win_listeners.get("listeners", []))
        host_ids = set()
        for l in listeners.get("listeners", []):
            if l["type"] in CLICK_EVENTS and l.get("backendNodeId"):
                host_ids.add(l["backendNodeId"])
        # the document node itself, <html> and <body>: delegation for everything below
        top = cdp("DOM.describeNode", {"objectId": doc_obj})["node"]["backendNodeId"]
        root_ids = {top}
        for expr in ("document.documentElement", "document.body"):
            r = cdp("Runtime.evaluate", {"expression": expr, "objectGroup": GROUP})["result"]
            if r.get("objectId"):
                root_ids.add(cdp("DOM.describeNode", {"objectId": r["objectId"]})["node"]["backendNodeId"])
        if host_ids & root_ids:
            doc_delegates = True
        host_ids -= root_ids
        ax_objs = [_resolve(session, a["backend"]) for a in ax]
        host_objs = [o for o in (_resolve(session, h) for h in sorted(host_ids)) if o]
        args = [{"value": len(ax_objs)}] + [{"objectId": o} if o else {"value": None} for o in ax_objs] \
            + [{"objectId": o} for o in host_objs] + [{"value": doc_delegates}]
        res = cdp("Runtime.callFunctionOn", {"functionDeclaration": _GEOMETRY_JS, "objectId": doc_obj,
                                             "arguments": args, "returnByValue": True,
                                             "objectGroup": GROUP})
        if res.get("exceptionDetails"):
            raise RuntimeError(f"reference script failed: {res['exceptionDetails']}")
        val = res["result"]["value"]
        targets, objs = [], []
        for a, g, o in zip(ax, val["ax"], ax_objs, strict=False):
            if g is None or (a["role"] == "listbox" and g["tag"] != "select"):
                continue
            targets.append({"box": g["box"], "role": a["role"], "name": a["name"], "tag": g["tag"],
                            "text": g["text"], "via": "ax" + ("+" + g["via"] if g["via"] else "")})
            objs.append(o)
        extra_objs = []
        if val["extra"]:
            arr = cdp("Runtime.evaluate", {"expression": "window.__groundingExtra", "objectGroup": GROUP})
            props = cdp("Runtime.getProperties", {"objectId": arr["result"]["objectId"], "ownProperties": True})
            by_index = {p["name"]: p["value"].get("objectId") for p in props["result"] if p["name"].isdigit()}
            extra_objs = [by_index.get(str(i)) for i in range(len(val["extra"]))]
            session.js("delete window.__groundingExtra")
        for e, o in zip(val["extra"], extra_objs, strict=False):
            targets.append({"box": e["box"], "role": "", "name": "", "tag": e["tag"], "text": e["text"],
                            "via": e["via"]})
            objs.append(o)
        targets = _merge_nested(session, targets, objs, doc_obj)
        targets = _merge_same_box(targets)
    finally:
        try:
            cdp("Runtime.releaseObjectGroup", {"objectGroup": GROUP})
        except Exception:
            pass
    for t in targets:
        x1, y1, x2, y2 = t["box"]
        t["box"] = [round(x1), round(y1), round(x2 - x1), round(y2 - y1)]
    return targets


def _iou(a, b) -> float:
    i = _area([max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])])
    u = _area(a) + _area(b) - i
    return i / u if u > 0 else 0.0


def _merge_same_box(targets) -> list[dict]:
    """Two targets with nearly the same box (IoU >= 0.8; a custom radio's label and the link inside
    it, say) are one thing to click: the first (accessibility tree order, rule 1 before 2 and 3) is kept."""
    kept = []
    for t in targets:
        if not any(_iou(t["box"], k["box"]) >= 0.8 for k in kept):
            kept.append(t)
    return kept


def _merge_nested(session, targets, objs, doc_obj) -> list[dict]:
    """Drop a target whose inner target covers >= 70% of it (the inner, real control is kept)."""
    if not targets:
        return targets
    args = [{"objectId": o} if o else {"value": None} for o in objs]
    pairs = session.cdp("Runtime.callFunctionOn", {"functionDeclaration": _NESTING_JS, "objectId": doc_obj,
                                                   "arguments": args, "returnByValue": True,
                                                   "objectGroup": GROUP})["result"]["value"]
    drop = set()
    for inner, outer in pairs:
        bi, bo = targets[inner]["box"], targets[outer]["box"]
        if _area(bo) > 0 and _area(bi) >= 0.7 * _area(bo):
            drop.add(outer)
    return [t for i, t in enumerate(targets) if i not in drop]
