// Resolves when the page has settled -- or when `capMs` runs out -- with what was still pending.
//
// Settled means: the document is loaded; no work the page started in response to the last action
// is pending (fetch/XHR, short timers, idle callbacks, scripts being loaded, worker and WebSocket
// replies: window.__cockpitState.busy(), see instrument.js); no finite CSS animation or transition
// is running; no loading signal is visible in the viewport (aria-busy, an indeterminate progress
// bar, a moving element with a spinner/loader class, a text such as "Loading..."); all that for a
// second look of `lookMs`; and no DOM mutation (or WebSocket/worker message) for `quietMs` -- mutations
// made by the page's tickers (a clock, a poll: instrument.js) do not count.
// Infinite animations do not count as animations (a spinner counts as a loading signal). A page
// that mutates forever settles after `mutationCapMs` of otherwise quiet; loading signals hold at
// most `signalCapMs` (a spinner that never stops).
// Called with execute_async_script(SOURCE, quietMs, capMs, mutationCapMs, lookMs, signalCapMs).
// The answer also names the document it settled on: `document` is [time origin, HTTP status (0: unknown)]
// (cockpit.core.agent.landing tells from it whether the action led to an error page, without asking again).
(function (quietMs, capMs, mutationCapMs, lookMs, signalCapMs, done) {
  const st0 = window.__cockpitState;
  const clock = st0 && st0.now ? st0.now : () => performance.now();
  const later = st0 && st0.setTimeout ? st0.setTimeout : setTimeout;
  const t0 = clock();
  const SCAN_EVERY = 50;  // ms between two looks for loading signals (they cost more than the counters)
  const MAX_ANIMATION = 2000;  // ms; a longer finite animation is decoration, not the page reacting
  let idleSince = null, signalSince = null, scannedAt = -Infinity, signals = [], first = true;

  function inView(el) {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.bottom <= 0 || r.right <= 0
        || r.top >= innerHeight || r.left >= innerWidth) return false;
    return el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true;
  }
  function name(el) {
    const cls = typeof el.className === "string" ? el.className.trim().split(/\s+/)[0] : "";
    return el.tagName.toLowerCase() + (cls ? "." + cls : "");
  }
  const SIGNALS = '[aria-busy="true"], progress:not([value]), [role="progressbar"]:not([aria-valuenow]), '
    + '[class*="spin" i], [class*="load" i], [class*="skeleton" i]';
  // A class naming a spinner is a loading signal only while something in it moves: a number
  // "spinner" (a stepper) or a "file-uploader" box is not.
  const SPINNER_CLASS = /(^|[-_\s])(spin|spinner|loader|loading|skeleton)([-_\s]|$)/i;
  const moving = (el) => !!el.getAnimations
    && el.getAnimations({ subtree: true }).some((a) => a.playState === "running");
  const WORDS = ["Loading", "loading", "LOADING", "Initializing", "Initialising", "initializing",
    "Please wait", "please wait"];
  const TEXTS = "//body//text()[" + WORDS.map((w) => "contains(., '" + w + "')").join(" or ") + "]";
  const LOADING_TEXT = /^(loading|initiali[sz]ing|please wait)\b/i;
  const LOADING_WORD = /loading|initiali[sz]ing|please wait/i;
  // The elements that could be loading signals, [element, description]: found again only when the DOM
  // changed (kept in __cockpitState between calls), since a search costs ~10 ms on a 20,000-element page.
  function candidates(st) {
    if (!document.body) return [];
    if (st && st.signalCandidates && st.signalCandidates.at === st.lastMutation) return st.signalCandidates.list;
    const list = [];
    const found = document.querySelectorAll(SIGNALS);
    for (let i = 0; i < found.length && i < 50; i++) {
      const el = found[i];
      const what = el.getAttribute("aria-busy") === "true" ? "busy" : el.tagName === "PROGRESS"
        || el.getAttribute("role") === "progressbar" ? "progress" : "spinner";
      if (what === "spinner" && !(SPINNER_CLASS.test(el.getAttribute("class") || "") && moving(el))) continue;
      list.push([el, what + " " + name(el)]);
    }
    // The page's whole text, tested at once, is ~10x cheaper than the search for the nodes holding it.
    const hits = LOADING_WORD.test(document.body.textContent)
      ? document.evaluate(TEXTS, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null) : { snapshotLength: 0 };
    for (let i = 0; i < hits.snapshotLength && i < 50; i++) {
      const node = hits.snapshotItem(i), el = node.parentElement;
      const text = node.nodeValue.trim().replace(/\s+/g, " ");
      if (!el || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|TEXTAREA|OPTION)$/.test(el.tagName)) continue;
      // Short and starting with the word ("Loading...", "Initializing search"), not a sentence about loading.
      if (text.length > 40 || !LOADING_TEXT.test(text)) continue;
      if (!/(\.\.\.|\u2026)/.test(text) && text.split(" ").length > 3) continue;
      list.push([el, "text '" + text + "'"]);
    }
    if (st) st.signalCandidates = { at: st.lastMutation, list: list };
    return list;
  }
  // Visible signs that the page is still loading, in words ("spinner div.spinner", "text 'Loading...'").
  function loadingSignals(st) {
    const out = [];
    for (const [el, what] of candidates(st)) {
      if (el.isConnected && inView(el)) out.push(what);
      if (out.length >= 5) break;
    }
    return out;
  }
  // Finite CSS animations and transitions still running (an infinite one never ends: not waited for).
  function animations() {
    if (!document.getAnimations) return [];
    const out = [];
    for (const a of document.getAnimations()) {
      if (a.playState !== "running" || !a.effect) continue;
      const end = a.effect.getComputedTiming().endTime;
      if (!isFinite(end) || end > MAX_ANIMATION) continue;
      const target = a.effect.target;
      out.push((a.transitionProperty ? "transition " + a.transitionProperty : "animation "
        + (a.animationName || a.id || "")) + (target && target.tagName ? " on " + name(target) : ""));
      if (out.length >= 3) break;
    }
    return out;
  }

  function landed() {
    const e = performance.getEntriesByType("navigation")[0];
    return [performance.timeOrigin, e ? (e.responseStatus || 0) : 0];
  }

  function check() {
    const st = window.__cockpitState;
    const now = clock();
    const ready = document.readyState === "complete";
    let pending = st && st.busy ? st.busy() : (st && st.pending > 0 ? ["fetch " + st.pending] : []);
    if (!ready) pending.unshift("document " + document.readyState);
    // A navigation the last action started but that has not replaced this document yet.
    if (st && st.navPending && now - st.navPending < 1500) pending.push("navigation");
    if (!pending.length) pending = animations();
    let held = false;  // loading signals past signalCapMs: reported, no longer waited for
    if (!pending.length) {
      if (now - scannedAt >= SCAN_EVERY) { signals = loadingSignals(st); scannedAt = now; }
      if (signals.length) {
        if (signalSince === null) signalSince = now;
        if (now - signalSince < signalCapMs) pending = signals; else held = true;
      } else {
        signalSince = null;
      }
    }
    if (!pending.length) {
      // A ticker's changes (a clock's text) are the page's rhythm, not the action's consequence.
      const last = st ? Math.max(st.lastWork || 0, st.lastActivity || 0) : -Infinity;
      // Nothing pending from the start and no action (or load) for quietMs: nothing has just finished,
      // so no second look; the quiet period alone decides.
      if (idleSince === null) {
        idleSince = now;
        if (!held && st && first && now - (st.lastAction || 0) >= quietMs) idleSince -= lookMs;
      }
      // The second look: quiet for lookMs after the work cleared, and no mutation for quietMs --
      // unless the page mutates forever (then mutationCapMs of otherwise quiet will do).
      if (now - idleSince >= lookMs && (now - last >= quietMs || now - idleSince >= mutationCapMs)) {
        return done({ settled: !held, waited_ms: now - t0, instrumented: !!st, pending: held ? signals : [],
          document: landed() });
      }
    } else {
      idleSince = null;
    }
    first = false;
    if (now - t0 >= capMs) {
      return done({ settled: false, waited_ms: now - t0, ready: ready, instrumented: !!st, pending: pending,
        document: landed() });
    }
    later(check, 15);
  }
  check();
})
