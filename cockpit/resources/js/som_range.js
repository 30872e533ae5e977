// SomRange: which children of an element the marking walk pushes on its stack (som_walk.js).
// Usually all of them (and those of its open shadow root). On big documents, an element with very
// many children (a flat feed of 20,000 siblings in <body>, a 5,000-row table) is not walked child
// by child: in-flow siblings lie in layout order, so their boxes' tops and bottoms grow with their
// index, and a binary search finds the first and last one near the viewport. Only those (and a
// margin of one viewport around it) are walked, and the first and last 32. What the order does not
// hold for (absolute, fixed or sticky children, content overflowing its box by more than the margin)
// is found again by the rescue pass, which hit-tests the viewport. A parent whose layout does not
// keep that order (multi-column, reversed flex, a sampled child out of order) is walked whole.
// Interface: SomRange(opts, stats, prune, viewHeight) with som.js's options (bisectAbove) and stats,
// whether the document is big enough to skip what lies off screen, and the viewport's height ->
// {pushChildren, pushKids, bisected, walkedKids}; one per marking run. pushChildren(stack, el, pc)
// pushes every child as [child, pc]; pushKids(stack, el, pc, ctx) only those near the viewport.
// `bisected` (parent -> [ctx, pc]) and `walkedKids` tell the rescue pass what was skipped.
/* exported SomRange */
function SomRange(opts, stats, prune, viewHeight) {
  "use strict";
  function pushChildren(stack, el, pc) {
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push([c, pc]);
    if (el.shadowRoot) {
      for (let c = el.shadowRoot.lastElementChild; c; c = c.previousElementSibling) stack.push([c, pc]);
    }
  }
  const BISECT_ABOVE = opts.bisectAbove || 200;
  const EDGE = 32;
  const bisected = new Map();  // parent -> [ctx, nearest candidate] for the rescue pass
  const walkedKids = new Set();  // children of bisected parents that were walked
  const ORDERED = /^(block|flow-root|list-item|table|inline-table|table-row-group|table-header-group|table-footer-group|inline-block)$/;
  function keepsOrder(el) {
    const st = getComputedStyle(el);
    if (st.columnCount !== "auto" || st.columnWidth !== "auto") return false;
    if (!st.writingMode.startsWith("horizontal")) return false;
    if (ORDERED.test(st.display)) return true;
    if (/flex$/.test(st.display)) {
      return st.flexDirection === "column" || (st.flexDirection === "row" && st.flexWrap === "wrap");
    }
    if (/grid$/.test(st.display)) return st.gridAutoFlow === "row";
    return false;
  }
  // The box of the first in-flow, laid-out child at or after index i (looking at
  // no more than 16), as [index, [top, bottom]]; past the last child, an endless
  // box after it; null when there is none in those 16.
  function probe(kids, i, memo, ctx) {
    for (let j = i; j < i + 16; j++) {
      if (j >= kids.length) return [kids.length, [Infinity, Infinity]];
      let v = memo.get(j);
      if (v === undefined) {
        const k = kids[j];
        const r = k.getBoundingClientRect();
        v = r.width > 0 || r.height > 0 ? (/^(static|relative)$/.test(getComputedStyle(k).position)
          ? [r.top + ctx.oy, r.bottom + ctx.oy] : null) : null;
        memo.set(j, v);
      }
      if (v) return [j, v];
    }
    return null;
  }
  // First index whose probed box satisfies `ok` (false ... false true ... true), or -1 if a probe fails.
  function firstWhere(kids, memo, ctx, ok) {
    let lo = 0, hi = kids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const p = probe(kids, mid, memo, ctx);
      if (!p) return -1;
      if (ok(p[1])) hi = mid; else lo = p[0] + 1;
    }
    return lo;
  }
  // [lo, hi) of the children of `el` to walk, or null to walk them all.
  function siblingRange(el, kids, ctx) {
    if (!prune || kids.length <= BISECT_ABOVE || !keepsOrder(el)) return null;
    const view = ctx.clip || [0, 0, 0, 0];
    const margin = Math.max(256, viewHeight);
    const memo = new Map();
    let last = -Infinity;  // a sample of children must lie in order
    for (let s = 0; s < 24; s++) {
      const p = probe(kids, Math.floor(s * (kids.length - 1) / 23), memo, ctx);
      if (!p) return null;
      if (p[0] === kids.length) continue;
      if (p[1][0] < last - margin / 4) return null;
      last = Math.max(last, p[1][0]);
    }
    const lo = firstWhere(kids, memo, ctx, r => r[1] > view[1] - margin);
    const hi = firstWhere(kids, memo, ctx, r => r[0] >= view[3] + margin);
    if (lo < 0 || hi < 0) return null;
    return [Math.max(0, lo - 1), Math.min(kids.length, hi + 1)];
  }
  function pushKids(stack, el, pc, ctx) {
    const n = el.childElementCount;
    const range = n > BISECT_ABOVE ? siblingRange(el, el.children, ctx) : null;
    if (!range) { pushChildren(stack, el, pc); return; }
    const kids = el.children;
    bisected.set(el, [ctx, pc]);
    stats.bisected = (stats.bisected || 0) + 1;
    stats.skipped_siblings = (stats.skipped_siblings || 0) + n - (range[1] - range[0]);
    if (el.shadowRoot) {
      for (let c = el.shadowRoot.lastElementChild; c; c = c.previousElementSibling) stack.push([c, pc]);
    }
    // The first and last few children are walked too: banners, dialogs and menus a page appends
    // to <body> are often fixed or absolute, out of the layout order.
    const walk = (i) => { walkedKids.add(kids[i]); stack.push([kids[i], pc]); };
    for (let i = n - 1; i >= Math.max(range[1], n - EDGE); i--) walk(i);
    for (let i = range[1] - 1; i >= range[0]; i--) walk(i);
    for (let i = Math.min(EDGE, range[0]) - 1; i >= 0; i--) walk(i);
  }
  return { pushChildren, pushKids, bisected, walkedKids };
}
