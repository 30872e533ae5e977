"""What Reports says in words: the steps histogram's bins, the runs counted as failures with no one's verdict, and
agreement over too few runs to mean much (walkthrough 3, A12: κ = 1.000 over one run, scored without the judge).

Runs that ended without an answer (the step limit, stopped, an error…) and that nobody labelled or judged are
counted as failures, as WebVoyager and Online-Mind2Web score a run that gave no answer: leaving them out would
raise every success rate by the runs the agent could not finish. Reports says so, with how many and why, so an
evaluator reading a rate knows which zeros no person decided (and can label them in Review).
"""
from __future__ import annotations

from collections import Counter

from cockpit.core.review import judge_prompt
from cockpit.core.review.kappa import MIN_ITEMS
from cockpit.core.review.outcomes import judges_counted, run_outcomes
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


def unjudged_failures(store, distrust: frozenset = frozenset()) -> dict[str, int]:
    """How many runs count as failures only because they ended without an answer and nobody labelled or judged
    them (but the judges in `distrust`), by how they ended (run status), largest first."""
    status = {r["id"]: r["status"] for r in store.run_summaries()}
    counts = Counter(status[rid] for rid, (_ok, source) in run_outcomes(store, distrust=distrust).items()
                     if source == "no_answer")
    return dict(counts.most_common())


def unjudged_failures_note(store, distrust: frozenset = frozenset()) -> str:
    """The sentence Reports shows under the success rates; "" when there are no such runs."""
    counts = unjudged_failures(store, distrust)
    if not counts:
        return ""
    parts = [f"{plural(n, 'run')} that {ENDINGS.get(s, (f'ended as {s}',) * 2)[n != 1]}" for s, n in counts.items()]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    one = sum(counts.values()) == 1
    return (f"{said} ended without an answer and {'has' if one else 'have'} no label or judge's verdict: "
            f"{'it is counted as a failure' if one else 'they are counted as failures'} (a run with no answer "
            f"scores 0, as in WebVoyager). Label {'it' if one else 'them'} in Review to decide otherwise.")


def judge_words(judge: str, k: int, prompt_version: str) -> str:
    """A judge as Reports names it: its model and protocol ("gpt-4o, WebVoyager's protocol, last 3 screenshots",
    "gpt-4o, WebJudge"); another harness's verdicts by their prompt version."""
    if prompt_version.startswith("webjudge"):
        return f"{judge}, WebJudge"
    if prompt_version == judge_prompt.PROMPT_VERSION or prompt_version.startswith("cockpit-judge"):
        return f"{judge}, WebVoyager's protocol, " + (f"last {plural(k, 'screenshot')}" if k else "all screenshots")
    return f"{judge} (prompt {prompt_version})" if prompt_version else judge


def charts_source(store, distrust: frozenset = frozenset(), left_out: Counter | None = None) -> str:
    """Whose verdicts the success charts show, for the line above them: people's labels, then which judge's
    (and protocol) where no one labelled a run, then the runs with no answer scored 0, and the flagged judges
    whose verdicts are left out (`distrust`; `left_out`: the runs their verdicts would have decided); "" with no
    outcome yet and no verdict left out."""
    sources = Counter(source for _ok, source in run_outcomes(store, True, distrust).values())
    judges = judges_counted(store, distrust)
    parts = [f"people's labels ({plural(sources['human'], 'run')})"] if sources["human"] else []
    if judges:
        said = "; ".join(f"{judge_words(*key)} ({plural(n, 'run')})" for key, n in judges.most_common())
        parts.append(f"{'where no one labelled a run, ' if parts else ''}the judge{'s' if len(judges) > 1 else ''}"
                     f" {said}")
    if sources["no_answer"]:
        parts.append(f"runs that gave no answer, scored 0 ({plural(sources['no_answer'], 'run')})")
    flagged = _left_out(left_out or Counter())
    if not parts:
        return flagged.strip()
    return ("Success rates show " + ", ".join(parts) + "." + ("" if judges else " No judge's verdict is counted.")
            + flagged + " Failure categories are people's labels.")


def _left_out(left_out: Counter) -> str:
    """The sentence on the flagged judges' verdicts left out of the success rates ("" when none is)."""
    if not left_out:
        return ""
    said = "; ".join(f"{judge_words(*key)} ({plural(n, 'run')})" for key, n in left_out.most_common())
    one = len(left_out) == 1
    return (f" Left out: the verdicts of {'the judge' if one else 'the judges'} {said}, which the canary runs "
            f"flagged; those runs count as if no judge had seen them.")


#: The agreement tables' headers, explained in their tooltips.
SMALL_N = (f"Over fewer than {plural(MIN_ITEMS, 'run')} in common, agreement is shown as a count (\"1 of 1\") and κ as "
           "\"n too small\": a figure over so few runs says next to nothing.")
COLUMN_TIPS = {
    "runs": "Runs both sides gave a verdict on. \"+1 automatic\": runs that gave no answer, scored 0 without asking "
            "the judge (WebVoyager's rule): the judge never saw them, so they are left out of its runs, agreement and "
            "κ. A judge with only such verdicts has \"no verdict of its own\".",
    "agreement": SMALL_N,
    "κ": SMALL_N,
}


def agreement_cell(agreement: float | None, n: int, automatic: int = 0) -> str:
    """"87.5%", or over too few runs the count itself ("1 of 1"); "" when there is none, "no verdict of its own"
    for a judge whose only verdicts are by rule (`automatic` of them)."""
    if not n and automatic:
        return "no verdict of its own"
    if agreement is None:
        return ""
    return f"{round(agreement * n)} of {n}" if n < MIN_ITEMS else f"{agreement:.1%}"


def kappa_cell(kappa: float | None, n: int) -> str:
    """"0.750", or "n too small" over fewer than MIN_ITEMS runs; "" when there is none."""
    if kappa is None:
        return ""
    return "n too small" if n < MIN_ITEMS else f"{kappa:.3f}"


def runs_cell(n: int, automatic: int = 0) -> str:
    """"12", or "0 (+1 automatic)" when some verdicts were scored without asking the judge: those are not in the n
    (:func:`cockpit.core.review.judges.judge_rows` leaves them out of the judge's figures)."""
    return f"{n} (+{automatic} automatic)" if automatic else str(n)



def judge_counts_text(rep) -> str:
    """A judging pass's verdicts (rep: a JudgeReport), the judge's apart from the rule's (walkthrough 9: "not 12"
    read as the judge's when 11 were runs with no answer, scored not success without asking it):
    "judge: success 0, not success 1, undecided 11; by rule (no answer): not success 11; errors 0"."""
    c, rule = rep.counts(), rep.by_rule()
    text = f"judge: success {c['success']}, not success {c['not'] - rule}, undecided {c['undecided']}"
    return text + (f"; by rule (no answer): not success {rule}" if rule else "") + f"; errors {c['errors']}"


def explain_columns(table) -> None:
    """The header tooltips of an agreement table: "runs", "agreement" and the κ column."""
    for col in range(table.columnCount()):
        item = table.horizontalHeaderItem(col)
        said = COLUMN_TIPS.get("κ" if "κ" in item.text() else item.text()) if item is not None else None
        if said:
            item.setToolTip(said)
