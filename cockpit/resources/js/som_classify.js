// SomClassify: whether an element is something a person acts on, and as what, from its markup alone
// (tag, role, attributes, listeners); what needs computed style (a pointer cursor, scrolling) is
// decided later by som_walk.js.
// Interface: SomClassify.implicitRole(el, tag, type) -> ARIA role or ""; .strongReason(el, tag) and
// .weakReason(el, ctx) -> why el is actionable, or ""; the sets ATOMIC_ROLES (click targets whose
// insides are not separate things), SKIP_TAGS (never content) and TEXT_INPUTS (input types typed into).
/* exported SomClassify */
const SomClassify = (() => {
  "use strict";
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

  // ctx.listeners: element -> count of click-like listeners, kept by instrument.js.
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
  return Object.freeze({ ATOMIC_ROLES, SKIP_TAGS, TEXT_INPUTS, implicitRole, strongReason, weakReason });
})();
