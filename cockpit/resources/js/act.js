// In-page helpers for actions on marked elements. cockpit.core.agent.execute (and its pointer
// actions, cockpit.core.agent.pointer) call it as `return (SOURCE)(op, id, arg)` after som.js has
// filled window.__cockpitMarks. Returns plain data; never throws for an expected failure.
// It uses the modules named below (put ahead of it by cockpit.core.resources.script), which som.js
// uses too, so that both judge see-through elements and identify elements the same way.
/*@modules paint.js identity.js*/
/* global Paint, Identity */
(function (op, id, arg) {
  "use strict";
  const els = window.__cockpitMarks || [];
  const el = id ? els[id - 1] : null;
  if (id && (!el || !el.isConnected)) return { ok: false, why: "gone" };

  // Deepest element at a top-viewport point, through same-origin iframes and
  // open shadow roots.
  function deepHit(x, y) {
    let ox = 0, oy = 0, hit = document.elementFromPoint(x, y);
    for (let guard = 0; hit && guard < 32; guard++) {
      if (hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x - ox, y - oy);
        if (inner && inner !== hit) { hit = inner; continue; }
      }
      if (hit.tagName === "IFRAME" || hit.tagName === "FRAME") {
        let d = null;
        try { d = hit.contentDocument; } catch { /* cross-origin: d stays null */ }
        if (!d) return hit;
        const r = hit.getBoundingClientRect();
        const st = getComputedStyle(hit);  // same offset as som.js: border + padding
        ox += r.left + hit.clientLeft + parseFloat(st.paddingLeft || 0);
        oy += r.top + hit.clientTop + parseFloat(st.paddingTop || 0);
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

  // ---------- hostile pages: see-through elements, changed targets, stolen clicks ----------
  function seeThrough(h) {
    if (!h || h.nodeType !== 1) return false;
    let op = 1;
    for (let n = h; n && n.nodeType === 1; n = n.parentElement) op *= parseFloat(getComputedStyle(n).opacity);
    return op < 0.05 || Paint.paintsNothing(h, 0);
  }
  function clean(s) {
    s = String(s || "").replace(/\s+/g, " ").trim();
    return s.length > 200 ? s.slice(0, 199) + "\u2026" : s;
  }
  // What the element says about itself now, in the fields of a mark (som.js),
  // so Python can tell whether it changed since the screenshot.
  function facts(el) {
    const tag = el.tagName.toLowerCase();
    const type = tag === "input" ? (el.type || "text").toLowerCase() : "";
    const f = { aria_label: clean(el.getAttribute("aria-label") || "") };
    if (tag === "a" || tag === "area") {
      f.href = el.getAttribute("href") ? String(typeof el.href === "string" ? el.href : el.getAttribute("href")).slice(0, 2000) : "";
    }
    if (tag === "input") {
      if (["button", "submit", "reset"].includes(type)) { f.text = clean(el.value); f.value = clean(el.value); }
      else if (type === "image") f.text = clean(el.alt || el.value);
    } else if (tag !== "textarea" && tag !== "select") {
      let t = clean(el.innerText || el.textContent || "");
      if (!t) {
        const img = el.querySelector && el.querySelector("img[alt]");
        t = clean((img && img.alt) || el.getAttribute("title") || "");
      }
      f.text = t;
    }
    const form = el.form !== undefined ? el.form : (el.closest ? el.closest("form") : null);
    const submit = (tag === "button" && el.type === "submit" && !!el.form) ||
      (tag === "input" && (type === "submit" || type === "image") && !!el.form);
    let m = "";
    if (form) {
      m = form.getAttribute("method");
      if (submit && el.hasAttribute("formmethod")) m = el.getAttribute("formmethod");
      m = (m || "").trim().toLowerCase();
      m = m === "post" || m === "dialog" ? m : "get";
    }
    f.form_method = m;
    f.submit = submit;
    f.form_action = Identity.formActionOf(el, form, submit);
    f.dom_path = Identity.domPath(el);
    const r = el.getBoundingClientRect();
    f.box = [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
    return f;
  }
  // The windows a click on `el` can land in: its own and every (same-origin) one above.
  function windowsOf(el) {
    const out = [];
    for (let w = el.ownerDocument.defaultView; w; ) {
      out.push(w);
      let fe = null;
      try { fe = w.frameElement; } catch { /* cross-origin: fe stays null */ }
      w = fe ? fe.ownerDocument.defaultView : null;
    }
    if (!out.includes(window)) out.push(window);
    return out;
  }
  const GUARDED = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "auxclick",
    "contextmenu", "touchstart", "touchend"];
  function unguard() {
    const g = window.__cockpitGuard;
    if (!g) return "";
    for (const w of g.wins) for (const t of GUARDED) {
      try { w.removeEventListener(t, g.handler, true); } catch { /* the frame went away */ }
    }
    window.__cockpitGuard = null;
    return g.blocked;
  }

  // Payment or password fields, as som.js would flag them, and frames that look like a card form.
  function secretish(e) {
    if (!e || e.nodeType !== 1) return false;
    const t = (e.getAttribute("type") || "").toLowerCase(), ac = (e.getAttribute("autocomplete") || "").toLowerCase();
    if (t === "password" || /(^|\s)cc-|current-password|new-password|one-time-code/.test(ac)) return true;
    const words = [e.name, e.id, e.getAttribute("placeholder"), e.getAttribute("aria-label")].join(" ").toLowerCase();
    if (e.tagName === "INPUT" && /card.?num|cc.?num|\bcvc|\bcvv|\bcsc\b|security.?code|\biban|password|passcode/.test(words))
      return true;
    if (e.tagName === "IFRAME" || e.tagName === "FRAME") {
      const s = [e.getAttribute("src"), e.getAttribute("title"), e.name].join(" ").toLowerCase();
      return /card|pay|stripe|braintree|adyen|checkout|secure|cvc|cvv/.test(s);
    }
    return false;
  }
  // The mark (or, with `extra`, a new extra entry) standing for element h, with its facts.
  function target(h, extraOk) {
    if (!h) return { ok: true, mark: 0, hit: null };
    let id = 0;
    for (let n = h; n && !id; ) {
      const i = els.indexOf(n);
      if (i >= 0) { id = i + 1; break; }
      if (n.parentElement) { n = n.parentElement; continue; }
      const r = n.getRootNode();
      n = r && r.host ? r.host : (r && r.defaultView && r.defaultView.frameElement) || null;
    }
    let extra = false;
    if (!id || !extraOk && els[id - 1] !== h && secretish(h)) {  // a field inside a marked widget: itself
      if (!window.__cockpitMarks) window.__cockpitMarks = els;
      els.push(h);
      id = els.length;
      extra = true;
    }
    const t = els[id - 1];
    const cs = getComputedStyle(h);
    const tag = t.tagName.toLowerCase();
    const opaque = ["iframe", "frame", "embed", "object", "canvas"].includes(h.tagName.toLowerCase());
    return { ok: true, mark: id, extra: extra, tag: tag, hit: describeHit(h), cursor: cs.cursor, now: facts(t),
      role: t.getAttribute("role") || "", secret: secretish(t) || secretish(h),
      opaque: opaque ? { tag: h.tagName.toLowerCase(), src: String(h.getAttribute("src") || h.getAttribute("data") || "").slice(0, 300) } : null,
      editable: !!(t.isContentEditable || tag === "textarea" ||
        (tag === "input" && !["button", "submit", "reset", "checkbox", "radio", "image", "file",
          "range", "color", "hidden"].includes((t.type || "").toLowerCase()))) };
  }

  switch (op) {
    case "check": {  // is the element still what the page shows at arg=[x,y]? and what does it say now?
      const h = deepHit(arg[0], arg[1]);
      if (within(el, h)) return { ok: true, now: facts(el) };
      return { ok: false, why: "covered", by: describeHit(h), invisible: seeThrough(h) };
    }
    case "guard": {
      // Until the pointer press lands on `el`, a press, release or click on anything
      // else (an element slipped on top after the check) is stopped before the page
      // sees it, in the capture phase of every window the click can reach.
      unguard();
      const g = { blocked: "", allowed: false, until: performance.now() + 5000, wins: windowsOf(el) };
      g.handler = (e) => {
        if (g.allowed || performance.now() > g.until) return;
        const t = e.composedPath ? e.composedPath()[0] : e.target;
        const onEl = t && t.nodeType === 1 && within(el, t);
        if (onEl) {
          if (/down|start/.test(e.type)) g.allowed = true;
          return;
        }
        e.preventDefault();
        e.stopImmediatePropagation();
        if (!g.blocked) g.blocked = (seeThrough(t) ? "an invisible " : "") + describeHit(t && t.nodeType === 1 ? t : null);
      };
      for (const w of g.wins) for (const t of GUARDED) w.addEventListener(t, g.handler, true);
      window.__cockpitGuard = g;
      return { ok: true };
    }
    case "unguard": {
      return { ok: true, blocked: unguard() };
    }
    case "at": {
      // What a pixel action at arg=[x,y] would hit: the innermost marked element holding the deepest
      // element there (through open shadow roots and same-origin frames). When no mark holds it, the
      // element itself is added to the list (extra: true), so the checks above can name it by id.
      if (!(arg[0] >= 0 && arg[1] >= 0 && arg[0] < innerWidth && arg[1] < innerHeight))
        return { ok: false, why: "outside", size: [innerWidth, innerHeight] };
      return target(deepHit(arg[0], arg[1]), true);
    }
    case "focused": {  // the element typing would go to: the focus, through open shadow roots and same-origin frames
      let f = document.activeElement;
      for (let g = 0; f && g < 16; g++) {
        if (f.shadowRoot && f.shadowRoot.activeElement) { f = f.shadowRoot.activeElement; continue; }
        if (f.tagName === "IFRAME" || f.tagName === "FRAME") {
          let d = null;
          try { d = f.contentDocument; } catch { /* cross-origin: d stays null */ }
          if (d && d.activeElement && d.activeElement !== d.body) { f = d.activeElement; continue; }
        }
        break;
      }
      if (!f || f === document.body || f === document.documentElement) return { ok: true, mark: 0 };
      return target(f, false);
    }
    case "isfocused": {  // does `el` still have the focus? and what does it say now?
      let f = document.activeElement;
      for (let g = 0; f && f !== el && g < 16; g++) {
        let inner = f.shadowRoot ? f.shadowRoot.activeElement : null;
        if (!inner && (f.tagName === "IFRAME" || f.tagName === "FRAME")) {
          try { inner = f.contentDocument ? f.contentDocument.activeElement : null; } catch { inner = null; }
        }
        if (!inner || inner === f) break;
        f = inner;
      }
      return f === el ? { ok: true, now: facts(el) } : { ok: false, by: describeHit(f) };
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
      // arg: the option's text; or {text, prefix: true} for text typed into the list.
      const typed = !!(arg && typeof arg === "object");
      const want = String(typed ? arg.text : arg).trim().toLowerCase();
      const opts = Array.from(el.options);
      // Exact text or value, then (Select) a part of the text, or (typed into) its start, as Chrome
      // picks the option whose text starts with what a person types into a focused list.
      let o = opts.find(o => o.text.trim().toLowerCase() === want || o.value.toLowerCase() === want);
      if (!o && want) o = opts.find(o => typed ? o.text.trim().toLowerCase().startsWith(want)
        : o.text.trim().toLowerCase().includes(want));
      if (!o) return { ok: false, why: "no-option", options: opts.map(o => o.text.trim()).slice(0, 30) };
      el.value = o.value;
      o.selected = true;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return { ok: true, chosen: o.text.trim() };
    }
    case "scroll": {  // arg = +1 down / -1 up; id 0 = the window
      // An element scrolls its nearest scrollable ancestor (a list scrolls when one of its items is
      // named). The window, when the document itself cannot scroll, is the page's own scroller:
      // the scrollable ancestor of what is at the viewport's centre (apps that scroll a <main>).
      const canScroll = (n) => n && n.nodeType === 1 && n.scrollHeight > n.clientHeight + 2 &&
        /(auto|scroll|overlay)/.test(getComputedStyle(n).overflowY);
      const up = (n) => { while (n && !canScroll(n)) n = n.parentElement || (n.getRootNode().host || null); return n; };
      let box = el ? up(el) : null;
      const se = document.scrollingElement || document.documentElement;
      let pageScroller = false;
      if (!box && se.scrollHeight <= window.innerHeight + 2) {
        const mid = up(deepHit(window.innerWidth / 2, window.innerHeight / 2));
        if (mid && mid.clientHeight >= window.innerHeight / 2) { box = mid; pageScroller = true; }
      }
      const win = !box;
      const target = win ? se : box;
      const h = win ? window.innerHeight : box.clientHeight;
      const before = target.scrollTop;
      const dy = Math.round(h * 2 / 3) * arg;
      // "instant": with scroll-behavior:smooth the position would not have moved yet.
      if (win) window.scrollBy({ top: dy, behavior: "instant" }); else box.scrollBy({ top: dy, behavior: "instant" });
      return { ok: true, window: win || pageScroller, holder: !!(el && box && box !== el && !pageScroller),
        moved: Math.round(target.scrollTop - before),
        at_end: arg > 0 ? target.scrollTop + h >= target.scrollHeight - 2 : target.scrollTop <= 0 };
    }
  }
  return { ok: false, why: "unknown-op" };
})
