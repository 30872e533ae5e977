"""One observation of the page: clean screenshot, marks, marked screenshot, text.

This is what the model sees at a step. It holds data only; collecting it needs
a live BrowserSession (:func:`observe`), saving it needs a directory.

The only page module that talks to the browser: besides :func:`observe`, it
describes the element at a point of the live page (:func:`element_at`, for a
human's mark corrections; read-only, one small script, nothing on the page
changes). The other page modules turn data into data.
"""
from __future__ import annotations

import concurrent.futures
import io
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from cockpit.core import resources
from cockpit.core.browser.cdp import DirectCDPDialog, DirectCDPError, DirectCDPNavigated, DirectCDPScriptError
from cockpit.core.browser.session import AFTER_FRAME_GLOBAL, SOM_GLOBAL, BrowserSession
from cockpit.core.errors import BrowserDied
from cockpit.core.page import effects, images, masking, overlay
from cockpit.core.page.marks import Mark, element_text, marks_from_json

log = logging.getLogger(__name__)


THUMB = (256, 192)


@dataclass
class Observation:
    url: str
    title: str
    screenshot: bytes  # clean PNG, viewport-sized
    marks: list[Mark]
    viewport: tuple[int, int] = (0, 0)
    scroll: tuple[int, int] = (0, 0)
    page_size: tuple[int, int] = (0, 0)
    stats: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)  # milliseconds per phase
    marked: bytes | None = None  # PNG with boxes drawn; see render()
    thumb: Image.Image | None = field(default=None, repr=False)  # small grey copy, for measuring change
    model_image: bytes | None = None  # the marked screenshot as the model is sent it; see for_model()
    drawn: Image.Image | None = field(default=None, repr=False)  # the marked screenshot, decoded
    masked: tuple = ()  # [x, y, w, h] boxes painted over in `screenshot`: secrets typed there (see masking)
    document: tuple[float, int] | None = None  # (time origin, HTTP status; 0: unknown) of the page marked
    _model_key: tuple = field(default=(), repr=False)  # (format, max width) model_image was made for

    def render(self, **style) -> bytes:
        """The marked screenshot as PNG: drawn once and kept; with `style`, drawn anew."""
        if style:
            return images.encode(overlay.draw_marks(_decode(self.screenshot), self.marks, **style), "png")
        if self.marked is None:
            self.marked = images.encode(self._drawn(), "png")
        return self.marked

    def for_model(self, fmt: str, max_width: int | None = None) -> bytes:
        """The marked screenshot in `fmt` ('jpeg' or 'png'), no wider than `max_width`, encoded once and kept.

        The same bytes as :func:`images.for_model` makes from the stored PNG:
        both scale and encode the same pixels the same way (once: a model
        server that wants narrower images is not sent a JPEG of a JPEG).
        """
        drawn_width = self.drawn.width if self.drawn is not None else images.width(self.screenshot)
        if fmt == "png" and not (max_width and drawn_width > max_width):
            return self.render()
        if self.model_image is None or self._model_key != (fmt, max_width):
            self.model_image = images.prepare(self._drawn(), fmt, max_width)
            self._model_key = (fmt, max_width)
        return self.model_image

    def _drawn(self) -> Image.Image:
        if self.drawn is None:
            self._draw(_decode(self.screenshot))
        return self.drawn

    def _draw(self, image: Image.Image, thumb: Image.Image | None = None) -> None:
        self.thumb = thumb if thumb is not None else effects.small(image, THUMB)
        scale = image.width / self.viewport[0] if self.viewport[0] else 1.0
        self.drawn = overlay.draw_marks(image, self.marks, scale=1.0 if abs(scale - 1) < 0.01 else scale)

    @property
    def element_text(self) -> str:
        return element_text(self.marks)

    def save(self, out: Path) -> dict[str, Path]:
        """Write screenshot.png, marked.png and marks.json into `out`."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = {"screenshot": out / "screenshot.png", "marked": out / "marked.png",
                 "marks": out / "marks.json"}
        files["screenshot"].write_bytes(self.screenshot)
        files["marked"].write_bytes(self.render())
        files["marks"].write_text(json.dumps([m.to_dict() for m in self.marks], indent=1))
        return files


#: Milliseconds the marking script waits for the page's next frame (see collect_marks) before running anyway.
FRAME_WAIT_MS = 50
#: How many times :func:`observe` marks again when the page changed while it was being observed.
MAX_RETRIES = 2
#: Notes in the page when marking starts (instrument.js's clock), for :func:`_changed`.
STAMP = "var s = window.__cockpitState; if (s) s.markedAt = s.now ? s.now() : performance.now();"
#: Whether the DOM changed since marking started -- or up to one frame before it (the screenshot may be
#: of that frame): instrument.js notes every mutation's time.
CHANGED = ("(function (s) { return !!(s && s.markedAt && s.lastMutation > s.markedAt - 17) })"
           "(window.__cockpitState)")


def collect_marks(session: BrowserSession, max_text: int = 200, *, after_frame: bool = False) -> dict:
    """Run the marking script; returns {'marks': [Mark], 'page': {...}, 'stats': {...}}.

    With `after_frame` (and the direct connection), the script runs just after
    the page's next frame is made rather than at once. :func:`observe` asks for
    it while a screenshot is being captured: the capture needs the page's main
    thread to make that frame, and a script holding the thread there made the
    capture miss its frame and wait one more (about 16 ms, every other time).
    """
    # A JSON string crosses WebDriver ~10x faster than the same object graph. The function is usually
    # preinstalled in the page (browser.SOM_GLOBAL); pages without it (no CDP, or loaded before) get it sent.
    # With local Chrome it is called on a DevTools connection of our own, which saves ChromeDriver's
    # ~10 ms; with a dialog open, or any trouble there, through WebDriver as before.
    args = {"maxText": max_text}
    text = missing = None
    navigated = False  # the page went to another document while the script waited: the marks are the new one's
    direct = session.direct_cdp("script")
    if direct is not None:
        # With after_frame, a promise (js/after_frame.js); without that function (pages loaded before), at once.
        call = (f"(function(f, later) {{ if (!f) return null; {STAMP} var run = function() {{ "
                f"return JSON.stringify(f({json.dumps(args)})) }}; "
                f"return later && {str(after_frame).lower()} ? later(run, {FRAME_WAIT_MS}) : run() }})"
                f"(window.{SOM_GLOBAL}, window.{AFTER_FRAME_GLOBAL})")
        try:
            text = direct.evaluate(call, timeout=session.config.settle_cap_ms / 1000 + 3, await_promise=after_frame)
            missing = text is None
        except (DirectCDPDialog, DirectCDPScriptError, DirectCDPNavigated) as e:  # WebDriver: as it always has
            log.debug("marking on the direct connection: %s; using WebDriver", e)
            navigated = isinstance(e, DirectCDPNavigated)
        except DirectCDPError as e:
            log.debug("marking on the direct connection failed (%s); using WebDriver", e)
            session.drop_direct("script")
    if text is None and not missing:
        text = session.js(f"var f = window.{SOM_GLOBAL}; return f ? JSON.stringify(f(arguments[0])) : null", args)
    if text is None:
        text = session.js("return JSON.stringify((" + resources.script("som.js") + ")(arguments[0]))", args)
    res = json.loads(text)
    res["marks"] = marks_from_json(res["marks"])
    res["navigated"] = navigated
    return res


# Shared by every session of the process (a batch observes several browsers from as many threads): one
# browser's slow capture must not hold up another's. Threads are only started when needed.
_shooter = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="screenshot")


def _shoot(direct, decode: bool) -> tuple[bytes, tuple | None]:
    png = direct.screenshot_png()
    return png, (_prepare(png) if decode else None)


def _prepare(png: bytes) -> tuple[Image.Image, Image.Image]:
    """The decoded screenshot and its thumbnail, made off the caller's thread."""
    image = _decode(png)
    return image, effects.small(image, THUMB)


def _decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    return img.convert("RGB")


def _masked(png: bytes, prepared: tuple | None, boxes: list, render: bool) -> tuple[bytes, tuple | None]:
    """The clean screenshot with `boxes` painted over (masking.mask), as PNG, and decoded with its thumbnail."""
    image = prepared[0] if prepared is not None else _decode(png)
    masking.mask(image, boxes)
    return images.encode(image, "png"), ((image, effects.small(image, THUMB)) if render else None)


def observe(session: BrowserSession, *, render: bool = True, image_format: str | None = None,
            max_width: int | None = None) -> Observation:
    """Take the clean screenshot, mark the page and (by default) draw the overlay.

    With `render`, the marked screenshot is drawn; with `image_format` too, it is
    encoded as the model is sent it (:meth:`Observation.for_model`). The PNG kept
    for review (:meth:`Observation.render`) is encoded when first asked for,
    which the agent does while the model is thinking.

    With local Chrome the screenshot is captured (and decoded) on a second
    DevTools connection in a thread while the marking script runs through
    WebDriver, which would otherwise run the two one after the other. Without
    that connection the screenshot comes first and only its decoding overlaps
    the marking script.

    Either way, what is typed into card-number and one-time-code fields (secret,
    filled marks that are not password fields, and disabled such fields, which
    are not marked) is painted over on the clean
    screenshot before the overlay is drawn (:mod:`masking`): the screenshot
    kept, the marked one, the model's image and the thumbnail all show the mask.
    Pages without such fields pay nothing for it.

    The boxes and the pixels are of one moment: when the DOM changed after the
    marking began (instrument.js's mutation clock), the page is marked and shot
    again, at most MAX_RETRIES times. ``stats['retries']`` counts them and
    ``stats['changing']`` says the page still changed at the last try (a ticking
    clock); ``timings['remark_ms']`` is the time the checks and the discarded tries took.
    """
    res, png, prepared, timings = _take(session, render)
    t3 = time.perf_counter()
    page = res["page"]
    secret = masking.boxes(res["marks"], page.get("secret_boxes") or ())
    if secret:  # typed card numbers and codes: painted over before anything keeps or draws on the pixels
        png, prepared = _masked(png, prepared, secret, render)
    t4 = time.perf_counter()
    obs = Observation(url=page["url"], title=page["title"], screenshot=png, marks=res["marks"],
                      viewport=tuple(page["viewport"]), scroll=tuple(page["scroll"]),
                      page_size=tuple(page["page_size"]), stats=res["stats"], masked=tuple(secret),
                      timings=timings, document=document_of(page.get("document")))
    if secret:
        obs.timings["mask_ms"] = (t4 - t3) * 1000
    if render:
        _render(obs, prepared, image_format, max_width)
    return obs


def document_of(got) -> tuple[float, int] | None:
    """A script's ``document`` ([time origin, HTTP status], as js/som.js's page and js/settle.js's answer
    give it) as a tuple; None when it is not there (or malformed)."""
    try:
        return float(got[0]), int(got[1])
    except (TypeError, ValueError, IndexError):
        return None


def _take(session: BrowserSession, render: bool) -> tuple[dict, bytes, tuple | None, dict]:
    """Screenshot and marks of one moment: (collect_marks' result, png, prepared, timings).

    Taken again (at most MAX_RETRIES times) while the DOM changed after the marking began; the
    result's stats say how often (`retries`) and whether the page still changed at the last try
    (`changing`)."""
    retries, remark_ms = 0, 0.0
    while True:
        t0 = time.perf_counter()
        shot, png, decoded = _start_screenshot(session, render)
        t1 = time.perf_counter()
        res = collect_marks(session, after_frame=shot is not None)
        t2 = time.perf_counter()
        png, prepared = _finish_screenshot(session, shot, png, decoded, res, render)
        t3 = time.perf_counter()
        changed = not res["navigated"] and _changed(session)
        if not changed or retries >= MAX_RETRIES:
            break
        retries += 1
        remark_ms += (time.perf_counter() - t0) * 1000
    res["stats"] = dict(res["stats"], retries=retries, changing=changed)
    return res, png, prepared, {"screenshot_ms": (t1 - t0 + t3 - t2) * 1000, "marks_ms": (t2 - t1) * 1000,
                                "remark_ms": remark_ms + (time.perf_counter() - t3) * 1000}


def _changed(session: BrowserSession) -> bool:
    """Whether the page's DOM changed since the marking started (instrument.js's mutation clock)."""
    try:
        direct = session.direct_cdp("script")
        if direct is not None:
            return bool(direct.evaluate(CHANGED, timeout=5))
        return bool(session.js("return " + CHANGED))
    except BrowserDied:
        raise
    except Exception as e:  # a dialog, a navigation (DirectCDPError, WebDriver's): nothing to compare
        log.debug("could not tell whether the page changed while observed: %s", e)
        return False


def _start_screenshot(session: BrowserSession, render: bool) -> tuple:
    """Begin the screenshot before the marks: (a future of (png, prepared) on the direct connection,
    None, None), or without it (None, the PNG taken through WebDriver, a future of its decoding or None)."""
    direct = session.direct_cdp()
    if direct is not None:
        return _shooter.submit(_shoot, direct, render), None, None
    session.js(STAMP)  # the marks come after this screenshot: a change from here on is a change
    png = session.screenshot_png()
    return None, png, (_shooter.submit(_prepare, png) if render else None)


def _finish_screenshot(session: BrowserSession, shot, png: bytes | None, decoded, res: dict,
                       render: bool) -> tuple[bytes, tuple | None]:
    """The screenshot (png, prepared) once the marks are in; taken again through WebDriver when the
    direct capture failed or is of the page before a navigation (`res`: collect_marks' result)."""
    if shot is None:
        return png, (decoded.result() if render else None)
    try:
        png, prepared = shot.result()
        if res["navigated"]:  # of the page before: the marks are of the one after, taken again below
            raise DirectCDPNavigated("the page navigated while it was being marked")
    except Exception as e:  # the second connection broke (or the page navigated): WebDriver takes it
        log.debug("direct screenshot failed or stale (%s); using WebDriver", e)
        if not isinstance(e, DirectCDPNavigated):
            session.drop_direct("screenshot")  # (the script and network connections are not this one)
        png = session.screenshot_png()
        prepared = _prepare(png) if render else None
    return png, prepared


def _render(obs: Observation, prepared: tuple, image_format: str | None, max_width: int | None) -> None:
    """Draw the marked screenshot and, with `image_format`, encode the model's image; timed as overlay_ms."""
    t = time.perf_counter()
    obs._draw(*prepared)
    if image_format:
        obs.for_model(image_format, max_width)
    obs.timings["overlay_ms"] = (time.perf_counter() - t) * 1000


# --------------------------------------------------------------------------- the element at a point

ELEMENT_AT_SCRIPT = """
const [x, y] = arguments;
let el = document.elementFromPoint(x, y);
if (!el) return null;
function path(e) {
  const parts = [];
  for (; e && e.nodeType === 1 && parts.length < 12; e = e.parentElement) {
    let i = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) i++;
    parts.unshift(e.tagName.toLowerCase() + '[' + i + ']');
  }
  return '/' + parts.join('/');
}
const r = el.getBoundingClientRect();
const text = (el.innerText || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 200);
return {tag: el.tagName.toLowerCase(), id: el.id || '', classes: String(el.className || '').slice(0, 200),
        role: el.getAttribute('role') || '', aria_label: el.getAttribute('aria-label') || '',
        href: el.getAttribute('href') || '', text: text, xpath: path(el),
        bbox: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
        cursor: getComputedStyle(el).cursor};
"""


def element_at(session: BrowserSession, x: float, y: float) -> dict | None:
    """The element at viewport point (x, y) of the live page, described (tag, id, classes, role, aria_label,
    href, text, xpath, bbox, cursor); None when there is none. Read-only."""
    return session.js(ELEMENT_AT_SCRIPT, float(x), float(y))
