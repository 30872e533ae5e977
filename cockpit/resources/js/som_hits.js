// SomHits: hit testing for the marking script -- is an element what the page shows at a point, is
// it under a dialog, and is it hidden only by a see-through layer (a hostile page's invisible cover).
// Interface: SomHits(viewport, stats, paint) with the viewport's [width, height], som.js's stats (counts
// it adds to) and the Paint module -> {within, clickPoint, underDialog, seeThroughCover, intercepted,
// interceptPass}; one per marking run. `intercepted` collects the records (som_walk.js) of elements
// hidden only by a see-through cover; interceptPass(kept) settles them against the kept marks.
/* exported SomHits */
function SomHits(viewport, stats, paint) {
  "use strict";
  const VW = viewport[0], VH = viewport[1];
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
      v = paint.paintsNothing(h, 0) || opacityOf(h) < 0.05;
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

  return { within, clickPoint, underDialog, seeThroughCover, intercepted, interceptPass };
}
