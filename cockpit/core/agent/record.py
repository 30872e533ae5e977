"""What the agent loop writes of a run: its opening, each step's row (:meth:`RunRecord.commit`), its end.

A run opens with the settings it runs under (the model's, the agent's, what
the step hooks add, the task file's extras, the remote browser); a resumed run
keeps its own. A step is committed whole, with its files and its gate decision, before the
next begins; a step cut short by a stop or a failure is kept as far as it got
(:meth:`RunRecord.commit_partial`). A run the agent ended (answered or out of
steps) is checked by WebArena's state checks on the page it left, then
finished; a refusal at the gate on its last irreversible action makes it
``refused`` (:func:`cockpit.core.agent.approval.ended_at_gate`).
"""
from __future__ import annotations

import logging
import time

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import ended_at_gate
from cockpit.core.agent.config import RunResult
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.start import Resume, Start, new_run_record, run_setup
from cockpit.core.agent.state_checks import run_state_checks
from cockpit.core.agent.step import Step
from cockpit.core.agent.stepimages import StepImages
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import CockpitError
from cockpit.core.safety import redaction

log = logging.getLogger(__name__)


class RunRecord:
    def __init__(self, run: RunScope, session: BrowserSession, flags: dict[int, list[str]]):
        self.run = run
        self.session = session
        self.flags = flags  # each step's flags (noop, loop, breakpoint: ..., note: ...)
        self.config: dict = {}  # the run's own settings, read again as it ends (WebArena's state checks)

    def open(self, start: Start, hooks: list[StepHook]) -> str:
        """The run's id: a new run in the store, with the settings it runs under, or the resumed one."""
        run = self.run
        mc, cfg = run.client.config, run.config
        settings = {"model": mc.to_dict(), "agent": cfg.to_dict()}
        for h in hooks:  # e.g. the navigation fence, recorded as settings["navigation"]
            h.opening(start, settings)
        if start.task_extra:
            settings["task_extra"] = start.task_extra
        settings.update(run_setup(start, self.session))
        self.config = settings
        if isinstance(start, Resume):
            self.config = run.store.run(start.run_id).get("config") or settings
            return start.run_id
        return run.store.new_run(new_run_record(start, settings, model=mc.model, base_url=mc.base_url or "",
                                                approval_policy=cfg.approval_policy, demo=cfg.demo))

    def commit(self, st: Step) -> None:
        """The step's record, with what only the run knows (its number, times, files, flags, page), stored."""
        obs, hide = st.obs, self.run.executor.secrets
        rec = st.record.but(step=st.n, started=st.started, finished=time.time(),
                            n_marks=len(obs.marks) if obs else 0, flags=self.flags.get(st.n) or None,
                            **StepImages.files(st))
        if obs:
            rec = rec.but(url=obs.url, title=obs.title)
        # a GET form puts a typed password into the address
        rec = rec.but(**{k: redaction.scrub(v, hide) for k in ("url", "title", "url_after") if (v := getattr(rec, k))})
        if rec.status is None:
            rec = rec.but(status="ok")
        self.run.store.commit_step(self.run.run_id, dict(rec.to_row(), request=st.request), st.decision)

    def commit_partial(self, st: Step | None, status: str, error: str) -> None:
        """The step in flight, as far as it got, so the user sees what the model was looking at."""
        if st is None or st.obs is None:
            return
        st.write(status=status, error=error)
        try:
            self.commit(st)
        except CockpitError:
            log.warning("could not record the interrupted step %d of %s", st.n, self.run.run_id)

    def finish(self, status: str, answer: str | None, last_step: int) -> RunResult:
        """The run's end as the agent reached it; `last_step` is the number of its last step."""
        store, run_id = self.run.store, self.run.run_id
        status = ended_at_gate(status, store.decisions(run_id), last_step)  # refused there
        if status != "stopped":  # the agent ended it: WebArena's state checks, on the page it left
            try:
                run_state_checks(self.session, store, run_id, self.config)
            except Exception:  # the run's own outcome is recorded whatever happens to its evaluation
                log.exception("WebArena state checks of %s failed", run_id)
        store.finish_run(run_id, status, answer=answer)
        n = store.run(run_id)["steps"]
        self.run.emit(ev.RunFinished(run_id, status, answer, n))
        return RunResult(run_id, status, answer, n)

    def fail(self, error: str, lost_browser: bool = False) -> RunResult:
        store, run_id = self.run.store, self.run.run_id
        try:
            store.finish_run(run_id, "failed", error=error)
            n = store.run(run_id)["steps"]
        except CockpitError:
            n = 0
        self.run.emit(ev.RunFailed(run_id, error, n))
        return RunResult(run_id, "failed", None, n, error, lost_browser)
