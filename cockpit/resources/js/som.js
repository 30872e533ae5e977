// Set-of-Mark collector: finds every visible, uncovered, actionable element in
// the viewport and returns them as plain data. It draws nothing: the overlay is
// rendered separately from the returned boxes.
//
// cockpit.core.browser.session installs it in each document as window.__cockpitSom, and
// cockpit.core.page.observation calls it (or, when it is missing, sends it as `(SOURCE)(options)`).
// Coordinates are CSS pixels of the top-level viewport (= screenshot pixels at scale factor 1).
// The elements found are kept in `window.__cockpitMarks` (index = id - 1) so
// that actions (act.js) can reach them by id, including inside shadow roots and
// same-origin iframes.
//
// This file is the host: the work is done by the modules named below, which
// cockpit.core.resources.script puts ahead of it; each module's header says what it takes and gives.
/*@modules paint.js identity.js som_geometry.js som_classify.js som_names.js som_items.js som_forms.js
           som_hits.js som_range.js som_walk.js*/
/* global Paint, Identity, SomGeometry, SomClassify, SomNames, SomItems, SomForms, SomHits, SomRange, SomWalk */
(function (opts) {
  "use strict";
  opts = opts || {};
  const t0 = performance.now();
  const topDoc = document;
  // In quirks mode documentElement.client* is the whole document: use inner*.
  const std = topDoc.compatMode === "CSS1Compat" && topDoc.documentElement.clientHeight > 0;
  const VW = std ? topDoc.documentElement.clientWidth : window.innerWidth;
  const VH = std ? topDoc.documentElement.clientHeight : window.innerHeight;

  const stats = { visited: 0, candidates: 0, covered: 0, clipped: 0, invisible: 0,
    nested: 0, containers: 0, cross_origin_frames: 0, pruned: 0, rescued: 0, truncated: false,
    intercepted: 0, interceptors: 0 };

  // ---------- the parts of this run ----------
  const geo = SomGeometry();
  const names = SomNames(opts, SomClassify);
  const items = SomItems();
  const forms = SomForms(topDoc, names.clean, Identity);
  const hits = SomHits([VW, VH], stats, Paint);
  // On big documents, subtrees lying wholly outside the viewport are skipped:
  // their box and scroll extent (which covers overflowing in-flow children)
  // miss it. What could still escape (fixed or absolute children) is found
  // again by the rescue pass, hit-testing a grid over the viewport (48px, or
  // coarser where hit tests are slow, see rescue() in som_walk.js); a fixed element
  // smaller than its step inside a skipped subtree can be missed.
  // Small documents are walked whole: it costs little and misses nothing.
  const prune = topDoc.getElementsByTagName("*").length > (opts.pruneAbove || 2000);
  const range = SomRange(opts, stats, prune, VH);
  const walk = SomWalk({ opts, stats, t0, viewport: [VW, VH], prune, geo, classify: SomClassify,
    names, items, hits, range });
  const { area } = geo;
  const { clean, readText, LIGATURE, textOf, labelControl, checkedState, selectOptions, isSecret } = names;
  const { repeated, cursorIsPointer } = items;
  const { formMethod, isSubmit, formAction, formFields, pageConfirm, iconHint } = forms;
  const { domPath } = Identity;
  const found = walk.found;

  // ---------- walk ----------
  const topCtx = { doc: topDoc, ox: 0, oy: 0, clip: [0, 0, VW, VH], inFrame: false,
    listeners: window.__cockpitListeners, frames: [] };
  walk.walkRoot(topDoc, topCtx, null);
  stats.walk_ms = Math.round(performance.now() - t0);
  walk.rescue();
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
  hits.interceptPass(kept);

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
  // still show a number: its box, to be painted over too (cockpit.core.page.masking).
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
  const navEntry = performance.getEntriesByType("navigation")[0];
  return {
    marks: marks,
    page: { url: location.href, title: topDoc.title, viewport: [VW, VH],
      scroll: [Math.round(window.scrollX), Math.round(window.scrollY)],
      page_size: [se.scrollWidth, se.scrollHeight], secret_boxes: secretBoxes,
      // [time origin, HTTP status (0: unknown)]: the document an action starts from (cockpit.core.agent.landing)
      document: [performance.timeOrigin, navEntry ? (navEntry.responseStatus || 0) : 0] },
    stats: Object.assign(stats, { ms: Math.round(performance.now() - t0) }),
  };
})
