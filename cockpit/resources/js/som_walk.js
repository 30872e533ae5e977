// SomWalk: the marking walk. It visits the elements of the viewport depth first, entering open shadow
// roots and same-origin iframes, and keeps a record for each one a person could act on:
// {el, ctx, parent, weak, reason, tag, type, role, editable, scrollable, vr (visible box), pt (click
// point), hasChild, atomic}. A walk context `ctx` is {doc, ox, oy, clip, inFrame, listeners, frames}:
// the document, its offset in the top viewport, what of it shows, and the frames it lies in.
// Interface: SomWalk(run) -> {walkRoot(root, ctx, parentRecord), rescue(), found}; one per marking
// run. `run` holds what som.js set up: {opts (timeBudgetMs, rescueMs), stats, t0, viewport [w, h],
// prune, geo (SomGeometry), classify (SomClassify), names (SomNames), items (SomItems), hits (SomHits),
// range (SomRange)}. `found` gets the records in document order; rescue() walks what pruning skipped
// and the page shows after all.
/* exported SomWalk */
function SomWalk(run) {
  "use strict";
  const { opts, stats, t0, prune } = run;
  const VW = run.viewport[0], VH = run.viewport[1];
  const TIME_BUDGET = opts.timeBudgetMs || 15000;
  const { inter, area, rectOf, layoutParent, containingBlock, contentClip } = run.geo;
  const { ATOMIC_ROLES, SKIP_TAGS, TEXT_INPUTS, implicitRole, strongReason, weakReason } = run.classify;
  const { clean, LIGATURE, labelControl } = run.names;
  const { repeated, delegatedItem, looksLikeControl, cursorIsPointer } = run.items;
  const { clickPoint, underDialog, seeThroughCover, intercepted } = run.hits;
  const { pushChildren, pushKids, bisected, walkedKids } = run.range;
  const found = [];

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
    let scrollable = false;
    if (el !== ctx.doc.documentElement && el !== ctx.doc.body &&
        (el.scrollHeight > el.clientHeight + 2 || el.scrollWidth > el.clientWidth + 2)) {
      scrollable = isScrollable(el, getComputedStyle(el));
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
  const pruned = new Map();  // element -> [ctx, nearest candidate]
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
      } else if (prune && r[2] > r[0] && r[3] > r[1] && el !== ctx.doc.body && el !== ctx.doc.documentElement) {
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
    const topDoc = document;
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
    try { doc = frameEl.contentDocument; } catch { /* cross-origin: doc stays null */ }
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
  return { walkRoot, rescue, found };
}
