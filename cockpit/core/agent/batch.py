"""Run many tasks, N browsers at a time, resumable.

Each worker thread owns one browser session, one model client and one store
connection, and takes tasks from a shared queue. A task whose run already
finished (answered or out of steps) is skipped, so rerunning a batch after a
crash or Ctrl+C picks up where it stopped. Each task starts in a clean browser, so no
cookie, storage or cart carries over from the task before (as WebVoyager starts a driver per
task): the worker's Chrome moves its tab into a new browser context (its own cookies, storage
and cache, made ready while the task before runs; browser/contexts.py), or, where the browser
cannot give one (a remote endpoint without DevTools access), a new browser with a new profile,
which a local worker starts while the current task runs. `keep_browser` goes on in the
worker's browser instead. A dead browser is replaced before the next task.
Knows nothing about terminals: progress goes to callbacks.

A task whose browser was lost before it finished (the browser crashed, a Grid
node or hub went away) runs again once, as a new run that records why; a
second loss fails it. When no browser can be had at all (a remote endpoint that
does not answer for the browser's session-start timeout), the batch stops with
one message (`stopped_because`) and leaves the tasks it did not run unrun, for
the same command to pick up later.
"""
from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import Approver
from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.loop import Agent
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.remote import GridUnavailable
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.errors import BrowserError, CockpitError, short_message
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.store import Store, StoreError, liveness
from cockpit.core.tasks.hops import tracker_for
from cockpit.core.tasks.task import Task

log = logging.getLogger(__name__)

#: Seconds a batch waits at start-up for another program's lock on the run store (one writing a
#: step holds it for milliseconds) before giving up; the store's usual wait (10 s) is for each write.
STARTUP_WAIT = 2.0


@dataclass
class BatchItem:
    task: Task
    result: RunResult | None = None
    skipped: bool = False
    seconds: float = 0.0
    tokens: int = 0
    cost: float | None = None
    lost: list[tuple[str, str]] = field(default_factory=list)  # (run id, why) of each attempt that lost its browser

    @property
    def attempt(self) -> int:
        """Which try of the task this is (or was last): one more than the tries that lost their browser."""
        return len(self.lost) + 1


@dataclass
class Batch:
    tasks: list[Task]
    model: ModelConfig
    agent: AgentConfig
    browser: BrowserConfig
    approver_factory: Callable[[], Approver]
    store_root: Path | None = None
    concurrency: int = 1
    resume: bool = True
    batch_id: str = ""
    api_key: str | None = None
    on_event: Callable[[ev.Event], None] | None = None
    on_item: Callable[[BatchItem], None] | None = None  # called when a task ends or is skipped
    controls: list[RunControl] = field(default_factory=list)
    interrupted: bool = False  # set when Ctrl+C ended the batch early
    stopped_because: str = ""  # set when no browser could be had: the batch stopped, the rest not run
    on_requeue: Callable[[BatchItem, str], None] | None = None  # a task lost its browser and runs again
    keep_browser: bool = False  # each worker's tasks share its browser (cookies, storage); else one per task
    _stop: threading.Event = field(default_factory=threading.Event)
    _sessions: set = field(default_factory=set)  # live browsers, closed from here on a second Ctrl+C

    def stop(self) -> None:
        """Stop every running task and start no new one."""
        self._stop.set()
        for c in list(self.controls):
            c.stop()

    def run(self) -> list[BatchItem]:
        """Run every task; raises CockpitError before starting when the model cannot be used at all."""
        ModelClient(self.model, api_key=self.api_key).close()  # no key for OpenAI: say so once, up front
        items = [BatchItem(t) for t in self.tasks]
        done = self._open_store()
        todo: queue.Queue[BatchItem] = queue.Queue()
        for it in items:
            if (it.task.id, it.task.task, it.task.url) in done:
                it.skipped = True
                self._report(it)
            else:
                todo.put(it)
        n = max(1, min(self.concurrency, todo.qsize() or 1))
        # Workers signal their end through events, not Thread.join: a join that Ctrl+C
        # interrupts marks a still-running thread as finished (CPython), and the process
        # would then exit under the worker, leaking its browser and leaving its run 'running'.
        ended = [threading.Event() for _ in range(n)]
        threads = [threading.Thread(target=self._worker, args=(todo, ended[i]), name=f"batch-{i + 1}", daemon=True)
                   for i in range(n)]
        for t in threads:
            t.start()
        try:
            for e in ended:
                while not e.wait(0.2):  # short waits keep the main thread responsive to Ctrl+C
                    pass
        except KeyboardInterrupt:
            log.warning("interrupted: stopping the running tasks")
            self.interrupted = True
            self.stop()
            deadline = time.monotonic() + 30
            try:
                for e in ended:
                    e.wait(max(0.0, deadline - time.monotonic()))
            except KeyboardInterrupt:  # a second Ctrl+C: no more waiting, but no browser left behind
                log.warning("interrupted again: closing the browsers")
                for s in list(self._sessions):
                    s.close()
                raise
        return items

    def _open_store(self) -> set:
        """Check that the run store can be written, waiting at most STARTUP_WAIT for another program's
        lock, and tidy it up; the tasks finished before (with `resume`). StoreError (CockpitError) when
        it cannot be used (locked, damaged, even deep in the file): better at once than after each task has
        started its browser or waited the store's usual timeout."""
        try:
            with Store(self.store_root, timeout=STARTUP_WAIT, check=True) as store:  # every page: damage now
                with store.atomic():  # an empty write transaction: takes and releases the write lock
                    pass
                liveness.mark_interrupted(store)
                return store.done_tasks() if self.resume else set()
        except StoreError as e:
            db = getattr(e, "locked_path", None)
            if db is None:  # read-only, damaged...: said as it is
                raise
            raise StoreError(f"the run database {db} is locked by another program, most likely another "
                             f"Cockpit process (a window or a run using it); waited {STARTUP_WAIT:g} s and ran "
                             "no task. Close it or let it finish, then try again") from e

    def _report(self, item: BatchItem) -> None:
        if self.on_item:
            self.on_item(item)

    def _worker(self, todo: queue.Queue, ended: threading.Event | None = None) -> None:
        try:
            self._work(todo)
        except Exception:  # a bug must not silently drop the rest of the queue
            log.exception("batch worker failed")
            while True:
                try:
                    item = todo.get_nowait()
                except queue.Empty:
                    return
                item.result = RunResult("", "failed", error="the batch worker failed; see the log")
                self._report(item)
        finally:
            if ended is not None:
                ended.set()

    def _work(self, todo: queue.Queue) -> None:
        session: BrowserSession | None = None
        used = False  # a task ran in `session`: the next one gets a new browser unless keep_browser
        # A new browser per task costs about a second to start: a local one for the next task starts while
        # this task runs (not on a Grid, where it would hold a slot another worker may be waiting for).
        pool = ThreadPoolExecutor(1, thread_name_prefix=threading.current_thread().name + "-spare") \
            if not self.keep_browser and not self.browser.webdriver_url else None
        spare: Future | None = None
        store = Store(self.store_root)
        client = ModelClient(self.model, api_key=self.api_key)
        try:
            while not self._stop.is_set():
                try:
                    item = todo.get_nowait()
                except queue.Empty:
                    return
                # Each task a clean browser: the same Chrome in a new browser context when it can give one
                # (browser/contexts.py), else a new browser.
                if session is None or not session.alive or \
                        (used and not self.keep_browser and not session.fresh_context()):
                    session, used, spare = self._new_session(session, item, spare), False, None
                    if session is None:
                        continue
                    if self._stop.is_set():  # stopped while the browser started: leave the task not run
                        return
                used = True
                ready_next = None
                if not self.keep_browser and not todo.empty():
                    if pool is not None and spare is None and not session.can_give_context():
                        spare = pool.submit(self._start_session)
                    elif spare is None:
                        ready_next = session.prepare_context  # the next task's, while the model thinks
                self._run_one(item, session, store, client, todo, ready_next)
        finally:
            client.close()
            store.close()
            if session is not None:
                session.close()
                self._sessions.discard(session)
            if spare is not None:  # no task came for it: closed once it has started, however long that takes
                spare.add_done_callback(self._close_started)
            if pool is not None:
                pool.shutdown(wait=False)

    def _start_session(self) -> BrowserSession:
        session = BrowserSession(self.browser)
        self._sessions.add(session)  # closed from run() on a second Ctrl+C, even while it starts
        try:
            session.start()
        except BaseException:
            self._sessions.discard(session)
            raise
        if session.closing:  # closed (a second Ctrl+C) while it started: what the start made goes too
            self._close(session)
            raise BrowserError("the batch was interrupted while this browser started")
        return session

    def _close_started(self, spare: Future) -> None:
        if not spare.cancelled() and spare.exception() is None:
            self._close(spare.result())

    def _close(self, session: BrowserSession) -> None:
        session.close()
        self._sessions.discard(session)

    def _new_session(self, old: BrowserSession | None, item: BatchItem,
                     spare: Future | None = None) -> BrowserSession | None:
        """A browser for `item`: the spare started for it, else a new one; None when none could be had (the
        item is reported failed, or the batch stops when no browser can be had at all)."""
        if old is not None:
            self._close(old)
        try:
            if spare is not None:
                try:
                    session = spare.result()
                except GridUnavailable:
                    raise
                except CockpitError as e:  # a fresh try below says whether it was more than a hiccup
                    log.info("the browser started early failed (%s); starting another", short_message(e))
                else:
                    if session.alive:
                        return session
                    self._close(session)  # died while it waited
            return self._start_session()
        except GridUnavailable as e:  # no browser to be had: stop, and leave this task and the rest unrun
            if not self._stop.is_set():
                self.stopped_because = f"{e}; the batch stopped, and the tasks it did not run are left for " \
                                       "the same command to run later"
                log.warning("%s", self.stopped_because)
            self._stop.set()  # no new task; the running ones end on their own
            return None
        except CockpitError as e:
            item.result = RunResult("", "failed", error=f"browser did not start: {short_message(e)}")
            self._report(item)
            return None

    def _listener(self, when_observed: Callable[[], None] | None) -> Callable[[ev.Event], None] | None:
        """on_event, calling `when_observed` once, when the run's first observation is ready and its model
        is asked next (the browser is idle then: the next task's context is made ready without slowing this
        one's page loads)."""
        if when_observed is None:
            return self.on_event
        pending = [when_observed]

        def listen(e: ev.Event) -> None:
            if self.on_event is not None:
                self.on_event(e)
            if pending and isinstance(e, ev.ObservationReady):
                try:
                    pending.pop()()
                except Exception as err:  # noqa: BLE001 - the next task makes its context when it starts
                    log.info("the next task's browser context could not be made ready: %s", short_message(err))
        return listen

    def _run_one(self, item: BatchItem, session: BrowserSession, store: Store, client: ModelClient,
                 todo: queue.Queue, when_observed: Callable[[], None] | None = None) -> None:
        control = RunControl()
        self.controls.append(control)
        if self._stop.is_set():  # stop() came while this worker was starting its browser
            control.stop()
        t0 = time.monotonic()
        agent = None
        try:
            cfg = dataclasses.replace(self.agent, hops=tracker_for(dict(item.task.extra)))  # per-task hop queue
            agent = Agent(session, client, store, config=cfg, approver=self.approver_factory(),
                          control=control, listener=self._listener(when_observed))
            t = item.task
            last = item.lost[-1] if item.lost else ("", "")
            item.result = agent.run(Fresh(t.task, t.url, task_id=t.id, site=t.site, batch=self.batch_id,
                                          task_extra=dict(t.extra) or None, attempt=item.attempt,
                                          retry_of=last[0], retry_reason=last[1]))
            if item.result.run_id:
                row = store.run(item.result.run_id)
                item.tokens = (row["prompt_tokens"] or 0) + (row["completion_tokens"] or 0)
                item.cost = row["cost"]
        except CockpitError as e:  # this task failed (the store was locked, say); the queue goes on
            log.warning("task %s: %s", item.task.id, short_message(e))
            if item.result is None:  # (a run that ended keeps its status; only its totals are missing)
                item.result = RunResult(agent.run_id if agent else "", "failed", error=short_message(e))
        finally:
            self.controls.remove(control)
            item.seconds += time.monotonic() - t0
            if not self._requeued(item, todo):
                self._report(item)

    def _requeued(self, item: BatchItem, todo: queue.Queue) -> bool:
        """Put a task that lost its browser back in the queue, once; True when it was."""
        r = item.result
        if r is None or r.status != "failed" or not r.lost_browser or item.attempt >= 2 or self._stop.is_set():
            return False
        item.lost.append((r.run_id, r.error))
        item.result = None
        log.warning("task %s lost its browser (%s); running it again", item.task.id, r.error)
        if self.on_requeue:
            self.on_requeue(item, r.error)
        todo.put(item)
        return True
