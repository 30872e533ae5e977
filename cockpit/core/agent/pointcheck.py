"""The pointing check: ask the configured pixel model to click labelled targets on a local calibration page,
and say where its clicks landed and which coordinate space explains them.

The calibration page (``resources/pointing/index.html``) is served on 127.0.0.1 and opened in the given
browser session, at its viewport and device scale. For each target (corners included) the model gets what a
run's first step gets: its dialect's system prompt and tools, the task ("Click the button labelled 'Target
F'"), the observation line and the clean screenshot, converted as a run converts it. Its point is read as
Cockpit is set to read it and every other way :mod:`cockpit.core.actions.pointfit` knows; the report says
where the clicks landed against the targets and, when another reading fits better, which setting fixes it
(named as the command line names it: ``--coords norm1000``; the window says its fields instead).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from cockpit.core import resources
from cockpit.core.actions import coords, dialects, pointfit
from cockpit.core.agent.protocol import PixelProtocol
from cockpit.core.agent.start import open_start
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ModelClient, ModelError
from cockpit.core.localserver import LocalSite
from cockpit.core.page.observation import observe

LABELS = tuple("ABCDEFGHI")  # the targets on the page, in the order they are asked about
TASK = 'Click the button labelled "Target {label}" (a yellow button with that text). Click it once; do not answer.'

#: The command line's names for the settings a fix names (the window says its own fields).
FLAGS = {"coords": "--coords", "qwen_min_pixels": "--qwen-min-pixels", "qwen_max_pixels": "--qwen-max-pixels",
         "device_scale_factor": "--device-scale-factor", "image_max_width": "--image-max-width"}


@dataclass
class Click:
    label: str
    centre: tuple[float, float]  # the target's centre, viewport CSS pixels
    box: tuple[float, float, float, float]  # its left, top, width, height
    wrote: str = ""  # the model's action as it wrote it (its dialect), or why there is none
    point: tuple | None = None  # its point, in the model's own coordinates
    landed: tuple[float, float] | None = None  # where Cockpit, as set, puts that point (CSS px)

    @property
    def hit(self) -> bool:
        if self.landed is None:
            return False
        x, y = self.landed
        left, top, w, h = self.box
        return left - 2 <= x <= left + w + 2 and top - 2 <= y <= top + h + 2

    @property
    def off(self) -> float | None:
        if self.landed is None:
            return None
        return ((self.landed[0] - self.centre[0]) ** 2 + (self.landed[1] - self.centre[1]) ** 2) ** 0.5


@dataclass
class PointingReport:
    model: str
    dialect: str
    space: str
    frame: coords.Frame
    scale: float
    settings: dict = field(default_factory=dict)  # the settings a fix may name, as they are now
    clicks: list[Click] = field(default_factory=list)
    explanation: pointfit.Explanation | None = None

    @property
    def hits(self) -> int:
        return sum(c.hit for c in self.clicks)

    @property
    def fix(self) -> dict:
        """The settings that make Cockpit read the model's points right ({} when they are right already)."""
        e = self.explanation
        if e is None or e.fits:
            return {}
        return {k: v for k, v in e.best.fix.items() if self.settings.get(k, object()) != v}

    def verdict(self, words: Callable[[dict], str] | None = None) -> str:
        """What the check found, in a few sentences, naming the setting that fixes it (`words` says a fix: as
        command-line flags by default, :func:`fix_words`)."""
        e, n = self.explanation, len(self.clicks)
        pointed = sum(c.point is not None for c in self.clicks)
        if e is None or not pointed:
            return f"The model gave no point for any of the {n} targets: see what it wrote above."
        worst = max((c.off for c in self.clicks if c.off is not None), default=0.0)
        head = f"{self.hits} of {n} clicks landed on their targets (the farthest {worst:.0f} px from its centre)"
        now = f"as Cockpit reads the points now ({e.current.words})"
        if e.fits and self.hits == n:
            return f"{head}, {now}: the coordinate setting is right."
        if e.fits:
            return (f"{head}, {now}. No other coordinate space puts them nearer: the misses are the model's own "
                    "aim, not a setting.")
        fix = (words or fix_words)(self.fix)
        return (f"{head}, {now}. The points fit {e.best.words} (median {e.best.median:.0f} px from the targets, "
                f"against {e.current.median:.0f} px now): your model answers in that space, not as set. "
                f"Set {fix}.")

    def lines(self) -> list[str]:
        """The report as text lines: the setting, each target, the readings tried, the verdict."""
        f = self.frame
        out = [f"model {self.model}, dialect {self.dialect}, coordinates {self.space}",
               f"screenshot {f.image[0]}x{f.image[1]} of a {f.viewport[0]}x{f.viewport[1]} viewport (device scale "
               f"{self.scale:g}); points read as {coords.describe(self.space, f)}",
               "",
               "target  centre (CSS px)  model wrote                       lands at (CSS px)  off"]
        for c in self.clicks:
            where = f"{c.landed[0]:.0f}, {c.landed[1]:.0f}" if c.landed else "-"
            off = f"{c.off:.0f} px{'' if c.hit else ' (miss)'}" if c.off is not None else "-"
            out.append(f"{c.label:6}  {c.centre[0]:5.0f}, {c.centre[1]:<5.0f}    {c.wrote[:32]:32}  {where:17}  {off}")
        if self.explanation is not None:
            out += ["", "the readings nearest the targets (median px off):"]
            out += [f"  {r.median:5.0f}  {r.words}" for r in sorted(self.explanation.tried, key=lambda r: r.median)[:3]]
        out.append(self.verdict())
        return out


def fix_words(fix: dict) -> str:
    """'--coords norm1000 and --qwen-max-pixels 1003520': the settings of a fix as command-line flags."""
    parts = []
    for k, v in fix.items():
        flag = FLAGS.get(k, k)
        if v is None:
            parts.append(f"no {flag} (its default)")
        else:
            parts.append(f"{flag} {v:g}" if isinstance(v, float) else f"{flag} {v}")
    return " and ".join(parts)


def check_pointing(session: BrowserSession, client: ModelClient, *, on_progress: Callable[[int, int, str], None] |
                   None = None, cancel: threading.Event | None = None) -> PointingReport:
    """Run the check in `session` (its viewport and device scale) with `client`'s model, dialect and space."""
    config = client.config
    if not config.pixel:
        raise CockpitError("the pointing check is for pixel models: the model answers with Set-of-Mark numbers "
                           "(choose a pixel preset such as ui-tars-1.5 or qwen2.5-vl)")
    protocol = PixelProtocol(client)
    scale = float(getattr(session.config, "device_scale_factor", 1.0))
    with resources.path("pointing") as root, LocalSite(root) as site:  # served while the model is asked
        open_start(session, site.url("index.html"))
        obs = observe(session, image_format=config.image_format, max_width=config.image_max_width)
        image = protocol.image(obs)  # sets protocol.frame: the screenshot as sent
        frame = protocol.frame
        boxes = session.js("return Array.from(document.querySelectorAll('button')).map(b => { "
                           "const r = b.getBoundingClientRect(); return [b.id, r.left, r.top, r.width, r.height]; })")
        report = PointingReport(config.model, config.dialect, config.coords, frame, scale, settings={
            "coords": config.coords, "qwen_min_pixels": config.qwen_min_pixels,
            "qwen_max_pixels": config.qwen_max_pixels, "device_scale_factor": scale,
            "image_max_width": config.image_max_width})
        where = {b[0]: tuple(b[1:]) for b in boxes}
        for i, label in enumerate(LABELS):
            if cancel is not None and cancel.is_set():
                raise CockpitError("the pointing check was cancelled")
            if on_progress is not None:
                on_progress(i, len(LABELS), label)
            left, top, w, h = where[f"t-{label}"]
            click = Click(label, (left + w / 2, top + h / 2), (left, top, w, h))
            _ask(protocol, obs, image, label, click, cancel)
            report.clicks.append(click)
    points = [c.point for c in report.clicks]
    report.explanation = pointfit.explain(points, [c.centre for c in report.clicks], protocol.space, frame, scale)
    return report


def _ask(protocol: PixelProtocol, obs, image: bytes, label: str, click: Click, cancel) -> None:
    """One target: the request a run's first step would send, the reply read in the dialect, its point."""
    conv = protocol.conversation(1, protocol.frame)
    conv.add_observation(1, protocol.observation_text(obs, "", ""),
                         lead=prompt.task_text(TASK.format(label=label), obs.url))
    try:
        result = protocol.call(conv.request(), lambda _n: image, cancel=cancel)
    except ModelError as e:
        raise CockpitError(f"the model call for target {label} failed: {e}") from e
    reply = dialects.Reply(text=result.text or "", tool_calls=list(result.tool_calls or []),
                           output=list(result.output or []))
    dialect = protocol.dialect if protocol.dialect != "auto" else (dialects.detect(reply) or "plain")
    parsed = dialects.parse(dialect, reply)
    if parsed.action is None or parsed.action.point is None:
        click.wrote = parsed.action_text or (parsed.error or "no action")[:80]
        return
    click.wrote = str(parsed.action)  # Cockpit's form, with the model's own numbers
    click.point = tuple(parsed.action.point)
    click.landed = pointfit.landed(click.point, protocol.space, protocol.frame)


__all__ = ["Click", "PointingReport", "check_pointing", "fix_words", "FLAGS", "LABELS"]
