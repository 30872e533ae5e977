// Identity: what identifies an element for the approval gate. som.js (the marks, through
// som_forms.js) and act.js (the check just before an approved action runs) must compute it the
// same way, so both use this module.
// Interface: Identity.domPath(element) -> "html:1>body:1>..."; Identity.formActionOf(element, form,
// submit) -> the URL a submit would go to, or "" without a form.
/* exported Identity */
const Identity = (() => {
  "use strict";
  // Where the element sits in its document: tag:nth-of-type steps from the root, through shadow hosts.
  function domPath(el) {
    const steps = [];
    for (let n = el, guard = 0; n && n.nodeType === 1 && guard < 64; guard++) {
      let k = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) k++;
      steps.push(n.tagName.toLowerCase() + ":" + k);
      if (n.parentElement) { n = n.parentElement; continue; }
      const r = n.getRootNode && n.getRootNode();
      n = r && r.host ? r.host : null;
      if (n) steps.push("#shadow");
    }
    return steps.reverse().join(">").slice(-600);
  }
  // Where a submit would go: the button's formaction, else its form's action attribute
  // (form.action can be shadowed by a field named "action"), else the page; "" without a form.
  function formActionOf(el, form, submit) {
    if (!form) return "";
    let a = form.getAttribute("action") || "";
    if (submit && el.hasAttribute("formaction")) a = el.getAttribute("formaction") || "";
    try { return new URL(a, el.ownerDocument.baseURI).href.slice(0, 2000); } catch { return ""; }
  }
  return Object.freeze({ domPath, formActionOf });
})();
