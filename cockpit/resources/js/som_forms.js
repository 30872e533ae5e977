// SomForms: what the approval gate needs to know about the form a mark belongs to (where a submit
// goes, by which method, whether the form asks for a password or a card) and the page's own warnings
// ("Are you sure?", a trash icon).
// Interface: SomForms(doc, clean, identity) with the top document, SomNames' clean and the Identity
// module -> {formMethod, isSubmit, formAction, formFields, pageConfirm, iconHint}; one per marking
// run (formFields and pageConfirm remember their answers for the run).
/* exported SomForms */
function SomForms(doc, clean, identity) {
  "use strict";
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
  function formAction(el, tag) {
    return identity.formActionOf(el, formOf(el), isSubmit(el, tag));
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
      const m = CONFIRM_RX.exec(String(doc.body ? doc.body.innerText || "" : "").slice(0, 20000));
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

  return { formMethod, isSubmit, formAction, formFields, pageConfirm, iconHint };
}
