// Included in som.js: what a person clicks that has no native semantics of its
// own (rows of a delegated listener, custom checkboxes) and the names and
// states the model is told about.

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
// A <label> over a hidden checkbox or radio is what a person clicks: it is
// told as that control, with its state.
function labelControl(el, tag) {
  if (tag !== "label") return null;
  const c = el.control;
  return c && c.tagName === "INPUT" && (c.type === "checkbox" || c.type === "radio") ? c : null;
}
// Such a label is a control when it looks like one: a pointer cursor on it or inside it, or a box
// drawn by ::before/::after (Bootstrap's custom checkbox). One
// that reads as plain text (MkDocs' "Table of contents" title on a wide screen, which toggles a menu
// only on phones, with the default cursor) is not.
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
  const m = /([^\/#?"')]+?)(?:\.(?:svg|png|gif|jpe?g|webp|ico))?(?:[?#][^"')]*)?["']?\)?$/i.exec(String(url || ""));
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
