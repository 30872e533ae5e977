// Paint: does an element paint nothing a person could see? Such an element lying on top of
// another one catches the clicks meant for it. Errs towards "it paints".
// Interface: Paint.alpha(cssColour) -> 0..1; Paint.paintsNothing(element, depth) -> boolean.
// A module (see cockpit.core.resources.script): used by som.js (through som_hits.js) and act.js.
/* exported Paint */
const Paint = (() => {
  "use strict";
  function alpha(c) {
    if (!c || c === "transparent") return 0;
    const m = /rgba?\(([^)]*)\)/.exec(c);
    if (!m) return 1;
    const p = m[1].split(/[\s,/]+/).filter(Boolean);
    return p.length >= 4 ? parseFloat(p[3]) : 1;
  }
  function paintsNothing(n, depth) {
    if (depth > 3 || n.shadowRoot || n.childNodes.length > 50) return false;
    const st = getComputedStyle(n);
    if (st.display === "none" || st.visibility === "hidden" || parseFloat(st.opacity) < 0.05) return true;
    if (/^(img|svg|canvas|video|iframe|frame|embed|object|input|select|textarea|picture)$/i.test(n.tagName)) return false;
    if (alpha(st.backgroundColor) > 0.05 || st.backgroundImage !== "none" || st.boxShadow !== "none") return false;
    for (const s of ["Top", "Right", "Bottom", "Left"]) {
      if (parseFloat(st["border" + s + "Width"]) > 0 && !/none|hidden/.test(st["border" + s + "Style"]) &&
          alpha(st["border" + s + "Color"]) > 0.05) return false;
    }
    if (parseFloat(st.outlineWidth) > 0 && st.outlineStyle !== "none" && alpha(st.outlineColor) > 0.05) return false;
    for (const ps of ["::before", "::after"]) {
      const c = getComputedStyle(n, ps).content;
      if (c && c !== "none" && c !== "normal") return false;
    }
    for (const c of n.childNodes) {
      if (c.nodeType === 3 && c.textContent.trim() && alpha(st.color) > 0.05) return false;
      if (c.nodeType === 1 && !paintsNothing(c, depth + 1)) return false;
    }
    return true;
  }
  return Object.freeze({ alpha, paintsNothing });
})();
