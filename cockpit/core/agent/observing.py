"""The agent loop's look at the page at the start of a step: observed, secrets hidden, stored, announced.

The observation itself (marks, screenshot, settling) is :mod:`cockpit.core.page.observation`;
here it becomes the step's: secrets typed so far are taken out of its address
and title before anything else sees them, the previous action's effect is
measured against it, its files are written, and the window is told.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from cockpit.core.agent import events as ev
from cockpit.core.agent.step import Step
from cockpit.core.browser.session import BrowserSession
from cockpit.core.page.observation import Observation, observe
from cockpit.core.safety import redaction

if TYPE_CHECKING:
    from cockpit.core.agent.loop import Agent


def look(agent: Agent, st: Step) -> None:
    """Observe the page as step `st` sees it (``st.obs``), and measure what the last action changed."""
    cfg = agent.client.config
    obs = hidden(observe(agent.session, image_format=cfg.image_format, max_width=cfg.image_max_width),
                 agent.executor.secrets)
    st.obs = obs
    agent.last_obs = obs
    agent.measure(obs)
    for h in agent.hooks:  # e.g. the web archive's snapshot of this page
        h.observed(st)
    seen = agent.images.record(agent.run_id, st, obs)
    agent.scope.emit(ev.ObservationReady(agent.run_id, st.n, obs.url, obs.title, str(agent.store.file(seen)),
                                         tuple(obs.marks), dict(obs.timings), obs.screenshot,
                                         masked=obs.masked))


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
