// SomItems: what a person clicks that has no native semantics of its own -- the repeated rows of a
// delegated listener, a <label> drawn as a custom checkbox -- and whether an element shows a pointer.
// Interface: SomItems() -> {repeated, delegatedItem, looksLikeControl, cursorIsPointer}; one per
// marking run (it remembers computed styles for the run). delegatedItem(el, parentCandidate, ctx)
// takes som_walk.js's candidate record ({el, reason, atomic}) and walk context ({doc, listeners}).
/* exported SomItems */
function SomItems() {
  "use strict";
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

  // ---------- delegated items ----------
  // A listener on a container with a per-item selector (jQuery's .on("click",
  // ".row", f), or e.target.closest(".row")) makes each repeated child a click
  // target: an email row, a table row, a menu entry. The evidence is structure:
  // siblings of one kind (tag, first class, role), not far below the listener.
  function signature(e) {
    return e.tagName + "." + (e.getAttribute("class") || "").trim().split(/\s+/)[0] + "." + (e.getAttribute("role") || "");
  }
  function repeated(el) {
    const s = signature(el);
    const a = el.previousElementSibling, b = el.nextElementSibling;
    return !!((a && signature(a) === s) || (b && signature(b) === s));
  }
  const ITEM_TAGS = new Set(["LI", "TR", "DT", "DD", "ARTICLE"]);
  // Blocks that may be items; text (paragraphs, headings, code and its highlighted spans) is not.
  const BLOCK_ITEM_TAGS = new Set(["LI", "TR", "DT", "DD", "ARTICLE", "DIV", "SECTION", "ASIDE", "FIGURE"]);
  const ITEM_DISPLAY = /^(block|list-item|table-row|flex|grid|inline-block|inline-flex|inline-grid|flow-root)$/;
  // Most of the parent's children are of el's kind (a list of rows, not prose with a few alike).
  const kindMemo = new Map();
  function mostlyAlike(el) {
    const parent = el.parentElement, s = signature(el);
    let counts = kindMemo.get(parent);
    if (!counts) {
      counts = new Map();
      let n = 0;
      for (let c = parent.firstElementChild; c && n < 64; c = c.nextElementSibling, n++) {
        const k = signature(c);
        counts.set(k, (counts.get(k) || 0) + 1);
      }
      counts.total = n;
      kindMemo.set(parent, counts);
    }
    return (counts.get(s) || 0) * 2 >= counts.total;
  }
  // A framework's root listener (React) takes every kind of click event, often twice: it says
  // nothing about which of its descendants are items. A per-list listener takes one or two.
  const ROOT_LISTENERS = 6;
  function delegatedItem(el, pc, ctx) {
    if (!pc || pc.atomic || (pc.reason !== "listener" && pc.reason !== "handler")) return false;
    // A listener on <body> (analytics, closing menus on any click) says nothing about its children.
    if (pc.el === ctx.doc.body || pc.el === ctx.doc.documentElement) return false;
    if (ctx.listeners && (ctx.listeners.get(pc.el) || 0) >= ROOT_LISTENERS) return false;
    let p = el.parentElement;
    for (let depth = 0; p && p !== pc.el; p = p.parentElement) if (++depth > 2) return false;
    if (p !== pc.el || !repeated(el)) return false;
    const tag = el.tagName;
    if (!BLOCK_ITEM_TAGS.has(tag) && !tag.includes("-")) return false;
    if (!(ITEM_TAGS.has(tag) || !!el.firstElementChild || !!el.getAttribute("class"))) return false;
    return mostlyAlike(el) && ITEM_DISPLAY.test(getComputedStyle(el).display);
  }

  // ---------- custom checkboxes, radios and switches ----------
  // A <label> over a hidden checkbox or radio (SomNames' labelControl) is a control when it looks
  // like one: a pointer cursor on it or inside it, or a box drawn by ::before/::after (Bootstrap's
  // custom checkbox). One that reads as plain text (MkDocs' "Table of contents" title on a wide
  // screen, which toggles a menu only on phones, with the default cursor) is not.
  const CLEAR = /^(transparent|rgba\(0, 0, 0, 0\))$/;
  function backdropOf(el) {  // the background colour an element is drawn over
    for (let p = el && el.parentElement; p; p = p.parentElement) {
      const bg = getComputedStyle(p).backgroundColor;
      if (bg && !CLEAR.test(bg)) return bg;
    }
    return "rgb(255, 255, 255)";
  }
  function painted(st, el) {  // a border, a picture, or a background colour other than what is behind it
    return (parseFloat(st.borderTopWidth) > 0 && !CLEAR.test(st.borderTopColor)) ||
      (parseFloat(st.borderLeftWidth) > 0 && !CLEAR.test(st.borderLeftColor)) ||
      st.backgroundImage !== "none" ||
      (!!st.backgroundColor && !CLEAR.test(st.backgroundColor) && (!el || st.backgroundColor !== backdropOf(el)));
  }
  function drawsBox(k) {
    for (const p of ["::before", "::after"]) {
      const st = getComputedStyle(k, p);
      if (st.content === "none" || st.content === "normal" || st.display === "none") continue;
      if (painted(st)) return true;
    }
    return false;
  }
  function looksLikeControl(el) {
    if (cursorIsPointer(el) || drawsBox(el) || painted(getComputedStyle(el), el)) return true;
    const kids = el.querySelectorAll("*");
    for (let i = 0; i < kids.length && i < 12; i++) {
      const k = kids[i];
      if (!k.checkVisibility({ visibilityProperty: true })) continue;
      if (cursorIsPointer(k) || drawsBox(k)) return true;
    }
    return false;
  }
  return { repeated, delegatedItem, looksLikeControl, cursorIsPointer };
}
