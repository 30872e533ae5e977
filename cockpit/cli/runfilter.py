"""Choosing runs on the command line with Review's filters (:class:`cockpit.core.store.queries.RunFilter`):
`cockpit export` takes them, so what it exports is what Review lists for the same choice."""
from __future__ import annotations

import datetime as dt

from cockpit.core.store.queries import AGREEMENT, RunFilter

#: The options' names (argparse dests), and the RunFilter field each sets.
FLAGS = {"search": "search", "site": "site", "model": "model", "status": "status", "human": "human", "judge": "judge",
         "annotated_by": "annotator", "since": "since", "until": "until", "agreement": "agreement",
         "side_effects": "side_effects", "repetition": "repetition"}


def add_options(p) -> None:
    g = p.add_argument_group("choosing runs (Review's filters; with RUN ids, only those of them that pass)")
    g.add_argument("--search", metavar="WORDS", help="words in the task or the answer")
    g.add_argument("--site", help="the run's site")
    g.add_argument("--model", help="the run's model")
    g.add_argument("--status", help="the run's status (answered, max_steps, refused, stopped, failed, ...)")
    g.add_argument("--human", choices=("success", "fail", "unsure", "not_executable", "unlabelled"),
                   help="an annotator's verdict (the one of --annotated-by when given)")
    g.add_argument("--judge", choices=("success", "fail", "undecided", "unjudged"),
                   help="the newest verdict of an LLM judge")
    g.add_argument("--annotated-by", metavar="NAME", help="runs NAME labelled (and NAME's verdicts for --human)")
    g.add_argument("--since", metavar="DATE", help="runs started on or after DATE (YYYY-MM-DD, local time)")
    g.add_argument("--until", metavar="DATE", help="runs started before DATE (YYYY-MM-DD, local time)")
    g.add_argument("--agreement", choices=AGREEMENT,
                   help="two or more annotators labelled the run: all with one verdict (agree) or not (disagree)")
    g.add_argument("--side-effects", choices=("yes", "no", "unsure"), help="an annotator's side-effects answer")
    g.add_argument("--repetition", choices=("yes", "no", "unsure"), help="an annotator's repetition answer")


def _date(text: str, flag: str) -> float:
    try:
        return dt.datetime.strptime(text, "%Y-%m-%d").timestamp()
    except ValueError:
        raise ValueError(f"--{flag} takes a date as YYYY-MM-DD, not {text!r}") from None


def given(args) -> bool:
    return any(getattr(args, name, None) for name in FLAGS)


def run_filter(args) -> RunFilter:
    """The filter the options give (ValueError with the flag's name for a malformed date)."""
    pick = {field: getattr(args, name, None) or "" for name, field in FLAGS.items() if name not in ("since", "until")}
    return RunFilter(**pick, since=_date(args.since, "since") if args.since else None,
                     until=_date(args.until, "until") if args.until else None)


def passing(store, refs: list[str] | None, flt: RunFilter) -> list[str]:
    """The runs `refs` names (None: every run), oldest first, that `flt` lets through (StoreError for a bad ref)."""
    listed = list(reversed(store.filtered_run_ids(flt)))
    if refs is None:
        return listed
    allowed = set(listed)
    return [r for r in (store.resolve(ref) for ref in refs) if r in allowed]
