// In-page helpers for actions on marked elements. Called as
// `return (SOURCE)(op, id, arg)` after som.js has filled window.__cockpitMarks.
// Returns plain data; never throws for an expected failure.
(function (op, id, arg) {
  "use strict";
  const els = window.__cockpitMarks || [];
  const el = id ? els[id - 1] : null;
  if (id && (!el || !el.isConnected)) return { ok: false, why: "gone" };

  // Deepest element at a top-viewport point, through same-origin iframes and
  // open shadow roots.
  function deepHit(x, y) {
    let doc = document, ox = 0, oy = 0, hit = doc.elementFromPoint(x, y);
    for (let guard = 0; hit && guard < 32; guard++) {
      if (hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x - ox, y - oy);
        if (inner && inner !== hit) { hit = inner; continue; }
      }
      if (hit.tagName === "IFRAME" || hit.tagName === "FRAME") {
        let d = null;
        try { d = hit.contentDocument; } catch (e) { d = null; }
        if (!d) return hit;
        const r = hit.getBoundingClientRect();
        const st = getComputedStyle(hit);  // same offset as som.js: border + padding
        ox += r.left + hit.clientLeft + parseFloat(st.paddingLeft || 0);
        oy += r.top + hit.clientTop + parseFloat(st.paddingTop || 0);
        doc = d;
        const inner = d.elementFromPoint(x - ox, y - oy);
        if (!inner) return hit;
        hit = inner; continue;
      }
      return hit;
    }
    return hit;
  }
  function within(a, h) {
    for (; h; ) {
      if (h === a) return true;
      if (h.parentElement) { h = h.parentElement; continue; }
      const r = h.getRootNode();
      h = r && r.host ? r.host : (r && r.defaultView && r.defaultView.frameElement) || null;
    }
    return false;
  }
  function describeHit(h) {
    if (!h) return "nothing";
    const t = (h.innerText || h.textContent || "").replace(/\s+/g, " ").trim().slice(0, 40);
    return "<" + h.tagName.toLowerCase() + ">" + (t ? ' "' + t + '"' : "");
  }

  switch (op) {
    case "check": {  // is the element still what the page shows at arg=[x,y]?
      const h = deepHit(arg[0], arg[1]);
      return within(el, h) ? { ok: true } : { ok: false, why: "covered", by: describeHit(h) };
    }
    case "focus": {
      el.focus({ preventScroll: true });
      return { ok: true, tag: el.tagName.toLowerCase() };
    }
    case "clear": {
      if ("value" in el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA")) {
        el.focus(); el.select && el.select();
      } else if (el.isContentEditable) {
        el.focus();
        const sel = el.ownerDocument.getSelection();
        const range = el.ownerDocument.createRange();
        range.selectNodeContents(el); sel.removeAllRanges(); sel.addRange(range);
      }
      return { ok: true };
    }
    case "value": {
      return { ok: true, value: "value" in el ? String(el.value) : (el.innerText || "") };
    }
    case "select": {
      if (el.tagName !== "SELECT") return { ok: false, why: "not-select" };
      const want = String(arg).trim().toLowerCase();
      const opts = Array.from(el.options);
      let o = opts.find(o => o.text.trim().toLowerCase() === want || o.value.toLowerCase() === want);
      if (!o) o = opts.find(o => o.text.trim().toLowerCase().includes(want));
      if (!o) return { ok: false, why: "no-option", options: opts.map(o => o.text.trim()).slice(0, 30) };
      el.value = o.value;
      o.selected = true;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return { ok: true, chosen: o.text.trim() };
    }
    case "scroll": {  // arg = +1 down / -1 up; id 0 = the window
      let box = el;
      const canScroll = (n) => n && n.nodeType === 1 && n.scrollHeight > n.clientHeight + 2 &&
        /(auto|scroll|overlay)/.test(getComputedStyle(n).overflowY);
      while (box && !canScroll(box)) box = box.parentElement || (box.getRootNode().host || null);
      const win = !box;
      const target = win ? (document.scrollingElement || document.documentElement) : box;
      const h = win ? window.innerHeight : box.clientHeight;
      const before = target.scrollTop;
      const dy = Math.round(h * 2 / 3) * arg;
      // "instant": with scroll-behavior:smooth the position would not have moved yet.
      if (win) window.scrollBy({ top: dy, behavior: "instant" }); else box.scrollBy({ top: dy, behavior: "instant" });
      return { ok: true, window: win, moved: Math.round(target.scrollTop - before),
        at_end: arg > 0 ? target.scrollTop + h >= target.scrollHeight - 2 : target.scrollTop <= 0 };
    }
  }
  return { ok: false, why: "unknown-op" };
})
