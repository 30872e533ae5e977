// SomGeometry: boxes and clipping for the marking script (som.js). Boxes are [x1, y1, x2, y2] in
// CSS pixels of the top-level viewport; a walk context `ctx` ({doc, ox, oy, clip, ...}, made by
// som_walk.js) holds the offset of the document an element lives in (an iframe's).
// Interface: SomGeometry() -> {inter, area, rectOf, layoutParent, containingBlock, contentClip}; one
// per marking run (contentClip remembers what it worked out for the run's elements).
/* exported SomGeometry */
function SomGeometry() {
  "use strict";
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
  return { inter, area, rectOf, layoutParent, containingBlock, contentClip };
}
