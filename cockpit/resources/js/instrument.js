// Installed in every frame before any page script runs (CDP
// Page.addScriptToEvaluateOnNewDocument). It observes, it does not change what
// the page does, with one exception: new tabs and windows are folded into the
// current tab, because the agent works in one tab only (as WebVoyager does).
//
// What it records, for cockpit.core.browser and som.js:
//   window.__cockpitListeners  WeakMap element -> number of pointer/click listeners
//   window.__cockpitState      {pending: open fetch/XHR count, lastMutation: ms of the last DOM change,
//                               lastWork: ms of the last DOM change not made by a ticker (a clock),
//                               lastActivity: ms of the last WebSocket/worker message,
//                               busy(): the page's pending work in words, for settle.js}
//   window.__cockpitState.markedAt  set by cockpit.core.page.observation when it starts marking
(function () {
  "use strict";
  if (window.__cockpitState) return;
  // settle.js keeps time with these, so a page that replaces them cannot stall it.
  const state = { pending: 0, lastMutation: 0, lastWork: 0, installed: performance.now(),
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
      if (inTicker) return origFetch.apply(this, arguments);  // a poll's request: the page's rhythm
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
      if (inTicker) return origSend.apply(this, arguments);
      state.pending++;
      let done = false;
      origAdd.call(this, "loadend", () => { if (!done) { done = true; state.pending--; } });
      try { return origSend.apply(this, arguments); } catch (e) { if (!done) { done = true; state.pending--; } throw e; }
    };
  }

  // Work the page still has to do in response to the last action (loading counts as one), which
  // settle.js waits for besides fetch/XHR and DOM quiet. Each entry leaves when its work is done.
  const now = state.now;
  const ACTION_WINDOW = 1000;  // ms after an action in which short timers and idle callbacks count
  const MAX_DELAY = 1000;      // longer timers are not "the page reacting"
  const REPLY_CAP = 3000;      // a worker, script or idle callback stops counting after this long
  const WS_CAP = 1000;         // a WebSocket send waits this long at most for a message back
  const timers = new Map();    // timeout id -> delay, for setTimeout(fn, <= 1 s) soon after an action
  const idles = new Map();     // idle callback id -> when asked
  const scripts = new Map();   // <script src> inserted after load -> when; until it loads or fails
  const workers = new Set();   // {since}: a message posted to a worker, not answered yet (0: none)
  let wsSent = 0;              // a WebSocket send not followed by a message yet
  state.lastAction = state.installed;
  state.lastActivity = 0;
  state.epoch = 0;  // counts actions: a ticker is a callback that ran again since the last one
  const acted = () => { if (!inTicker) { state.lastAction = now(); state.epoch++; } };  // not a carousel's click()
  for (const type of ["keydown", "keyup", "input", "change", "click", "pointerdown", "pointerup", "mousedown",
    "mouseup", "submit", "paste", "drop"]) {
    origAdd.call(window, type, acted, { capture: true, passive: true });
  }
  const reacting = () => now() - state.lastAction <= ACTION_WINDOW;

  // Timers. A short timer set while the page reacts to an action is pending work -- unless it belongs
  // to the page's own rhythm: a ticker. Tickers are setInterval callbacks set before the last action,
  // and a setTimeout of 50 ms or more re-armed with the same callback and delay after that callback ran
  // since the last action (a poll, a countdown); the first run of a chain the action started still
  // counts, and a quicker loop (chunked rendering, a scripted animation) is the action's work. What a
  // ticker does while it runs -- its DOM mutations, its fetches -- is not the action's consequence
  // either (state.lastWork, below).
  const origST = window.setTimeout, origCT = window.clearTimeout, origCI = window.clearInterval;
  const origSI = window.setInterval;
  const TICK_MIN = 50;          // ms; a re-armed timer at least this long is a rhythm, not a work loop
  const fired = new WeakMap();  // callback -> {epoch, delay} of its last run
  const firedSrc = new Map();   // "delay|source" -> epoch of its last run: callbacks rebuilt each time
  let inTicker = false;         // a ticker's callback is running: what it does is not the action's work
  let ticking = 0;              // >0 until the microtasks after a ticker's run (its mutation records)
  // A callback's source, for callbacks rebuilt at each re-arm (() => poll()); not for native code (bound
  // functions and promise resolvers all read "[native code]": an `await sleep(300)` twice is no ticker).
  const srcKey = (fn, d) => {
    try {
      const src = Function.prototype.toString.call(fn);
      return src.endsWith("[native code] }") ? "" : d + "|" + src;
    } catch { return ""; }
  };
  const ranBefore = (fn, d, key) => {
    if (d < TICK_MIN) return false;
    const f = fired.get(fn);
    if (f) return f.epoch === state.epoch && f.delay === d;
    return key !== "" && firedSrc.get(key) === state.epoch;
  };
  // The callback as run: remembers that it ran, and marks what it does as a ticker's when it is one
  // (`ticker`: a boolean, or a function deciding at each run). Its DOM changes are a ticker's until the next
  // task: a framework renders what the callback changed in a microtask after it.
  const wrap = (fn, args, d, ticker, after) => function () {
    if (after) after();
    fired.set(fn, { epoch: state.epoch, delay: d });
    const key = d >= TICK_MIN && d <= MAX_DELAY && reacting() ? srcKey(fn, d) : "";  // only while it matters
    if (key) { if (firedSrc.size > 500) firedSrc.clear(); firedSrc.set(key, state.epoch); }
    const was = inTicker, now = typeof ticker === "function" ? ticker() : ticker;
    inTicker = was || now;
    try { return fn.apply(window, args); } finally {
      inTicker = was;
      if (now && !was) { ticking++; origST.call(window, () => { ticking--; }, 0); }
    }
  };
  window.setTimeout = function (fn, delay) {
    if (typeof fn !== "function") return origST.apply(window, arguments);
    const d = Number(delay) || 0, args = Array.prototype.slice.call(arguments, 2);
    const short = d <= MAX_DELAY && reacting();
    const ticker = inTicker || ranBefore(fn, d, short && d >= TICK_MIN ? srcKey(fn, d) : "");
    const id = origST.call(window, wrap(fn, args, d, ticker, () => timers.delete(id)), d);
    if (short && !ticker) timers.set(id, d);
    return id;
  };
  // An interval is the page's rhythm once an action came after it was set (a clock set at load); while the
  // action that set it is the last one (a typewriter, jQuery's animation tick), what it does counts.
  window.setInterval = function (fn, delay) {
    if (typeof fn !== "function") return origSI.apply(window, arguments);
    const born = state.epoch;
    return origSI.call(window, wrap(fn, Array.prototype.slice.call(arguments, 2), Number(delay) || 0,
                                    () => state.epoch !== born), delay);
  };
  window.clearTimeout = function (id) { timers.delete(id); return origCT.apply(window, arguments); };
  window.clearInterval = function (id) { timers.delete(id); return origCI.apply(window, arguments); };
  if (window.requestIdleCallback) {
    const origRIC = window.requestIdleCallback, origCIC = window.cancelIdleCallback;
    window.requestIdleCallback = function (fn, opts) {
      if (typeof fn !== "function" || !reacting()) return origRIC.apply(window, arguments);
      const id = origRIC.call(window, function (deadline) { idles.delete(id); return fn.call(window, deadline); }, opts);
      idles.set(id, now());
      return id;
    };
    window.cancelIdleCallback = function (id) { idles.delete(id); return origCIC.apply(window, arguments); };
  }
  if (window.WebSocket) {
    const OrigWS = window.WebSocket;
    window.WebSocket = class WebSocket extends OrigWS {
      constructor(...a) {
        super(...a);
        origAdd.call(this, "message", () => { state.lastActivity = now(); wsSent = 0; });
      }
      send(data) { if (!wsSent) wsSent = now(); return super.send(data); }
    };
  }
  if (window.Worker) {
    const OrigWorker = window.Worker, recs = new WeakMap();
    window.Worker = class Worker extends OrigWorker {
      constructor(...a) {
        super(...a);
        const rec = { since: 0 };
        recs.set(this, rec);
        workers.add(rec);
        const answered = () => { rec.since = 0; state.lastActivity = now(); };
        origAdd.call(this, "message", answered);
        origAdd.call(this, "error", answered);
      }
      postMessage(...a) { const r = recs.get(this); if (r && !r.since) r.since = now(); return super.postMessage(...a); }
      terminate() { workers.delete(recs.get(this)); return super.terminate(); }
    };
  }
  // A script added after load (a module, a lazily loaded bundle): pending until it loads or fails.
  // Dynamic import() cannot be seen from here; settle.js's second look covers a quick one.
  const JS_TYPES = /^(|module|text\/javascript|application\/javascript)$/i;
  const watchScript = (n) => {
    if (!n.src || scripts.has(n) || !JS_TYPES.test(n.type || "")) return;
    scripts.set(n, now());
    const loaded = () => scripts.delete(n);
    origAdd.call(n, "load", loaded);
    origAdd.call(n, "error", loaded);
  };
  const short = (url) => { const s = String(url); return s.length > 60 ? "..." + s.slice(-57) : s; };
  state.busy = function () {
    const t = now(), out = [];
    if (state.pending > 0) out.push("fetch " + state.pending);
    for (const d of timers.values()) out.push("timer " + d + "ms");
    let n = 0;
    for (const since of idles.values()) if (t - since < REPLY_CAP) n++;
    if (n) out.push("idle callback " + n);
    for (const [s, since] of scripts) if (t - since < REPLY_CAP) out.push("script " + short(s.src));
    n = 0;
    for (const r of workers) if (r.since && t - r.since < REPLY_CAP) n++;
    if (n) out.push("worker reply " + n);
    if (wsSent && t - wsSent < WS_CAP) out.push("websocket reply");
    return out;
  };

  // DOM mutations: the page is "quiet" once none happened for a while.
  try {
    new MutationObserver((records) => {
      state.lastMutation = performance.now();
      if (!ticking) state.lastWork = state.lastMutation;
      if (document.readyState !== "complete") return;  // the load event waits for those scripts
      for (const r of records) {
        for (const n of r.addedNodes) if (n.nodeName === "SCRIPT") watchScript(n);
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch { /* very old document types: no observer, no quiet check */ }

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
    try { if (new URL(a.href).href.split("#")[0] === location.href.split("#")[0]) return; } catch { return; }
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
      try { (top ? window : window.top).location.href = new URL(url, location.href).href; } catch { location.href = url; }
    }
    return top ? window : window.top;
  };
  const retarget = (ev) => {
    const path = ev.composedPath ? ev.composedPath() : [ev.target];
    for (const n of path) {
      if (n && n.tagName && (n.tagName === "A" || n.tagName === "AREA" || n.tagName === "FORM")) {
        const t = (n.getAttribute("target") || "").toLowerCase();
        // Only new-window targets: a named iframe ("upload_frame") keeps working.
        const frameExists = t && t[0] !== "_" && (() => { try { return !!window.top.frames[t]; } catch { return false; } })();
        if (t && t !== "_self" && t !== "_parent" && t !== "_top" && !frameExists) n.setAttribute("target", "_top");
        break;
      }
    }
  };
  origAdd.call(window, "click", retarget, true);
  origAdd.call(window, "submit", retarget, true);
  origAdd.call(window, "auxclick", retarget, true);
})();
