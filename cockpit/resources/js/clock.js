// clock(cfg): time and randomness as a recorded run had them (cockpit.core.browser.clock).
//
// Installed before any page script in every document of a recorded run and of its replay, so
// that a replayed page draws the same lists, ids and dates as the recording did:
// - Math.random: a generator seeded from cfg.seed and the document's address, in both modes
//   (the same address draws the same numbers, in the run and in its replay);
// - crypto.getRandomValues and crypto.randomUUID: real randomness while recording, each value
//   reported (cfg.report, a binding of the recording's DevTools connection); in a replay the
//   recorded values of that address in order (cfg.random), then the seeded generator;
// - Date and performance: real time while recording; in a replay Date runs from where the
//   recording's clock was when the replay's step began (cfg.offsetMs is added to the real
//   clock), and performance.timeOrigin moves with it, so timeOrigin + performance.now() is
//   Date.now() as in the recording (performance.now() itself counts from the document's start).
(function (cfg) {
  "use strict";
  if (window.__cockpitClock) return;
  Object.defineProperty(window, "__cockpitClock", { value: true });
  const href = String(location.href).split("#")[0];
  // xmur3 string hash and mulberry32 generator: small, fast, well spread.
  function hash(str) {
    let h = 1779033703 ^ str.length;
    for (let i = 0; i < str.length; i++) {
      h = Math.imul(h ^ str.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    h ^= h >>> 16;
    return h >>> 0;
  }
  let state = hash(String(cfg.seed) + "|" + href);
  function next32() {
    state = (state + 0x6D2B79F5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  const random = function random() { return next32() / 4294967296; };
  Object.defineProperty(Math, "random", { value: random, writable: true, configurable: true });

  const c = window.crypto;
  if (c && c.getRandomValues) {
    const real = c.getRandomValues.bind(c);
    const realUUID = c.randomUUID ? c.randomUUID.bind(c) : null;
    const hex = function (bytes) {
      let s = "";
      for (let i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
      return s;
    };
    const kept = (cfg.random && cfg.random[href]) ? cfg.random[href].slice() : [];
    const bytesOf = function (view) {
      return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    };
    const fill = function (view) {
      const bytes = bytesOf(view);
      const got = kept.length ? kept.shift() : "";
      for (let i = 0; i < bytes.length; i++) {
        bytes[i] = i * 2 + 2 <= got.length ? parseInt(got.substr(i * 2, 2), 16) : (next32() & 255);
      }
      return view;
    };
    // The binding may be installed just after this script runs: looked up when a value is drawn.
    const sendReport = function (text) {
      const fn = cfg.report ? window[cfg.report] : null;
      if (typeof fn === "function") {
        try { fn(text); } catch { /* the recording ended */ }
      }
    };
    const getRandomValues = function getRandomValues(view) {
      if (cfg.mode === "replay") return fill(view);
      const out = real(view);
      if (view && view.byteLength <= 256) sendReport(JSON.stringify({ url: href, hex: hex(bytesOf(view)) }));
      return out;
    };
    Object.defineProperty(c, "getRandomValues", { value: getRandomValues, writable: true, configurable: true });
    if (realUUID) {
      const randomUUID = function randomUUID() {
        if (cfg.mode !== "replay") {
          const id = realUUID();
          sendReport(JSON.stringify({ url: href, hex: id.replace(/-/g, "") }));
          return id;
        }
        const b = fill(new Uint8Array(16));
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        const h = hex(b);
        return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
      };
      Object.defineProperty(c, "randomUUID", { value: randomUUID, writable: true, configurable: true });
    }
  }

  if (cfg.mode === "replay" && typeof cfg.offsetMs === "number") {
    const offset = cfg.offsetMs;
    const RealDate = Date;
    const realNow = RealDate.now.bind(RealDate);
    const FakeDate = function Date(...args) {
      if (!new.target) return new RealDate(realNow() + offset).toString();
      return args.length ? new RealDate(...args) : new RealDate(realNow() + offset);
    };
    Object.setPrototypeOf(FakeDate, RealDate);
    FakeDate.prototype = RealDate.prototype;
    FakeDate.now = function now() { return realNow() + offset; };
    FakeDate.parse = RealDate.parse;
    FakeDate.UTC = RealDate.UTC;
    Object.defineProperty(RealDate.prototype, "constructor", { value: FakeDate, writable: true, configurable: true });
    window.Date = FakeDate;
    const perf = window.performance;
    if (perf) {
      const origin = perf.timeOrigin + offset;
      Object.defineProperty(perf, "timeOrigin", { get: function () { return origin; }, configurable: true });
    }
  }
})
