// Resolves when the page has settled: document loaded, no script request in
// flight, and no DOM mutation for `quietMs` -- or when `capMs` runs out.
// Called with execute_async_script(SOURCE, quietMs, capMs, mutationCapMs).
(function (quietMs, capMs, mutationCapMs, done) {
  const st0 = window.__cockpitState;
  const clock = st0 && st0.now ? st0.now : () => performance.now();
  const later = st0 && st0.setTimeout ? st0.setTimeout : setTimeout;
  const t0 = clock();
  let idleSince = null;
  function check() {
    const st = window.__cockpitState;
    const now = clock();
    const ready = document.readyState === "complete";
    const pending = st ? st.pending : 0;
    const sinceMutation = st ? now - st.lastMutation : Infinity;
    // A navigation the last action started but that has not replaced this document yet.
    const navSoon = st && st.navPending && now - st.navPending < 1500;
    if (ready && pending <= 0 && !navSoon) {
      if (idleSince === null) idleSince = now;
      // A page that animates forever must not hold every step for capMs.
      if (sinceMutation >= quietMs || now - idleSince >= mutationCapMs) {
        return done({ settled: true, waited_ms: now - t0, instrumented: !!st });
      }
    } else {
      idleSince = null;
    }
    if (now - t0 >= capMs) {
      return done({ settled: false, waited_ms: now - t0, ready: ready, pending: pending, instrumented: !!st });
    }
    later(check, 15);
  }
  check();
})
