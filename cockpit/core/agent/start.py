"""How a run starts, and the collaborators it runs with.

A start value says which run the agent is to run: :class:`Fresh` (a new run
of a task), :class:`Branch` (a new run that goes on from a parent run's step,
see :mod:`cockpit.core.replay.branch`) or :class:`Resume` (an interrupted run
continued as the same run, see :mod:`cockpit.core.replay.resume`).
:meth:`cockpit.core.agent.loop.Agent.run` takes one of them.

A :class:`RunContext` holds what resume, branch and replay hand around: the
browser session, the model client, the store, the approver, the run control,
the event listener and the progress callbacks.
"""
from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass, field
from typing import Callable
from urllib.parse import urlsplit

from selenium.common.exceptions import WebDriverException

from cockpit.core.agent.approval import Approver
from cockpit.core.agent.control import RunControl
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import BrowserError, short_message
from cockpit.core.llm.client import ModelClient
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun

DEMO_SITE = "Demo Shop"  # the site recorded for a run of the demo policy (on the bundled demo shop)


@dataclass(frozen=True)
class Fresh:
    """A new run of `task` from `url`; `task_extra` (the task file's other fields, e.g. a WebArena `eval`
    with reference answers) is kept with the run for judging."""
    task: str
    url: str
    _: KW_ONLY
    task_id: str = ""
    site: str = ""
    batch: str = ""
    task_extra: dict | None = None
    attempt: int = 1  # a batch runs a task again once when its browser was lost (issue #21)
    retry_of: str = ""  # the run that lost its browser
    retry_reason: str = ""


@dataclass(frozen=True, kw_only=True)
class _Continued:
    """A start that goes on from recorded history rather than from the task alone.

    `prelude` replaces opening the start URL (it replays steps in this session and
    raises CockpitError on divergence); `seed` is the conversation so far (its
    screenshots become the omitted-note); `lead` is the text before the first
    observation (None: the task).
    """
    task: str
    url: str
    task_id: str = ""
    site: str = ""
    task_extra: dict | None = None
    prelude: Callable[[], None] | None = None
    seed: list[dict] | None = None
    lead: str | None = None


@dataclass(frozen=True, kw_only=True)
class Branch(_Continued):
    """A new run whose parent is run `parent_run`, going on from its step `parent_step`."""
    parent_run: str
    parent_step: int


@dataclass(frozen=True, kw_only=True)
class Resume(_Continued):
    """The existing run `run_id` continued; its new steps are numbered from `first_step`."""
    run_id: str
    first_step: int = 1


Start = Fresh | Branch | Resume


@dataclass(frozen=True)
class RunContext:
    """A run's collaborators. `client` may be None for a replay (no model is called).

    `on_replay(step, info)` reports each replayed step; `on_agent(agent)`
    receives the Agent of a branch or resume before it runs (take-over by hand).
    """
    session: BrowserSession
    store: Store
    client: ModelClient | None = None
    approver: Approver | None = None
    control: RunControl = field(default_factory=RunControl)
    listener: Callable | None = None
    on_replay: Callable | None = None
    on_agent: Callable | None = None


def run_setup(start: Start, session: BrowserSession) -> dict:
    """What a run records of where it ran beyond the model and agent settings: the remote browser
    (WebDriver URL, Grid node, session id) and, for a batch's second attempt, why it is one."""
    out = {}
    info = getattr(session, "remote", None)
    if info is not None:
        out["browser"] = info.to_dict()
    if isinstance(start, Fresh) and start.attempt > 1:
        out["attempt"] = {"n": start.attempt, "retry_of": start.retry_of, "because": start.retry_reason}
    return out


def new_run_record(start: Start, config: dict, *, model: str, base_url: str, approval_policy: str,
                   demo: bool) -> NewRun:
    """The store's record of a new run (a Fresh task or a Branch) as it opens, under `config`."""
    branched = isinstance(start, Branch)
    return NewRun(start.task, start.url, task_id=start.task_id, site=start.site or (DEMO_SITE if demo else ""),
                  model=model, base_url=base_url, config=config, approval_policy=approval_policy, demo=demo,
                  batch=start.batch if isinstance(start, Fresh) else "",
                  parent_run=start.parent_run if branched else None,
                  parent_step=start.parent_step if branched else None)


#: How a run that found no start page ends (its error, in the store and the window): before any model call.
NOT_LOADED = "the start page did not load"
#: The schemes of a start page; a local HTML file comes as http (served) or file://.
START_SCHEMES = ("http", "https", "file", "data")
#: Where the tab is when no page loaded: an empty tab, the new-tab page, Chrome's error page.
_NO_PAGE = ("about:", "chrome:", "chrome-error:", "chrome-search:", "chrome-untrusted:")


def open_start(session: BrowserSession, url: str) -> None:
    """Open a fresh run's start page, in one tab. BrowserError "the start page did not load: …" when there is
    none: no address, one that is not a page's (``demo:…``, ``about:blank``), an error page, a blank tab."""
    scheme = urlsplit(url.strip()).scheme.lower() if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url.strip()) else ""
    if not url.strip():
        raise BrowserError(f"{NOT_LOADED}: no start URL was given")
    if scheme not in START_SCHEMES:
        raise BrowserError(f"{NOT_LOADED}: '{url}' is not the address of a web page; give an http:// or https:// "
                           "address, or a local HTML file")
    try:
        in_time = session.goto(url)
    except WebDriverException as e:  # chromedriver raises on some network errors (refused, no such host)
        m = re.search(r"ERR_[A-Z_]+", str(e))
        why = m.group(0) if m else short_message(e)
        raise BrowserError(f"{NOT_LOADED}: could not open {url}: {why}") from e
    if err := session.load_error():
        raise BrowserError(f"{NOT_LOADED}: could not open {url}: {err}")
    landed = session.url or ""
    if not landed or landed.lower().startswith(_NO_PAGE):
        if not in_time:  # no answer at all, where a refused connection or unknown host gives an error page
            raise BrowserError(f"{NOT_LOADED}: {url} did not answer within {session.config.page_load_timeout:g} s "
                               "(the page-load timeout): nothing of the page arrived")
        raise BrowserError(f"{NOT_LOADED}: opening {url} left the browser on an empty page ({landed or 'none'})")
    session.ensure_single_tab()
