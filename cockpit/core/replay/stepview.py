"""A browser on a recorded step's page, as it was: Review's "Open this step's page".

:func:`open_step_page` starts a browser (with a window when there is a display), serves it from the run's web
recording (:class:`cockpit.core.replay.recorded.ServedRun`: nothing reaches the site, time and randomness as
recorded) and replays the steps before `step` there, without checks or questions (nothing is sent). The tab
stays served from the recording until :meth:`StepPage.close`, so the page's own requests, DevTools' Network
panel and a reload answer from the recording too.
"""
from __future__ import annotations

from dataclasses import dataclass

from cockpit.core.agent.start import RunContext
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.replay.recorded import OFFLINE_ARGS, ServedRun
from cockpit.core.replay.replay import ReplayOptions, StepReplay, replay
from cockpit.core.store import Store


@dataclass
class StepPage:
    run_id: str
    step: int
    session: BrowserSession
    served: ServedRun
    replayed: list[StepReplay]

    @property
    def missing(self) -> list[str]:
        return list(self.served.missing)

    def close(self) -> None:
        self.served.close()
        self.session.close()


def open_step_page(store: Store, run_id: str, step: int, config: BrowserConfig | None = None) -> StepPage:
    """Step `step`'s page of run `run_id` in a new browser, served from the recording (CockpitError: the run
    has no recording, or no browser could be started)."""
    config = config or BrowserConfig()
    if not config.webdriver_url:
        config.extra_args = list(config.extra_args) + list(OFFLINE_ARGS)  # nothing leaves this machine
    session = BrowserSession(config).start()
    try:
        served = ServedRun.open(session, store, run_id)
        try:
            done = replay(RunContext(session, store), run_id, step,
                          ReplayOptions(check=False, policy="never", recorded=True), served)
        except BaseException:
            served.close()
            raise
    except BaseException:
        session.close()
        raise
    return StepPage(run_id, step, session, served, done)
