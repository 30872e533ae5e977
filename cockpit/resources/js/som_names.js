// SomNames: what the model is told about a mark -- its text and name (an icon-only control's from
// what draws the icon), the state of a checkbox or switch, a <select>'s options, and whether its value
// is a secret (kept out of marks and prompts).
// Interface: SomNames(opts, classify) with opts.maxText and opts.maxOptions (som.js's options) and the
// SomClassify module -> {clean, readText, LIGATURE, textOf, labelControl, checkedState, selectOptions,
// isSecret}; one per marking run.
/* exported SomNames */
function SomNames(opts, classify) {
  "use strict";
  const MAX_TEXT = opts.maxText || 200;
  const SKIP_TAGS = classify.SKIP_TAGS;

  // ---------- text ----------
  function clean(s) {
    if (!s) return "";
    s = String(s).replace(/\s+/g, " ").trim();
    return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT - 1) + "\u2026" : s;
  }
  // The first `limit` characters of an element's text, without reading all of it (nor its scripts').
  function headText(el, limit) {
    const w = (el.ownerDocument || document).createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: n => n.nodeType === 1 ? (SKIP_TAGS.has(n.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP)
        : NodeFilter.FILTER_ACCEPT });
    let out = "";
    for (let n = w.nextNode(); n && out.length < limit; n = w.nextNode()) out += n.nodeValue + " ";
    return out.slice(0, limit);
  }
  // An element's text without the names of ligature icons it holds ("Name" for <th>Name<i
  // class="material-icons">arrow_upward</i></th>); an icon-only control keeps its icon's name.
  const LIGATURE = '[class*="material-icons"], [class*="material-symbols"]';
  function readText(n) {
    const t = n.innerText || n.textContent || "";
    if (!n.querySelector || !n.querySelector(LIGATURE)) return t;
    let out = t;
    for (const i of n.querySelectorAll(LIGATURE)) out = out.replace(i.innerText || i.textContent || "", " ");
    return clean(out) ? out : t;
  }
  function textOf(el, tag, type, scrollable) {
    if (tag === "input") {
      if (["button", "submit", "reset"].includes(type)) return clean(el.value);
      if (type === "image") return clean(el.alt || el.value);
      const lab = el.labels && el.labels[0];
      return lab ? clean(readText(lab)) : "";
    }
    if (tag === "textarea") {
      const lab = el.labels && el.labels[0];
      return lab ? clean(readText(lab)) : "";
    }
    if (tag === "select") {  // named by its label (not the options of a list it wraps); else the chosen option
      const lab = el.labels && el.labels[0];
      const o = el.selectedOptions && el.selectedOptions[0];
      const chosen = o ? clean(o.text) : "";
      const name = !lab ? "" : clean(lab.contains(el) ? Array.from(lab.childNodes).filter(n => !n.contains(el))
        .map(n => n.nodeType === 1 ? readText(n) : n.textContent).join(" ") : readText(lab));
      return name ? name + ": " + chosen : chosen;
    }
    // A big scroll container's text is its whole content: keep it short.
    let t = scrollable ? headText(el, MAX_TEXT * 2) : readText(el);
    t = clean(t);
    if (!t) t = clean(iconName(el));
    if (!t && labelControl(el, tag)) t = clean(iconName(labelControl(el, tag)));  // a switch with no text
    if (!t && tag !== "label") t = iconWord(el);  // drawn only as an icon: named from its class or image
    return t;
  }

  // Card numbers and security codes named only by the field's name, id, placeholder, aria-label or
  // <label> (no autocomplete="cc-..."): secret too, so their values stay out of marks and prompts.
  const CARD_NAME = /\b(card ?(number|no)|credit ?card|debit ?card|cc ?(number|num|csc)|cvc|cvv|csc|security ?code)\b/i;
  function isSecret(el, tag, type) {
    if (tag !== "input") return false;
    if (type === "password") return true;
    const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    if (ac.startsWith("cc-") || ac === "one-time-code" || ac.includes("password")) return true;
    if (!/^(text|tel|number|)$/.test(type || "")) return false;
    const names = [el.getAttribute("name"), el.id, el.getAttribute("placeholder"), el.getAttribute("aria-label")];
    if (el.labels) for (const l of el.labels) names.push(l.textContent);
    return names.some(n => n && CARD_NAME.test(String(n).replace(/[_-]+/g, " ")));
  }

  // ---------- custom checkboxes, radios and switches ----------
  // A <label> over a hidden checkbox or radio is what a person clicks: it is
  // told as that control, with its state.
  function labelControl(el, tag) {
    if (tag !== "label") return null;
    const c = el.control;
    return c && c.tagName === "INPUT" && (c.type === "checkbox" || c.type === "radio") ? c : null;
  }
  const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
  // "checked" / "unchecked" for native and ARIA checkables (and labels standing for them), else null.
  function checkedState(el, tag, role) {
    const c = tag === "input" ? el : labelControl(el, tag);
    if (c && (c.type === "checkbox" || c.type === "radio")) return c.checked ? "checked" : "unchecked";
    if (CHECKABLE.has(role)) {
      const a = (el.getAttribute("aria-checked") || "").toLowerCase();
      return a === "true" ? "checked" : a === "mixed" ? "mixed" : "unchecked";
    }
    return null;
  }

  // ---------- names ----------
  // The accessible name an icon-only control has instead of text: aria-label,
  // aria-labelledby, title, or the label of the picture inside it.
  function iconName(el) {
    const own = el.getAttribute("aria-label");
    if (own && own.trim()) return own;
    const ids = (el.getAttribute("aria-labelledby") || "").trim();
    if (ids) {
      const root = el.getRootNode();
      const t = ids.split(/\s+/).map(id => {
        const n = root.getElementById ? root.getElementById(id) : null;
        return n ? n.textContent : "";
      }).join(" ");
      if (t.trim()) return t;
    }
    if (el.getAttribute("title")) return el.getAttribute("title");
    const pic = el.querySelector && el.querySelector("img[alt], [aria-label], svg title, [title]");
    if (!pic) return "";
    if (pic.tagName === "IMG" && pic.alt) return pic.alt;
    return pic.getAttribute("aria-label") || (pic.tagName.toLowerCase() === "title" ? pic.textContent : "") ||
      pic.getAttribute("title") || "";
  }

  // ---------- icon-only controls ----------
  // A control with no text, label or title, shown only as an icon: a name from what draws the icon -- an
  // icon font's class ("fa fa-trash", "bi-star", "icon-delete", "glyphicon-heart"), a class naming what it
  // is (<span class="retweet">), an SVG <use href="#icon-delete">, an image's or background image's file
  // name -- as "<name> icon" ("trash icon"), so the model and the approval gate know what it does.
  const ICON_PREFIX = /^(?:fa[srlbdk]?|fa-(?:solid|regular|light|brands|duotone|thin|sharp)|bi|icon|icons|glyphicon|mdi|ti|la[srb]?|ion|ionicons|octicon|feather|lucide|ri|bx|bxs|bxl|gg|uil|ph|hero|material-icons|material-symbols-\w+)$/i;
  const ICON_NOISE = /^(?:fa|fas|far|fal|fab|fad|fak|bi|mdi|icon|icons|ion|glyphicon|octicon|feather|lucide|lg|xs|sm|md|xl|\d*x|fw|2xs|spin|pulse|border|inverse|pull-\w+|flip-\w+|rotate-\d+|stack(?:-\dx)?|solid|regular|light|brands|outline|outlined|filled|fill|round|rounded|sharp|twotone|line|btn|button|clickable|action|actions|active|disabled|selected|hidden|show|small|large|left|right|top|bottom|inline|block|flex|item|link|ng-\w+|js-\w+|css-\w+|sc-\w+|v-\w+|q-\w+|mui\w*|ant-\w+|el-\w+)$/i;
  const iconWords = (s) => clean(String(s).replace(/\.(svg|png|gif|jpe?g|webp|ico)$/i, "").replace(/[-_]+/g, " "))
    .replace(/\b(icon|ico|ic|svg|img|outline|outlined|filled|solid|line|\d+(px)?)\b/gi, "").replace(/\s+/g, " ").trim();
  function fileWord(url) {
    const m = /([^/#?"')]+?)(?:\.(?:svg|png|gif|jpe?g|webp|ico))?(?:[?#][^"')]*)?["']?\)?$/i.exec(String(url || ""));
    // without a bundler's content hash ("trash.3f2a1b.svg", "trash-3f2a1b9c.svg")
    return m && !/^data:/i.test(url) ? iconWords(m[1].replace(/[.-][0-9a-f]{6,}$/i, "")) : "";
  }
  // [word, from an icon library's class] of an element's classes: "fa-trash" -> ["trash", true];
  // <span class="retweet"> -> ["retweet", false]; ["", false] when none names anything.
  function classWord(n) {
    const tokens = String(n.getAttribute("class") || "").trim().split(/\s+/).filter(Boolean);
    let named = "";
    for (const t of tokens) {
      const m = /^([a-z]+(?:-(?:solid|regular|light|brands))?)-(.+)$/i.exec(t);
      if (m && ICON_PREFIX.test(m[1]) && !ICON_NOISE.test(m[2])) {  // "fa-trash", not "fa-fw", "fa-2x", "fa-solid"
        const w = iconWords(m[2]);
        if (w) return [w, true];
      }
      // the only class an element has, naming it (<span class="retweet">); not one of a utility-class list
      if (tokens.length === 1 && /^[a-z]{3,}(?:[-_][a-z]+)?$/i.test(t) && !ICON_NOISE.test(t)) named = iconWords(t);
    }
    return [named, false];
  }
  function iconWord(el) {
    const nodes = [el].concat(Array.from(el.querySelectorAll ? el.querySelectorAll("*") : []).slice(0, 6));
    let fallback = "";
    for (const n of nodes) {
      const tag = n.tagName.toLowerCase();
      let w = "";
      if (tag === "use") {  // <use href="#icon-delete"> or "sprite.svg#delete"; a whole sprite file names nothing
        const ref = n.getAttribute("href") || n.getAttribute("xlink:href") || "";
        w = ref.includes("#") ? iconWords(ref.split("#").pop()) : "";
      }
      else if (tag === "img" && n.getAttribute("src")) w = fileWord(n.getAttribute("src"));
      if (!w) {
        const bg = getComputedStyle(n).backgroundImage;
        if (bg && bg !== "none" && /url\(/.test(bg)) w = fileWord(/url\(["']?([^"')]*)/.exec(bg)[1]);
      }
      if (w) return w + " icon";
      const [word, lib] = classWord(n);
      if (lib) return word + " icon";
      if (word && !fallback) {  // a class naming the thing: only on an icon-sized element, not a wrapper
        const r = n.getBoundingClientRect();
        if (r.width <= 64 && r.height <= 64) fallback = word;
      }
    }
    return fallback ? fallback + " icon" : "";
  }

  // ---------- select options ----------
  // A <select>'s options as the model is told them: the first MAX_OPTIONS as
  // [text, selected], and how many more there are.
  const MAX_OPTIONS = opts.maxOptions || 20;
  function selectOptions(el) {
    const all = el.options || [];
    const out = [];
    for (let i = 0; i < all.length && out.length < MAX_OPTIONS; i++) {
      out.push([clean(all[i].text), !!all[i].selected]);  // the text Select matches (act.js)
    }
    const chosen = [];  // a selected option past the first ones is still told
    for (let i = out.length; i < all.length; i++) if (all[i].selected) chosen.push([clean(all[i].text), true]);
    return { options: out.concat(chosen), more: all.length - out.length - chosen.length };
  }
  return { clean, readText, LIGATURE, textOf, labelControl, checkedState, selectOptions, isSecret };
}
