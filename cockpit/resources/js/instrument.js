// Installed in every frame before any page script runs (CDP
// Page.addScriptToEvaluateOnNewDocument). It observes, it does not change what
// the page does, with one exception: new tabs and windows are folded into the
// current tab, because the agent works in one tab only (as WebVoyager does).
//
// What it records, for cockpit.core.browser and som.js:
//   window.__cockpitListeners  WeakMap element -> number of pointer/click listeners
//   window.__cockpitState      {pending: open fetch/XHR count, lastMutation: ms}
(function () {
  "use strict";
  if (window.__cockpitState) return;
  // settle.js keeps time with these, so a page that replaces them cannot stall it.
  const state = { pending: 0, lastMutation: 0, installed: performance.now(),
    setTimeout: window.setTimeout.bind(window), now: performance.now.bind(performance) };
  const CLICKY = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup",
    "touchstart", "dblclick", "auxclick"]);
  const listeners = new WeakMap();
  const hide = (name, value) => Object.defineProperty(window, name, { value, enumerable: false });
  hide("__cockpitState", state);
  hide("__cockpitListeners", listeners);

  const ET = EventTarget.prototype;
  const origAdd = ET.addEventListener, origRemove = ET.removeEventListener;
  ET.addEventListener = function (type, fn, o) {
    if (fn && CLICKY.has(type) && this instanceof Element) listeners.set(this, (listeners.get(this) || 0) + 1);
    return origAdd.call(this, type, fn, o);
  };
  ET.removeEventListener = function (type, fn, o) {
    if (fn && CLICKY.has(type) && listeners.has(this)) listeners.set(this, listeners.get(this) - 1);
    return origRemove.call(this, type, fn, o);
  };

  // Pending network requests made by scripts.
  if (window.fetch) {
    const origFetch = window.fetch;
    window.fetch = function () {
      state.pending++;
      let p;
      try { p = origFetch.apply(this, arguments); } catch (e) { state.pending--; throw e; }
      return p.finally(() => { state.pending--; });
    };
  }
  const XHR = window.XMLHttpRequest && XMLHttpRequest.prototype;
  if (XHR) {
    const origSend = XHR.send;
    XHR.send = function () {
      state.pending++;
      let done = false;
      origAdd.call(this, "loadend", () => { if (!done) { done = true; state.pending--; } });
      try { return origSend.apply(this, arguments); } catch (e) { if (!done) { done = true; state.pending--; } throw e; }
    };
  }

  // DOM mutations: the page is "quiet" once none happened for a while.
  try {
    new MutationObserver(() => { state.lastMutation = performance.now(); })
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch (e) { /* very old document types: no observer, no quiet check */ }

  // A form submit or link click that the page did not cancel starts a navigation a moment
  // later; settle.js waits for it instead of reporting the old page as settled.
  const navSoon = (e) => { if (!e.defaultPrevented) state.navPending = performance.now(); };
  window.addEventListener("submit", navSoon);
  // The navigation happened (or this page came back from the back-forward cache): nothing pending.
  window.addEventListener("pagehide", () => { state.navPending = 0; });
  window.addEventListener("pageshow", () => { state.navPending = 0; });
  window.addEventListener("click", (e) => {
    const a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || e.defaultPrevented || e.button !== 0) return;
    const href = a.getAttribute("href") || "";
    if (href.startsWith("#") || href.toLowerCase().startsWith("javascript:") || a.hasAttribute("download")) return;
    try { if (new URL(a.href).href.split("#")[0] === location.href.split("#")[0]) return; } catch (err) { return; }
    navSoon(e);
  });

  // One tab only.
  const top = window.top === window;
  const origOpen = window.open;
  window.open = function (url) {
    // No URL: the page writes into the new window itself (a receipt to print);
    // let it open, ensure_single_tab() folds it back later.
    if (!url || url === "about:blank") return origOpen.apply(window, arguments);
    {
      try { (top ? window : window.top).location.href = new URL(url, location.href).href; } catch (e) { location.href = url; }
    }
    return top ? window : window.top;
  };
  const retarget = (ev) => {
    const path = ev.composedPath ? ev.composedPath() : [ev.target];
    for (const n of path) {
      if (n && n.tagName && (n.tagName === "A" || n.tagName === "AREA" || n.tagName === "FORM")) {
        const t = (n.getAttribute("target") || "").toLowerCase();
        // Only new-window targets: a named iframe ("upload_frame") keeps working.
        const frameExists = t && t[0] !== "_" && (() => { try { return !!window.top.frames[t]; } catch (e) { return false; } })();
        if (t && t !== "_self" && t !== "_parent" && t !== "_top" && !frameExists) n.setAttribute("target", "_top");
        break;
      }
    }
  };
  origAdd.call(window, "click", retarget, true);
  origAdd.call(window, "submit", retarget, true);
  origAdd.call(window, "auxclick", retarget, true);
})();
