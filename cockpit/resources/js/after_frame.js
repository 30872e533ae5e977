// afterFrame(run, waitMs): a promise of run()'s value, run just after the page
// makes its next frame, in a task of its own; or after waitMs if no frame comes
// first; at once when the page is hidden (no frames, throttled timers).
//
// Preinstalled beside the marking function (cockpit.core.browser.session), so the
// built-ins it uses are the page's own from before any page script ran.
// cockpit.core.page.observation.collect_marks uses it while a screenshot is being
// captured: the capture needs the page's main thread to make a frame, and a
// script holding that thread made the capture miss its frame and wait for the
// next one (about 16 ms, every other observation).
(function () {
  "use strict";
  const frame = window.requestAnimationFrame.bind(window);
  const later = window.setTimeout.bind(window);
  return function afterFrame(run, waitMs) {
    return new Promise(function (done, fail) {
      let ran = false;
      function go() {
        if (ran) return;
        ran = true;
        try { done(run()); } catch (e) { fail(e); }
      }
      if (document.visibilityState !== "visible") { go(); return; }
      frame(function () { later(go, 0); });
      later(go, waitMs);
    });
  };
})()
