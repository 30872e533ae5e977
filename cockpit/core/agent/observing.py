"""The agent's look at the page: at the start of a step (observed, secrets hidden, stored, announced), and
when a person looks during a take-over; the effect of the last action measured against it.

The observation itself (marks, screenshot, settling) is :mod:`cockpit.core.page.observation`;
here it becomes the step's: secrets typed so far are taken out of its address
and title before anything else sees them, the previous action's effect is
measured against it, its files are written, and the window is told.
"""
from __future__ import annotations

from cockpit.core.agent import events as ev
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.step import Step
from cockpit.core.agent.stepimages import StepImages
from cockpit.core.browser.session import BrowserSession
from cockpit.core.page import effects
from cockpit.core.page.observation import Observation, observe
from cockpit.core.safety import redaction


class Observer:
    """One agent's eyes on its browser session: what it saw last (:attr:`last_obs`, what a person acting
    during a take-over sees), and the last action that ran, whose effect the next look measures."""

    def __init__(self, session: BrowserSession, scope: RunScope, images: StepImages, hooks: list[StepHook],
                 flags: dict[int, list[str]]):
        self.session = session
        self.scope = scope
        self.images = images
        self.hooks = hooks  # the current run's
        self.flags = flags  # the run's step flags (kept with each step's row)
        self.last_obs: Observation | None = None
        self._acted: tuple[int, Observation] | None = None  # the last step whose action ran, and what it saw

    def look(self, st: Step) -> Observation:
        """Observe the page as step `st` sees it (``st.obs``), and measure what the last action changed."""
        run, cfg = self.scope, self.scope.client.config
        obs = hidden(observe(self.session, image_format=cfg.image_format, max_width=cfg.image_max_width),
                     run.executor.secrets)
        st.obs = self.last_obs = obs
        self.measure(obs)
        for h in self.hooks:  # e.g. the web archive's snapshot of this page
            h.observed(st)
        seen = self.images.record(run.run_id, st, obs)
        run.emit(ev.ObservationReady(run.run_id, st.n, obs.url, obs.title, str(run.store.file(seen)),
                                     tuple(obs.marks), dict(obs.timings), obs.screenshot, masked=obs.masked))
        return obs

    def refresh(self, n: int) -> Observation:
        """A look at the page as it is now, before step `n`, not stored as a step (a take-over's)."""
        run = self.scope
        obs = self.last_obs = hidden(observe(self.session), run.executor.secrets)
        self.measure(obs)
        run.emit(ev.ObservationReady(run.run_id, n, obs.url, obs.title, "", tuple(obs.marks), dict(obs.timings),
                                     obs.screenshot, stored=False, masked=obs.masked))
        return obs

    def acted(self, n: int, obs: Observation) -> None:
        """Step `n`'s action ran on the page `obs`: the next look measures its effect."""
        self._acted = (n, obs)

    def measure(self, obs: Observation) -> None:
        """The effect of the last action that ran, now that the page after it is observed."""
        if self._acted is None:
            return
        run = self.scope
        n, before = self._acted
        self._acted = None
        try:
            eff = effects.effect(before.url, before.marks, before.thumb or before.screenshot,
                                 obs.url, obs.marks, obs.thumb or obs.screenshot)
        except (OSError, ValueError):
            return
        if run.loops.effect(eff) and eff.noop:
            run.flag(n, "noop")
        effect = eff.to_dict()  # read, never changed, by the store, the hooks and the event
        run.store.update_step(run.run_id, n, effect=effect, flags=self.flags.get(n, []))
        for h in self.hooks:  # e.g. what really changed, beside the prediction
            h.measured(n, before, obs, effect)
        run.emit(ev.EffectMeasured(run.run_id, n, effect, tuple(self.flags.get(n, []))))


def hidden(obs: Observation, secrets: set[str]) -> Observation:
    """`obs` with `secrets` (typed so far) taken out of its address and title (a GET form puts a typed
    password into the next page's address), once, before the prompt, events, previews or the store
    see them."""
    if secrets:
        obs.url, obs.title = (redaction.scrub(x, secrets) for x in (obs.url, obs.title))
    return obs


def page_note(session: BrowserSession, obs: Observation) -> str:
    """What the model is told of a page that failed to load ("" for any other)."""
    if not obs.url.startswith("chrome-error://"):
        return ""
    return f"The page failed to load ({session.load_error()}); go back or try another address."
