"""Terminal progress for runs: one line per step, one per finished task, a summary table; on a terminal,
the model's reply as it is written (a few lines redrawn in place, replaced by the step's line)."""
from __future__ import annotations

import shutil
import sys
import textwrap
import threading
import time

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import decider
from cockpit.core.words import plural

#: Held while a line is written: the lines of tasks running at once (and the batch's counter) never run into
#: each other (print writes a line and its newline apart, and another thread's line can come between).
OUTPUT = threading.RLock()


def say(line: str, stream) -> None:
    """Print a whole line, in one write, under OUTPUT."""
    with OUTPUT:
        stream.write(line + "\n")
        stream.flush()


class StepPrinter:
    """An event listener printing what the agent does; with `label_tasks` (several tasks) each line begins
    with its task's id ("[Local--2] step 3/15  Click [4]"), so the lines of tasks run at once are told apart."""

    def __init__(self, stream=None, *, label_of=None, verbose_steps: bool = True, live: bool | None = None,
                 label_tasks: bool = False):
        self.stream = stream or sys.stderr
        self.label_of = label_of or {}
        self.label_tasks = label_tasks
        self.verbose_steps = verbose_steps
        # the reply as it is written: only on a terminal (escape codes redraw it), never in a log file
        self.live = verbose_steps and (_is_terminal(self.stream) if live is None else live)
        self._drawn = 0  # lines of the reply being written now on the screen, replaced by the next line printed
        self._lock = OUTPUT
        self._max = {}  # run id -> the highest step number the run can reach
        self._budget = {}  # run id -> RunStarted.max_steps, until its first step says where it starts

    def __call__(self, e: ev.Event) -> None:
        if isinstance(e, ev.ModelStreaming):
            if self.live:
                with self._lock:
                    self._redraw(self._writing(e))
            return
        line = self._line(e)
        if line:
            with self._lock:
                self._redraw([])
                say(line, self.stream)

    def _redraw(self, lines: list[str]) -> None:
        """Replace the lines drawn last (the reply so far) with `lines`, the cursor left at their end."""
        if not self._drawn and not lines:
            return
        up = f"\x1b[{self._drawn - 1}F" if self._drawn > 1 else ""
        self.stream.write(up + "\r\x1b[J" + "\n".join(lines))
        self.stream.flush()
        self._drawn = len(lines)

    def _writing(self, e: ev.ModelStreaming) -> list[str]:
        """The reply so far in a few lines that fit the terminal: the step, the rate, the thought's last lines,
        the action once it is being written."""
        width = max(40, shutil.get_terminal_size((100, 24)).columns - 1)
        head = f"{self._prefix(e)}step {e.step}/{self._max.get(e.run_id, '?')}  "
        if e.first_token is None:
            return [f"{head}waiting for the model… {e.seconds:.0f} s"[:width]]
        rate = f", {e.tokens_per_second:.0f} tokens/s" if e.tokens_per_second else ""
        lines = [f"{head}the model is writing ({plural(e.tokens, 'token')}{rate}, {e.seconds:.0f} s)"[:width]]
        thought = " ".join(e.thought.split())
        if thought:
            wrapped = textwrap.wrap(thought, width - 11) or [""]
            tail = wrapped[-THOUGHT_LINES:]
            if len(wrapped) > THOUGHT_LINES:
                tail[0] = "…" + tail[0]
            lines += [("  thought: " if i == 0 else " " * 11) + t for i, t in enumerate(tail)]
        if e.action:
            lines.append(f"  action:  {' '.join(e.action.split())}"[:width])
        return lines

    def _prefix(self, e: ev.Event) -> str:
        label = self.label_of.get(e.run_id)
        return f"[{label}] " if label else ""

    def _line(self, e: ev.Event) -> str | None:
        if isinstance(e, ev.RunStarted) and self.label_tasks:
            self.label_of[e.run_id] = e.task_id or e.run_id
        p = self._prefix(e)
        if isinstance(e, ev.RunStarted):
            self._max.pop(e.run_id, None)
            self._budget[e.run_id] = e.max_steps
            return f"{p}run {e.run_id}: {e.task[:100]} ({e.url})"
        step = getattr(e, "step", None)
        if isinstance(step, int) and e.run_id in self._budget:
            # A resumed run's first step is numbered after its recorded ones: the steps before it
            # plus the budget left is the run's total, which its step numbers never pass.
            self._max[e.run_id] = step - 1 + self._budget.pop(e.run_id)
        if not self.verbose_steps and not isinstance(e, (ev.RunFinished, ev.RunFailed, ev.ApprovalRequested)):
            return None
        if isinstance(e, ev.ModelCalled) and e.note:
            return f"{p}  step {e.step}: model call {e.note}"
        if isinstance(e, ev.ModelReplied):
            return f"{p}step {e.step}/{self._max.get(e.run_id, '?')}  {e.action_text or '(no action)'}" + (
                f"   | {e.thought[:90]}" if e.thought else "")
        if isinstance(e, ev.ApprovalRequested):
            return f"{p}  approval needed ({e.risk}): {e.action}" + (f" - {e.evidence[0]}" if e.evidence else "")
        if isinstance(e, ev.ApprovalDecided):
            verdict = "approved" if e.approved else "refused"
            by = decider(e.by) + ("" if str(e.by).startswith("human:") else f" ({e.by})")  # policy: nobody asked
            return f"{p}  {verdict} by {by}" + (f": {e.message}" if e.message else "")
        if isinstance(e, ev.StepFinished) and e.status == "format_error":  # the reply could not be read: say
            # so as Review does ("Format ERROR: …"), not leave the action line above looking like one that ran
            return f"{p}  not run: {e.error or 'the reply could not be read'}"
        if isinstance(e, ev.ActionExecuted):
            return f"{p}  {'->' if e.ok else 'error:'} {e.message[:160]}"
        if isinstance(e, ev.RunFinished):
            tail = f": {e.answer[:200]}" if e.answer else ""
            return f"{p}finished ({e.status}) after {plural(e.steps, 'step')}{tail}"
        if isinstance(e, ev.RunFailed):
            return f"{p}FAILED after {plural(e.steps, 'step')}: {e.error}"
        return None


THOUGHT_LINES = 3  # the thought's last lines shown while it is written


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def summary_table(items, stream=None) -> None:
    """One row per task: id, status, steps, tokens, cost, seconds, answer."""
    stream = stream or sys.stdout
    rows = [("task", "status", "steps", "tokens", "cost", "time", "run", "answer / error")]
    for it in items:
        r = it.result
        if it.skipped:
            rows.append((it.task.id, "skipped", "", "", "", "", "", "finished in an earlier run"))
            continue
        if r is None:
            rows.append((it.task.id, "not run", "", "", "", "", "", ""))
            continue
        cost = "" if it.cost is None else f"${it.cost:.4f}"
        text = (r.answer or r.error or "").replace("\n", " ")
        rows.append((it.task.id, r.status, str(r.steps), str(it.tokens or ""), cost, f"{it.seconds:.0f}s",
                     r.run_id, text[:60]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1], file=stream)


class BatchCounter:
    """'[#####.....] 3/10 Allrecipes--2 answered (5 steps, 12 s) - 40 s, about 80 s left' as each task ends."""

    def __init__(self, total: int, stream=None, width: int = 20):
        self.total, self.done, self.ran, self.width = total, 0, 0, width
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self, item) -> None:
        with self._lock:
            self.done += 1
            self.ran += 0 if item.skipped else 1
            r = item.result
            what = "skipped (already finished)" if item.skipped else (
                f"{r.status} ({plural(r.steps, 'step')}, {item.seconds:.0f} s)" if r else "not run")
            elapsed = time.monotonic() - self.t0
            filled = round(self.width * self.done / max(self.total, 1))
            bar = "#" * filled + "." * (self.width - filled)
            left = ""
            if self.ran and self.done < self.total:
                left = f", about {elapsed / self.ran * (self.total - self.done):.0f} s left"
            say(f"[{bar}] {self.done}/{self.total} {item.task.id} {what} - {elapsed:.0f} s{left}", self.stream)
