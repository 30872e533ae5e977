// Set-of-Mark collector: finds every visible, uncovered, actionable element in
// the viewport and returns them as plain data. It draws nothing: the overlay is
// rendered separately from the returned boxes.
//
// Called by cockpit.core.marks as `return (SOURCE)(options)`. Coordinates are
// CSS pixels of the top-level viewport (= screenshot pixels at scale factor 1).
// The elements found are kept in `window.__cockpitMarks` (index = id - 1) so
// that actions can reach them by id, including inside shadow roots and
// same-origin iframes.
(function (opts) {
  "use strict";
  opts = opts || {};
  const MAX_TEXT = opts.maxText || 200;
  const TIME_BUDGET = opts.timeBudgetMs || 15000;
  const t0 = performance.now();
  const topDoc = document;
  // In quirks mode documentElement.client* is the whole document: use inner*.
  const std = topDoc.compatMode === "CSS1Compat" && topDoc.documentElement.clientHeight > 0;
  const VW = std ? topDoc.documentElement.clientWidth : window.innerWidth;
  const VH = std ? topDoc.documentElement.clientHeight : window.innerHeight;

  const ROLES = new Set(["button", "link", "checkbox", "radio", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "switch", "combobox", "textbox",
    "searchbox", "slider", "spinbutton", "treeitem"]);
  // Click targets whose insides are not separate actionable things.
  const ATOMIC_ROLES = new Set(["button", "link", "checkbox", "radio", "tab",
    "menuitem", "menuitemcheckbox", "menuitemradio", "option", "switch", "treeitem"]);
  // Regions made focusable for keyboard and screen-reader users (tabindex="0"), not click targets.
  const READ_REGION_TAGS = new Set(["main", "section", "article", "aside", "nav", "header", "footer",
    "form", "dialog", "table", "figure", "p", "h1", "h2", "h3", "h4", "h5", "h6", "body", "html"]);
  const READ_REGION_ROLES = new Set(["main", "region", "tabpanel", "dialog", "alertdialog", "document",
    "article", "feed", "log", "status", "alert", "note", "navigation", "banner", "contentinfo",
    "complementary", "form", "search", "group", "list", "table", "grid", "tree", "listbox", "menu",
    "menubar", "tablist", "toolbar", "radiogroup", "presentation", "none", "img", "figure", "heading"]);
  const HANDLER_ATTRS = ["onclick", "onmousedown", "onmouseup", "onpointerdown",
    "onpointerup", "ontouchstart", "ondblclick"];
  const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE"]);
  const TEXT_INPUTS = new Set(["text", "search", "email", "tel", "url", "password",
    "number", "date", "datetime-local", "month", "week", "time", ""]);

  const stats = { visited: 0, candidates: 0, covered: 0, clipped: 0, invisible: 0,
    nested: 0, containers: 0, cross_origin_frames: 0, pruned: 0, rescued: 0, truncated: false,
    intercepted: 0, interceptors: 0 };

  // ---------- geometry ----------
  function inter(a, b) {
    const x1 = Math.max(a[0], b[0]), y1 = Math.max(a[1], b[1]);
    const x2 = Math.min(a[2], b[2]), y2 = Math.min(a[3], b[3]);
    return x2 - x1 >= 1 && y2 - y1 >= 1 ? [x1, y1, x2, y2] : null;
  }
  function area(r) { return Math.max(0, r[2] - r[0]) * Math.max(0, r[3] - r[1]); }
  function rectOf(el, ctx) {
    const r = el.getBoundingClientRect();
    return [r.left + ctx.ox, r.top + ctx.oy, r.right + ctx.ox, r.bottom + ctx.oy];
  }

  // Clip rectangle (top-viewport coords) imposed on `el`'s content by el and
  // its ancestors (overflow other than visible). Memoised per element.
  const clipMemo = new Map();
  function layoutParent(el) {
    if (el.assignedSlot) return el.assignedSlot;
    if (el.parentElement) return el.parentElement;
    const root = el.parentNode;
    return root && root.host ? root.host : null;
  }
  // An absolutely positioned element escapes the overflow of the ancestors between it and its
  // containing block (a popup menu in a header with overflow:hidden shows in full).
  function containingBlock(el) {
    for (let p = layoutParent(el); p; p = layoutParent(p)) {
      if (p === p.ownerDocument.body || p === p.ownerDocument.documentElement) return p;
      const st = getComputedStyle(p);
      if (st.position !== "static" || st.transform !== "none" || st.filter !== "none" ||
          st.perspective !== "none" || /paint|layout|strict|content/.test(st.contain || "")) return p;
    }
    return null;
  }
  function contentClip(el, ctx) {
    if (!el || el === ctx.doc.documentElement || el === ctx.doc.body) return ctx.clip;
    let c = clipMemo.get(el);
    if (c !== undefined) return c;
    const st = getComputedStyle(el);
    const parentClip = contentClip(st.position === "absolute" ? containingBlock(el) : layoutParent(el), ctx);
    c = parentClip;
    if (parentClip) {
      if (st.position === "fixed") {
        c = ctx.clip;  // fixed elements escape their ancestors' overflow
      }
      if (st.overflowX !== "visible" || st.overflowY !== "visible" || st.contentVisibility === "hidden") {
        c = c && inter(c, rectOf(el, ctx));
      }
    }
    clipMemo.set(el, c);
    return c;
  }

  // ---------- classification ----------
  function implicitRole(el, tag, type) {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0].toLowerCase();
    if (explicit) return explicit;
    switch (tag) {
      case "a": return el.hasAttribute("href") ? "link" : "";
      case "button": case "summary": return "button";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "option": return "option";
      case "input":
        if (type === "checkbox" || type === "radio") return type;
        if (["button", "submit", "reset", "image"].includes(type)) return "button";
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return "searchbox";
        return "textbox";
    }
    if (el.isContentEditable) return "textbox";
    return "";
  }

  function hasListener(el, ctx) {
    const reg = ctx.listeners;
    return !!(reg && reg.has(el) && reg.get(el) > 0);
  }

  // Returns the reason `el` is actionable, or "" when it is not.
  // Strong reasons: native, role, contenteditable, tabindex. Weak: handler,
  // listener, pointer (decided later, since pointer needs computed style).
  function strongReason(el, tag) {
    switch (tag) {
      case "a": if (el.hasAttribute("href")) return "native"; break;
      case "button": case "select": case "textarea":
        return el.matches(":disabled") ? "" : "native";  // also inside <fieldset disabled>
      case "summary": return "native";
      case "input":
        return el.type === "hidden" || el.matches(":disabled") ? "" : "native";
      case "option": return el.matches(":disabled") ? "" : "native";
      case "label": if (el.control) return "label"; break;
    }
    const role = el.getAttribute("role");
    if (role && ROLES.has(role.trim().split(/\s+/)[0].toLowerCase())) return "role";
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return "contenteditable";
    // Focusable by tabindex: a control without a role, unless it is a region people read (a
    // <main>, a tab panel, a dialog), made focusable for the keyboard, not for clicks.
    const ti = el.getAttribute("tabindex");
    if (ti !== null && parseInt(ti, 10) >= 0 && !READ_REGION_TAGS.has(tag) &&
        !(role && READ_REGION_ROLES.has(role.trim().split(/\s+/)[0].toLowerCase()))) return "tabindex";
    return "";
  }
  function weakReason(el, ctx) {
    for (const a of HANDLER_ATTRS) if (el.hasAttribute(a)) return "handler";
    if (typeof el.onclick === "function" || typeof el.onmousedown === "function") return "handler";
    if (hasListener(el, ctx)) return "listener";
    return "";
  }

  // ---------- text ----------
  function clean(s) {
    if (!s) return "";
    s = String(s).replace(/\s+/g, " ").trim();
    return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT - 1) + "\u2026" : s;
  }
  // The first `limit` characters of an element's text, without reading all of it (nor its scripts').
  function headText(el, limit) {
    const w = (el.ownerDocument || topDoc).createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: n => n.nodeType === 1 ? (SKIP_TAGS.has(n.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP)
        : NodeFilter.FILTER_ACCEPT });
    let out = "";
    for (let n = w.nextNode(); n && out.length < limit; n = w.nextNode()) out += n.nodeValue + " ";
    return out.slice(0, limit);
  }
  // An element's text without the names of ligature icons it holds ("Name" for <th>Name<i
  // class="material-icons">arrow_upward</i></th>); an icon-only control keeps its icon's name.
  const LIGATURE = '[class*="material-icons"], [class*="material-symbols"]';
  function readText(n) {
    const t = n.innerText || n.textContent || "";
    if (!n.querySelector || !n.querySelector(LIGATURE)) return t;
    let out = t;
    for (const i of n.querySelectorAll(LIGATURE)) out = out.replace(i.innerText || i.textContent || "", " ");
    return clean(out) ? out : t;
  }
  function textOf(el, tag, type, scrollable) {
    if (tag === "input") {
      if (["button", "submit", "reset"].includes(type)) return clean(el.value);
      if (type === "image") return clean(el.alt || el.value);
      const lab = el.labels && el.labels[0];
      return lab ? clean(readText(lab)) : "";
    }
    if (tag === "textarea") {
      const lab = el.labels && el.labels[0];
      return lab ? clean(readText(lab)) : "";
    }
    if (tag === "select") {  // named by its label (not the options of a list it wraps); else the chosen option
      const lab = el.labels && el.labels[0];
      const o = el.selectedOptions && el.selectedOptions[0];
      const chosen = o ? clean(o.text) : "";
      const name = !lab ? "" : clean(lab.contains(el) ? Array.from(lab.childNodes).filter(n => !n.contains(el))
        .map(n => n.nodeType === 1 ? readText(n) : n.textContent).join(" ") : readText(lab));
      return name ? name + ": " + chosen : chosen;
    }
    // A big scroll container's text is its whole content: keep it short.
    let t = scrollable ? headText(el, MAX_TEXT * 2) : readText(el);
    t = clean(t);
    if (!t) t = clean(iconName(el));
    if (!t && labelControl(el, tag)) t = clean(iconName(labelControl(el, tag)));  // a switch with no text
    if (!t && tag !== "label") t = iconWord(el);  // drawn only as an icon: named from its class or image
    return t;
  }
  /*@include som_items.js*/

  // Card numbers and security codes named only by the field's name, id, placeholder, aria-label or
  // <label> (no autocomplete="cc-..."): secret too, so their values stay out of marks and prompts.
  const CARD_NAME = /\b(card ?(number|no)|credit ?card|debit ?card|cc ?(number|num|csc)|cvc|cvv|csc|security ?code)\b/i;
  function isSecret(el, tag, type) {
    if (tag !== "input") return false;
    if (type === "password") return true;
    const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    if (ac.startsWith("cc-") || ac === "one-time-code" || ac.includes("password")) return true;
    if (!/^(text|tel|number|)$/.test(type || "")) return false;
    const names = [el.getAttribute("name"), el.id, el.getAttribute("placeholder"), el.getAttribute("aria-label")];
    if (el.labels) for (const l of el.labels) names.push(l.textContent);
    return names.some(n => n && CARD_NAME.test(String(n).replace(/[_-]+/g, " ")));
  }

  // ---------- forms ----------
  // The form an element belongs to: its form owner for form controls (which
  // honours the form= attribute), else the closest <form> ancestor.
  function formOf(el) {
    if (el.form !== undefined) return el.form || null;
    return el.closest ? el.closest("form") : null;
  }
  function isSubmit(el, tag) {
    if (tag === "button") return el.type === "submit" && !!el.form;  // submit is the default type
    if (tag === "input") return (el.type === "submit" || el.type === "image") && !!el.form;
    return false;
  }
  // "post", "get" or "dialog" (lower case), or "" outside any form. A submit
  // button's formmethod overrides its form's method; invalid values mean GET.
  function formMethod(el, tag) {
    const form = formOf(el);
    if (!form) return "";
    let m = form.getAttribute("method");
    if (isSubmit(el, tag) && el.hasAttribute("formmethod")) m = el.getAttribute("formmethod");
    m = (m || "").trim().toLowerCase();
    return m === "post" || m === "dialog" ? m : "get";
  }
  /*@include identity.js*/
  function formAction(el, tag) {
    return formActionOf(el, formOf(el), isSubmit(el, tag));
  }
  // Facts about the fields of an element's form, for the approval gate (cached per form).
  const PAY_NAME = /\b(card ?(number|no|num)|cardnumber|credit ?card|debit ?card|cvc|cvv|csc|security ?code|iban|payment|exp(iry|iration) ?(date|month|year)?)\b/i;
  const formFactsCache = new Map();
  function formFields(el) {
    const form = formOf(el);
    if (!form) return { password: false, payment: false };
    if (formFactsCache.has(form)) return formFactsCache.get(form);
    let password = false, payment = false;
    for (const f of Array.from(form.elements || []).slice(0, 300)) {
      const type = (f.getAttribute("type") || "").toLowerCase();
      const ac = (f.getAttribute("autocomplete") || "").toLowerCase();
      if (type === "password" || ac.includes("password")) password = true;
      const names = [f.getAttribute("name"), f.id, f.getAttribute("placeholder"), f.getAttribute("aria-label")];
      if (ac.split(/\s+/).some(t => t.startsWith("cc-")) ||
          (type !== "hidden" && type !== "submit" && type !== "button" &&
           names.some(n => n && PAY_NAME.test(String(n).replace(/[_-]+/g, " "))))) payment = true;
    }
    const out = { password: password, payment: payment };
    formFactsCache.set(form, out);
    return out;
  }
  // A confirmation step in the page's own words ("Are you sure?"), for buttons only.
  const CONFIRM_RX = /[^.!?\n]{0,80}\b(are you sure|cannot be undone|can['\u2019]?t be undone|permanently (delete|remove|erase)|will be (permanently )?(deleted|removed|erased)|this (action )?is irreversible)\b[^.!?\n]{0,60}/i;
  let confirmText = null;
  function pageConfirm() {
    if (confirmText === null) {
      const m = CONFIRM_RX.exec(String(topDoc.body ? topDoc.body.innerText || "" : "").slice(0, 20000));
      confirmText = m ? clean(m[0]).slice(0, 160) : "";
    }
    return confirmText;
  }
  // A destructive icon on a nameless control ("fa-trash", <use href="#icon-delete">): the word, or "".
  const ICON_RX = /(?:^|[^a-z])(trash|delete|remove|destroy|erase|bin)(?:[^a-z]|$)/i;
  function iconHint(el, deep) {
    const nodes = [el].concat(deep && el.querySelectorAll ? Array.from(el.querySelectorAll("*")).slice(0, 8) : []);
    for (const n of nodes) {
      const tag = n.tagName.toLowerCase();
      const parts = [n.getAttribute("class"), n.id, n.getAttribute("data-icon"), n.getAttribute("name"),
        tag === "use" ? n.getAttribute("href") || n.getAttribute("xlink:href") : "",
        tag === "img" ? n.getAttribute("src") : ""];
      for (const p of parts) {
        const m = p ? ICON_RX.exec(String(p)) : null;
        if (m) return m[1].toLowerCase();
      }
    }
    return "";
  }

  // ---------- hit testing ----------
  // True when `hit` is `el` or lies inside it, climbing out of shadow trees.
  function within(el, hit) {
    for (let h = hit; h; ) {
      if (h === el) return true;
      if (h.parentElement) { h = h.parentElement; continue; }
      const r = h.getRootNode();
      h = r && r.host ? r.host : null;
    }
    return false;
  }
  function hitOk(el, ctx, x, y) {
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : ctx.doc).elementFromPoint(x - ctx.ox, y - ctx.oy);
    if (!hit || !within(el, hit)) return false;
    // Frames: the iframe itself must be what its parent page shows there.
    for (const f of ctx.frames) {
      const root = f.el.getRootNode();  // the frame may live in a shadow root
      if ((root.elementFromPoint ? root : f.doc).elementFromPoint(x - f.ox, y - f.oy) !== f.el) return false;
    }
    return true;
  }
  function clickPoint(el, vr, ctx) {
    const w = vr[2] - vr[0], h = vr[3] - vr[1];
    const pts = [[0.5, 0.5], [0.25, 0.5], [0.75, 0.5], [0.5, 0.25], [0.5, 0.75],
      [0.15, 0.15], [0.85, 0.85], [0.15, 0.85], [0.85, 0.15]];
    for (const [fx, fy] of pts) {
      const x = vr[0] + w * fx, y = vr[1] + h * fy;
      if (hitOk(el, ctx, x, y)) return [Math.round(x), Math.round(y)];
    }
    return null;
  }

  // A dialog or its backdrop covers `el` at its centre (its click point `pt` found elsewhere on it).
  const DIALOG_SEL = 'dialog, [role="dialog"], [role="alertdialog"], [aria-modal="true"]';
  const DIALOG_CLASS = /(^|[-_\s])(modal|dialog|backdrop|overlay)([-_\s]|$)/i;
  function underDialog(el, vr, ctx, pt) {
    const x = (vr[0] + vr[2]) / 2, y = (vr[1] + vr[3]) / 2;
    if (Math.abs(pt[0] - x) < 1 && Math.abs(pt[1] - y) < 1) return false;  // its centre shows
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : ctx.doc).elementFromPoint(x - ctx.ox, y - ctx.oy);
    if (!hit || within(el, hit) || within(hit, el)) return false;
    let dialog = null;  // the outermost one: a modal's footer is part of the modal, not a dialog of its own
    for (let n = hit, depth = 0; n && n.nodeType === 1 && depth < 16; n = n.parentElement, depth++) {
      if (n.matches(DIALOG_SEL)) { dialog = n; continue; }
      if (DIALOG_CLASS.test(n.getAttribute("class") || "") && getComputedStyle(n).position === "fixed") {
        const b = n.getBoundingClientRect();
        if (b.width * b.height >= 0.1 * VW * VH) dialog = n;  // a layer over the page, not a caption overlay
      }
    }
    return !!dialog && !within(dialog, el);
  }

  // ---------- invisible interceptors (hostile pages) ----------
  // An element that paints nothing (opacity ~0, or no text, background, border
  // or visible child) lying on top of an actionable one would take the clicks
  // meant for what the screenshot shows. Such a cover is never marked itself;
  // an element under it is marked where it shows, and clicking it is refused
  // by act.js's check with a message saying why. Errs towards "it paints".
  const intercepted = [];  // recs of elements hidden only by a see-through cover
  const seeMemo = new Map(), opMemo = new Map();
  /*@include paint.js*/
  function opacityOf(n) {  // the product of the opacities of n and its ancestors
    if (!n || n.nodeType !== 1) return 1;
    let v = opMemo.get(n);
    if (v === undefined) {
      v = parseFloat(getComputedStyle(n).opacity) * opacityOf(n.parentElement);
      opMemo.set(n, v);
    }
    return v;
  }
  function seeThrough(h) {
    let v = seeMemo.get(h);
    if (v === undefined) {
      v = paintsNothing(h, 0) || opacityOf(h) < 0.05;
      seeMemo.set(h, v);
    }
    return v;
  }
  // The see-through element on top of `el` at its centre, or null.
  function seeThroughCover(el, vr, ctx) {
    const x = (vr[0] + vr[2]) / 2, y = (vr[1] + vr[3]) / 2;
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : ctx.doc).elementFromPoint(x - ctx.ox, y - ctx.oy);
    if (!hit || within(el, hit) || within(hit, el)) return null;
    return seeThrough(hit) ? hit : null;
  }
  // Does the see-through `rec` lie on top of another marked element at its point?
  function liesOnOther(rec, all) {
    const root = rec.el.getRootNode();
    const stack = (root.elementsFromPoint ? root : rec.ctx.doc).elementsFromPoint(
      rec.pt[0] - rec.ctx.ox, rec.pt[1] - rec.ctx.oy);
    for (const e of stack) {
      if (within(rec.el, e) || within(e, rec.el)) continue;  // itself, its insides, its ancestors
      if (all.some(o => o !== rec && within(o.el, e))) return true;
    }
    return false;
  }
  // Drop the marks of see-through elements that cover another actionable one;
  // add the elements that only such covers hide.
  function interceptPass(kept) {
    const all = kept.concat(intercepted);
    const covers = intercepted.map(r => r.cover);
    for (let k = kept.length - 1; k >= 0; k--) {
      const rec = kept[k];
      if (!seeThrough(rec.el)) continue;
      if (covers.some(c => within(rec.el, c)) || liesOnOther(rec, all)) {
        kept.splice(k, 1); stats.interceptors++;
      }
    }
    for (const r of intercepted) { kept.push(r); stats.intercepted++; }
  }

  // ---------- walk ----------
  const found = [];  // {el, ctx, parent, weak, reason, hasChild, scrollable, vr, pt}
  const pointerMemo = new Map();
  function cursorIsPointer(el) {
    if (!el || el.nodeType !== 1) return false;
    let v = pointerMemo.get(el);
    if (v === undefined) {
      v = getComputedStyle(el).cursor === "pointer";
      pointerMemo.set(el, v);
    }
    return v;
  }
  function isScrollable(el, st) {
    const sy = el.scrollHeight > el.clientHeight + 2 && /(auto|scroll|overlay)/.test(st.overflowY);
    const sx = el.scrollWidth > el.clientWidth + 2 && /(auto|scroll|overlay)/.test(st.overflowX);
    return sy || sx;
  }

  // An inline element's own box is its text lines; images and blocks inside
  // it (a link wrapping a picture) stick out. Grow `r` to cover them.
  function grow(el, r, ctx) {
    const kids = el.querySelectorAll("*");
    for (let i = 0; i < kids.length && i < 64; i++) {
      if (!kids[i].checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const pos = getComputedStyle(kids[i]).position;
      if (pos === "absolute" || pos === "fixed") continue;  // tooltips and popups are not the link
      const k = rectOf(kids[i], ctx);
      if (k[2] - k[0] < 1 || k[3] - k[1] < 1) continue;
      r[0] = Math.min(r[0], k[0]); r[1] = Math.min(r[1], k[1]);
      r[2] = Math.max(r[2], k[2]); r[3] = Math.max(r[3], k[3]);
    }
  }

  // A small control of its own inside a form field's <label> (component libraries draw the whole field as
  // one): its clear "x", a password's show/hide toggle, a calendar icon, a chip's remove icon. A button by
  // role, or a listener on an element much smaller than the field, that is not and does not hold the field.
  function fieldAction(el, tag, reason, parentCand, r, ctx) {
    const role = (el.getAttribute("role") || "").toLowerCase();
    const button = reason === "role" && role === "button";
    if (!button && reason !== "listener" && reason !== "handler") return false;
    // one drawn as an icon, not a chip's text (which opens the field's own menu)
    if (!button && !(tag === "i" || tag === "svg" || tag === "img" || el.matches(LIGATURE) || !clean(el.innerText))) {
      return false;
    }
    const control = parentCand.el.control;
    if (control && (control === el || el.contains(control))) return false;
    return area(r) < 0.25 * area(rectOf(parentCand.el, ctx));
  }

  // A small named control with a handler of its own inside a button or link: a drop-down button's clear "x"
  // (Dash's <a aria-label="Clear selection">, no href, its own onclick), not a label or a timestamp in it.
  function innerAction(el, tag, parentCand, r, ctx) {
    if (!parentCand || !parentCand.atomic || parentCand.tag === "label") return false;
    if (el.getAttribute("aria-hidden") === "true") return false;
    const name = clean(el.getAttribute("aria-label") || el.getAttribute("title") || "");
    if (!name || name === clean(parentCand.el.getAttribute("aria-label") || "")) return false;
    if (!(tag === "a" || tag === "span" || tag === "i" || tag === "svg" || tag === "div")) return false;
    return getComputedStyle(el).cursor === "pointer" && area(r) < 0.25 * area(rectOf(parentCand.el, ctx));
  }

  function consider(el, ctx, parentCand, r) {
    const tag = el.tagName.toLowerCase();
    let reason = strongReason(el, tag);
    if (reason === "label" && labelControl(el, tag) && !looksLikeControl(el)) reason = "";
    let weak = false;
    if (!reason) { reason = weakReason(el, ctx); weak = !!reason; }
    let st = null;
    let scrollable = false;
    if (el !== ctx.doc.documentElement && el !== ctx.doc.body &&
        (el.scrollHeight > el.clientHeight + 2 || el.scrollWidth > el.clientWidth + 2)) {
      st = getComputedStyle(el);
      scrollable = isScrollable(el, st);
    }
    if (!reason && cursorIsPointer(el) && !cursorIsPointer(layoutParent(el))) {
      reason = "pointer"; weak = true;
    }
    if (!reason && delegatedItem(el, parentCand, ctx)) { reason = "delegated"; weak = true; }
    if (!reason && scrollable) { reason = "scrollable"; weak = true; }
    if (!reason) return null;
    stats.candidates++;
    const editable = tag === "textarea" || el.isContentEditable ||
      (tag === "input" && TEXT_INPUTS.has(el.type)) ||
      ["textbox", "searchbox"].includes((el.getAttribute("role") || "").toLowerCase());
    // Nesting: one mark per actionable thing.
    const formControl = tag === "input" || tag === "select" || tag === "textarea";
    if (parentCand && !editable && !formControl && !scrollable) {
      // A link or button inside a <label> ("I agree to the Terms") is its own thing.
      // Not when it fills the label, or is kept out of the tab order (a tab whose label wraps its
      // anchor link, tabindex=-1): then the two are one thing.
      const ownInLabel = parentCand.tag === "label" && ((tag === "a" || tag === "button") &&
        el.getAttribute("tabindex") !== "-1" && area(r) < 0.7 * area(rectOf(parentCand.el, ctx))
        || fieldAction(el, tag, reason, parentCand, r, ctx));
      // A real control inside something made a button by its role is what a person clicks.
      const ownInRole = parentCand.reason === "role" && reason === "native"
        || ((reason === "handler" || reason === "listener") && innerAction(el, tag, parentCand, r, ctx));
      // Pointer children of a clickable container are marked when they are its items (rows of a list).
      const item = reason === "pointer" && !parentCand.atomic && repeated(el);
      if ((parentCand.atomic && !ownInLabel && !ownInRole) || (reason === "pointer" && !item)) {
        stats.nested++; return null;
      }
    }
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true,
                              checkOpacity: true, checkVisibilityCSS: true })) {
      stats.invisible++; return null;
    }
    const est = getComputedStyle(el);
    if (est.display === "inline" && el.firstElementChild) grow(el, r, ctx);
    const clip = contentClip(est.position === "absolute" ? containingBlock(el) : layoutParent(el), ctx);
    const vr = clip && inter(r, clip);
    if (!vr) { stats.clipped++; return null; }
    let pt = clickPoint(el, vr, ctx);
    // Under a dialog at its centre, shown only around it: not a target (the dialog is what a person deals with).
    if (pt && underDialog(el, vr, ctx, pt)) { stats.covered++; stats.under_dialog = (stats.under_dialog || 0) + 1; return null; }
    const cover = pt ? null : seeThroughCover(el, vr, ctx);
    if (!pt && !cover) { stats.covered++; return null; }
    // Under a see-through layer over (nearly) the whole viewport, a popup's backdrop (select2's
    // mask): a click there only closes the popup, so nothing beneath is a target.
    if (cover && area(rectOf(cover, ctx)) >= 0.85 * VW * VH) { stats.masked = (stats.masked || 0) + 1; return null; }
    if (cover) pt = [Math.round((vr[0] + vr[2]) / 2), Math.round((vr[1] + vr[3]) / 2)];
    const type = tag === "input" ? (el.type || "text").toLowerCase() : (el.getAttribute("type") || "");
    const role = implicitRole(el, tag, tag === "input" ? type : "");
    const rec = { el, ctx, parent: parentCand, weak, reason, tag, type, role, editable,
      scrollable, vr, pt, hasChild: false,
      atomic: ATOMIC_ROLES.has(role) || tag === "a" || tag === "button" || tag === "summary" || tag === "label" };
    if (cover) { rec.cover = cover; intercepted.push(rec); return null; }
    found.push(rec);
    if (parentCand && parentCand.reason === "role" && reason === "native") {
      (parentCand.controls = parentCand.controls || []).push(rec);
    }
    for (let p = parentCand; p && !p.hasChild; p = p.parent) p.hasChild = true;
    return rec;
  }

  // On big documents, subtrees lying wholly outside the viewport are skipped:
  // their box and scroll extent (which covers overflowing in-flow children)
  // miss it. What could still escape (fixed or absolute children) is found
  // again by the rescue pass, hit-testing a grid over the viewport (48px, or
  // coarser where hit tests are slow, see rescue()); a fixed element smaller
  // than its step inside a skipped subtree can be missed.
  // Small documents are walked whole: it costs little and misses nothing.
  const PRUNE = topDoc.getElementsByTagName("*").length > (opts.pruneAbove || 2000);
  const pruned = new Map();  // element -> [ctx, nearest candidate]
  function pushChildren(stack, el, pc) {
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push([c, pc]);
    if (el.shadowRoot) {
      for (let c = el.shadowRoot.lastElementChild; c; c = c.previousElementSibling) stack.push([c, pc]);
    }
  }
  /*@include som_range.js*/
  function walkRoot(rootNode, ctx, parentCand) {
    const stack = [];
    pushChildren(stack, rootNode, parentCand);
    walkStack(stack, ctx);
  }
  function walkStack(stack, ctx) {
    // Iterative depth-first walk over elements, entering open shadow roots and
    // same-origin iframes. Each stack entry carries its nearest candidate.
    const view = ctx.clip || [0, 0, 0, 0];
    while (stack.length) {
      const [el, pc] = stack.pop();
      stats.visited++;
      if ((stats.visited & 1023) === 0 && performance.now() - t0 > TIME_BUDGET) {
        stats.truncated = true; return;
      }
      if (SKIP_TAGS.has(el.tagName)) continue;
      const r = rectOf(el, ctx);
      let rec = null;
      if (inter(r, view)) {
        rec = consider(el, ctx, pc, r);
      } else if (PRUNE && r[2] > r[0] && r[3] > r[1] && el !== ctx.doc.body && el !== ctx.doc.documentElement) {
        const ext = [r[0], r[1], Math.max(r[2], r[0] + el.scrollWidth), Math.max(r[3], r[1] + el.scrollHeight)];
        if (!inter(ext, view)) {  // a leaf has nothing inside that could escape its box
          if (el.firstElementChild || el.shadowRoot) pruned.set(el, [ctx, pc]);
          stats.pruned++; continue;
        }
      }
      const nextPc = rec || pc;
      const tag = el.tagName;
      if ((tag === "IFRAME" || tag === "FRAME")) { enterFrame(el, ctx, nextPc); continue; }
      pushKids(stack, el, nextPc, ctx);
    }
  }

  // Hit-tests a grid over the viewport; what is hit inside a pruned
  // subtree, or in a sibling a bisected parent skipped, is walked after all.
  function rescue() {
    if (!pruned.size && !bisected.size) return;
    // A hit test costs ~0.05 ms on most pages but over 1 ms in a block of 20,000 siblings (Chromium
    // looks at each): the grid is as fine as ~12 ms of hit tests allow, 48px at most; on such pages
    // only bigger escaped elements (dialogs, banners) are found again.
    topDoc.elementFromPoint(VW / 2, VH / 2);  // the first hit test after a scroll pays for layout: not timed
    const c0 = performance.now();
    for (let k = 1; k <= 4; k++) topDoc.elementFromPoint(VW * k / 5, VH * k / 5);
    const cost = (performance.now() - c0) / 4;
    // Never coarser than 160px, so a dialog or a banner (a cookie bar is ~60px high, at the bottom) is
    // always hit: on a slow machine that takes longer than the 12 ms aimed at.
    const STEP = Math.min(160, Math.max(48, Math.ceil(Math.sqrt(VW * VH * cost / (opts.rescueMs || 12)))));
    stats.rescue_step = STEP;
    for (let y = STEP / 2; y < VH; y += STEP) {
      for (let x = STEP / 2; x < VW; x += STEP) {
        let h = topDoc.elementFromPoint(x, y);
        let top = null, skipped = false;
        const chain = [];
        while (h) {
          const up = h.parentElement || (h.getRootNode().host || null);
          if (pruned.has(h)) { chain.push(h); top = h; skipped = false; }
          if (up && bisected.has(up) && h.parentElement === up && !walkedKids.has(h)) { top = h; skipped = true; }
          h = up;
        }
        if (!top) continue;
        stats.rescued++;
        const [ctx, pc] = skipped ? bisected.get(top.parentElement) : pruned.get(top);
        for (const c of chain) pruned.delete(c);
        const saved = ctx.clip;
        if (skipped) { walkedKids.add(top); walkStack([[top, pc]], ctx); } else walkRoot(top, ctx, pc);
        ctx.clip = saved;
      }
    }
  }

  function enterFrame(frameEl, ctx, parentCand) {
    let doc = null;
    try { doc = frameEl.contentDocument; } catch (e) { doc = null; }
    if (!doc || !doc.documentElement) { stats.cross_origin_frames++; return; }
    const r = frameEl.getBoundingClientRect();
    const st = getComputedStyle(frameEl);
    const ox = ctx.ox + r.left + frameEl.clientLeft + parseFloat(st.paddingLeft || 0);
    const oy = ctx.oy + r.top + frameEl.clientTop + parseFloat(st.paddingTop || 0);
    const box = [ox, oy, ox + frameEl.clientWidth, oy + frameEl.clientHeight];
    const outer = contentClip(layoutParent(frameEl), ctx);
    const clip = outer && inter(box, outer);
    if (!clip) return;
    const win = doc.defaultView;
    const sub = { doc, ox, oy, clip, inFrame: true,
      listeners: win && win.__cockpitListeners,
      frames: ctx.frames.concat([{ doc: ctx.doc, el: frameEl, ox: ctx.ox, oy: ctx.oy }]) };
    walkRoot(doc.documentElement, sub, parentCand);
  }

  const topCtx = { doc: topDoc, ox: 0, oy: 0, clip: [0, 0, VW, VH], inFrame: false,
    listeners: window.__cockpitListeners, frames: [] };
  walkRoot(topDoc, topCtx, null);
  stats.walk_ms = Math.round(performance.now() - t0);
  rescue();
  stats.rescue_ms = Math.round(performance.now() - t0) - stats.walk_ms;

  // ---------- post-pass ----------
  // A wrapper made a button by its role, holding real controls and no text of its own.
  function wrapsOnly(rec) {
    let t = rec.el.innerText || "";
    for (const c of rec.controls) t = t.replace(c.el.innerText || c.el.value || "", "");
    return !t.trim();
  }
  // A row of a list with a click listener of its own (an inbox's message) holding marked icons (star,
  // trash): the row opens something the icons do not, so it is a mark besides theirs -- when it has text
  // of its own to name it by.
  function ownRow(rec) {
    if ((rec.reason !== "listener" && rec.reason !== "handler") || !repeated(rec.el)) return false;
    let t = rec.el.innerText || "";
    for (const o of found) {
      if (o === rec || !rec.el.contains(o.el)) continue;
      // a card around a titled link is marked as the link (one thing); a row holding icons is two
      if (clean(readText(o.el)).length > 2 && !o.el.matches(LIGATURE)) return false;
      t = t.replace(o.el.innerText || "", "");
    }
    return clean(t).length >= 2;
  }
  const kept = found.filter(rec => {
    if (rec.tag === "label" && rec.el.control && found.some(o => o.el === rec.el.control)) {
      stats.nested++; return false;
    }
    // A container that only holds marked things is not one of them. A scroll area holding marks is
    // scrolled by naming one of them (act.js scrolls an element's nearest scrollable ancestor).
    const weakish = rec.weak || rec.reason === "tabindex";
    if (weakish && rec.hasChild && !ownRow(rec)) { stats.containers++; return false; }
    // A backdrop: a nameless label or listener over (nearly) the whole viewport that does not
    // offer itself with a pointer (a drawer's shade). Its box would be the whole screenshot;
    // Escape or the drawer's own close button does the same.
    if ((weakish || rec.tag === "label") && area(rec.vr) >= 0.85 * VW * VH && !cursorIsPointer(rec.el) &&
        !clean(rec.el.innerText || "")) { stats.backdrops = (stats.backdrops || 0) + 1; return false; }
    if (rec.controls && wrapsOnly(rec)) { stats.nested++; return false; }
    return true;
  });
  interceptPass(kept);

  // Reading order: rows top to bottom, then left to right within a row.
  kept.sort((a, b) => a.vr[1] - b.vr[1] || a.vr[0] - b.vr[0]);
  const ordered = [];
  let i = 0;
  while (i < kept.length) {
    const top = kept[i].vr[1];
    const h = kept[i].vr[3] - kept[i].vr[1];
    const tol = Math.max(3, Math.min(12, h / 2));
    let j = i;
    while (j < kept.length && kept[j].vr[1] - top <= tol) j++;
    ordered.push(...kept.slice(i, j).sort((a, b) => a.vr[0] - b.vr[0]));
    i = j;
  }

  const marks = ordered.map((rec, idx) => {
    const el = rec.el;
    const secret = isSecret(el, rec.tag, rec.type);
    const hasValue = rec.tag === "input" || rec.tag === "textarea" || rec.tag === "select";
    const [x1, y1, x2, y2] = rec.vr;
    const control = labelControl(el, rec.tag);  // a label standing for a hidden checkbox or radio
    const role = control ? (control.getAttribute("role") === "switch" ? "switch" : control.type) : rec.role;
    const state = checkedState(el, rec.tag, role);
    const sel = rec.tag === "select" ? selectOptions(el) : null;
    return {
      id: idx + 1,
      bbox: [Math.round(x1), Math.round(y1), Math.round(x2 - x1), Math.round(y2 - y1)],
      tag: rec.tag,
      role: role,
      type: control ? control.type : rec.type,
      text: textOf(el, rec.tag, rec.type, rec.scrollable),
      aria_label: clean(el.getAttribute("aria-label") || ""),
      placeholder: clean(el.getAttribute("placeholder") || ""),
      href: (rec.tag === "a" || rec.tag === "area") && el.getAttribute("href")
        ? String(typeof el.href === "string" ? el.href : el.getAttribute("href")).slice(0, 2000) : "",
      value: state !== null ? state : hasValue && !secret ? clean(el.value) : "",
      options: sel ? sel.options : [],
      options_more: sel ? sel.more : 0,
      secret: secret,
      filled: secret && String(el.value || "") !== "",  // whether it has a value (never what): masked in the screenshot
      editable: !!rec.editable,
      scrollable: !!rec.scrollable,
      in_iframe: !!rec.ctx.inFrame,
      reason: rec.reason,
      point: rec.pt,
      form_method: formMethod(el, rec.tag),
      submit: isSubmit(el, rec.tag),
      form_action: formAction(el, rec.tag),
      form_password: formFields(el).password,
      form_payment: formFields(el).payment,
      confirm_text: rec.tag !== "a" && !rec.editable ? pageConfirm() : "",
      dom_path: domPath(el),
      icon: rec.tag !== "a" && !rec.editable ? iconHint(el, !rec.hasChild) : "",  // a row: not its icons
    };
  });
  window.__cockpitMarks = ordered.map(rec => rec.el);
  // A disabled card field ("review your order") that was not marked (covered by its label, say) can
  // still show a number: its box, to be painted over too (cockpit.core.masking).
  const secretBoxes = [];
  const markedEls = new Set(window.__cockpitMarks);
  for (const el of topDoc.querySelectorAll("input:disabled")) {
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (markedEls.has(el) || type === "password" || !el.value || !isSecret(el, "input", type)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.right <= 0 || r.bottom <= 0 || r.left >= VW || r.top >= VH) continue;
    secretBoxes.push([Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]);
  }
  const se = topDoc.scrollingElement || topDoc.documentElement;
  return {
    marks: marks,
    page: { url: location.href, title: topDoc.title, viewport: [VW, VH],
      scroll: [Math.round(window.scrollX), Math.round(window.scrollY)],
      page_size: [se.scrollWidth, se.scrollHeight], secret_boxes: secretBoxes },
    stats: Object.assign(stats, { ms: Math.round(performance.now() - t0) }),
  };
})
