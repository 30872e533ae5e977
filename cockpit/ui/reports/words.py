"""What Reports says in words: the steps histogram's bins, and the runs counted as failures with no one's verdict.

Runs that ended without an answer (the step limit, stopped, an error…) and that nobody labelled or judged are
counted as failures, as WebVoyager and Online-Mind2Web score a run that gave no answer: leaving them out would
raise every success rate by the runs the agent could not finish. Reports says so, with how many and why, so an
evaluator reading a rate knows which zeros no person decided (and can label them in Review).
"""
from __future__ import annotations

from collections import Counter

from cockpit.core.review.outcomes import run_outcomes
from cockpit.core.words import plural

#: how a run without an answer ended, in words: (one run, several runs)
ENDINGS = {
    "max_steps": ("hit the step limit", "hit the step limit"),
    "stopped": ("was stopped", "were stopped"),
    "failed": ("ended with an error", "ended with an error"),
    "interrupted": ("was interrupted", "were interrupted"),
    "closed": ("was closed", "were closed"),
    "gave_up": ("a person gave up", "people gave up"),
}


def bin_label(lo: int, hi: int) -> str:
    """A steps histogram bin counts runs with lo <= steps < hi (whole steps): "11–12" for [11, 13), "11" for
    [11, 12). Bins next to each other never share a number."""
    last = hi - 1
    return str(lo) if last <= lo else f"{lo}–{last}"


def unjudged_failures(store) -> dict[str, int]:
    """How many runs count as failures only because they ended without an answer and nobody labelled or judged
    them, by how they ended (run status), largest first."""
    status = {r["id"]: r["status"] for r in store.run_summaries()}
    counts = Counter(status[rid] for rid, (_ok, source) in run_outcomes(store).items() if source == "no_answer")
    return dict(counts.most_common())


def unjudged_failures_note(store) -> str:
    """The sentence Reports shows under the success rates; "" when there are no such runs."""
    counts = unjudged_failures(store)
    if not counts:
        return ""
    parts = [f"{plural(n, 'run')} that {ENDINGS.get(s, (f'ended as {s}',) * 2)[n != 1]}" for s, n in counts.items()]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    one = sum(counts.values()) == 1
    return (f"{said} ended without an answer and {'has' if one else 'have'} no label or judge's verdict: "
            f"{'it is counted as a failure' if one else 'they are counted as failures'} (a run with no answer "
            f"scores 0, as in WebVoyager). Label {'it' if one else 'them'} in Review to decide otherwise.")
