"""`cockpit agreement`: agreement between annotators and judges, and success reports."""
from __future__ import annotations

from cockpit.cli import common
from cockpit.core.words import noun, plural

HELP = "agreement between annotators and LLM judges (Cohen, Fleiss, WebVoyager Table 2) and success rates"

DESCRIPTION = HELP + """. Human verdicts: success counts 1, fail 0, unsure is left out; the human
consensus of a run is the verdict more than half of its annotators gave (ties are undecided). Runs whose
consensus is not executable (the task could not be attempted: a CAPTCHA, the site down, a login wall, a
blocked region) are reported apart, with their reasons: they are in no agreement, no success rate and no
failure count. Judges are compared with the
consensus per judge model, k (screenshots shown) and prompt version, before and after adjudication (after:
a run's adjudicated verdict, from `cockpit adjudicate set`, replaces its consensus), with the judge's
precision and recall (AgentRewardBench's measure: the judge's success is the positive class). Success
rates use the adjudicated verdict, else the human consensus, else the newest judge verdict, else 0 for
runs that never answered; answered runs nobody judged are left out and counted as unjudged, and so are
runs stopped at the approval gate (status refused), counted as refused. Failure
categories count the runs failed by the consensus or, where there is one, the adjudicated verdict.
Success is also split into autonomous (runs nobody intervened in) and assisted (counting the help people
gave: approvals, rejections, edited actions, take-over steps, notes, breakpoints resumed), and the runs with
interventions are listed. Every kappa, agreement (accuracy), precision, recall, false-positive rate (of the runs
the humans failed, the share the judge called a success) and success-rate gap (the judge's success rate minus
the humans' over the same runs) comes with a 95% interval: a percentile bootstrap over runs, seeded, stated in
the output (--resamples 0 leaves them out). A verdict by rule (a run that gave no answer, scored not success
without asking the judge, as in WebVoyager) is not the judge's judgement: it is left out of the judge's n and
every figure, and counted apart ("by rule"; --json: automatic); a judge with no verdict of its own says so. Runs whose human consensus is neither success nor fail are
left out of a judge's figures and counted apart, never as failures. --by site|agent|level|prompt-version
gives the same judge figures per site, per agent (the run's model, with its harness when imported), per
task level (where the task has one, as Online-Mind2Web's easy/medium/hard) or per judge prompt version;
verdicts of different prompt versions are never pooled. Judges are audited on Cockpit's canary runs
(`cockpit judge` judges them first): a judge that missed a canary, or whose reply on one could not be read, is
marked FLAGGED wherever its figures appear, with the canaries it missed."""


def add_parser(sub) -> None:
    p = sub.add_parser("agreement", help=HELP, description=DESCRIPTION)
    p.add_argument("--disagreements", action="store_true",
                   help="also list runs where the humans and a judge, or the annotators, disagree")
    p.add_argument("--judge", metavar="MODEL", help="with --disagreements: only this judge")
    p.add_argument("--k", type=int, metavar="K", help="with --disagreements: only this k (0 = all screenshots)")
    p.add_argument("--bins", type=int, default=10, help="bins of the steps histogram (default 10)")
    p.add_argument("--resamples", type=int, default=2000, metavar="N",
                   help="bootstrap resamples for the 95%% intervals (default 2000; 0: no intervals)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("--by", choices=("site", "agent", "level", "prompt-version"), metavar="SPLIT",
                   help="also give every judge's figures per site, agent, level or prompt-version")
    p.add_argument("--json", action="store_true", help="print everything as JSON")


def run(args) -> int:
    from cockpit.core.review import agreement
    from cockpit.core.review.bootstrap import Bootstrap
    if args.bins < 1:
        return common.fail("--bins must be at least 1", 2)
    if args.resamples < 0:
        return common.fail("--resamples must be 0 (no intervals) or more", 2)
    boot = Bootstrap(resamples=args.resamples, seed=args.seed) if args.resamples else None
    return common.store_report(
        lambda store: agreement.report(store, bins=args.bins, disagreement_list=args.disagreements or args.json,
                                       judge=args.judge, k=args.k, boot=boot, by=args.by),
        lambda rep: _print(rep, args.disagreements), args.json)


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _kappa(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def _print(rep: dict, show_disagreements: bool) -> None:
    _print_annotators(rep)
    _print_axes(rep)
    _print_judges(rep)
    _print_adjudication(rep)
    _print_intervals(rep)
    _print_split(rep)
    _print_canaries(rep)
    _print_success(rep)
    _print_assisted(rep)
    _print_failures_and_steps(rep)
    _print_not_executable(rep)
    if show_disagreements:
        _print_disagreements(rep)


def _print_annotators(rep: dict) -> None:
    print("Annotator pairs (Cohen's kappa; success/fail, unsure left out)")
    if rep["pairwise_cohen"]:
        w = max(len(r["annotator1"]) + len(r["annotator2"]) + 5 for r in rep["pairwise_cohen"])
        print(f"  {'pair':<{w}} {'n':>5} {'agree':>7} {'kappa':>7}")
        for r in rep["pairwise_cohen"]:
            pair = f"{r['annotator1']} vs {r['annotator2']}"
            print(f"  {pair:<{w}} {r['n']:>5} {_pct(r['agreement']):>7} {_kappa(r['kappa']):>7}")
    else:
        print("  no run labelled by two annotators")

    f = rep["fleiss"]
    print("\nFleiss' kappa (same three or more annotators)")
    if f["n_runs"]:
        print(f"  kappa {_kappa(f['kappa'])} over {plural(f['n_runs'], 'run')}, {plural(f['n_raters'], 'annotator')} "
              f"({', '.join(f['annotators'])})")
    else:
        print("  no run labelled by three annotators")


def _print_axes(rep: dict) -> None:
    titles = {"side_effects": "Side effects (did the agent change something nobody asked for?)",
              "repetition": "Repetition (did the agent loop?)"}
    for axis, a in rep["axes"].items():
        print(f"\n{titles[axis]}: annotators only, the judges answer success")
        if not a["answered"]:
            print("  no run answered yet (Review: X side effects, L repetition; `cockpit annotate --side-effects`)")
            continue
        print(f"  {plural(a['answered'], 'run')} with a majority answer, {a['seen']} of them yes ({_pct(a['rate'])})")
        for r in a["pairwise_cohen"]:
            print(f"  {r['annotator1']} vs {r['annotator2']}: n {r['n']}, agree "
                  f"{_pct_ci(r['agreement'], r.get('agreement_ci'))}, kappa {_kappa_ci(r['kappa'], r.get('kappa_ci'))}")
        f = a["fleiss"]
        if f["n_runs"]:
            print(f"  Fleiss' kappa {_kappa_ci(f['kappa'], f.get('kappa_ci'))} over {plural(f['n_runs'], 'run')}, "
                  f"{plural(f['n_raters'], 'annotator')} ({', '.join(f['annotators'])})")


def _print_judges(rep: dict) -> None:
    print("\nJudges vs human consensus (WebVoyager Table 2)")
    if rep["judges"]:
        w = max(max(len(r["judge"]) for r in rep["judges"]), 5)
        pw = max(max(len(r["prompt_version"]) for r in rep["judges"]), 6)
        print(f"  {'judge':<{w}} {'k':>3} {'prompt':<{pw}} {'n':>5} {'agree':>7} {'kappa':>7} {'undecided':>9} "
              f"{'by rule':>7}")
        for r in rep["judges"]:
            print(f"  {r['judge']:<{w}} {r['k_label']:>3} {r['prompt_version']:<{pw}} {r['n']:>5} "
                  f"{_pct(r['agreement']):>7} {_kappa(r['kappa']):>7} {r['undecided']:>9} {r['automatic']:>7}"
                  + _own(r) + _flag(r))
        _print_by_rule(rep["judges"])
        print("\nConfusion matrices (rows: humans, columns: judge)")
        for r in rep["judges"]:
            prompt = f"  prompt {r['prompt_version']}" if r["prompt_version"] else ""
            print(f"  {r['judge']}  k={r['k_label']}{prompt}")
            print(f"    {'':<14} {'judge success':>13} {'judge fail':>10}")
            print(f"    {'human success':<14} {r['tp']:>13} {r['fn']:>10}")
            print(f"    {'human fail':<14} {r['fp']:>13} {r['tn']:>10}")
    else:
        print("  no judge verdicts yet (see `cockpit judge`)")


def _own(r: dict) -> str:
    """After a judge's figures: that it has none, when every verdict it has on a run the humans decided is by rule."""
    return "  no verdict of its own" if not r["n"] and r.get("automatic") else ""


def _print_by_rule(judges: list[dict]) -> None:
    """What "by rule" means, when a judge has such verdicts."""
    rule = [r for r in judges if r["automatic"]]
    if not rule:
        return
    print("  by rule: runs that gave no answer, scored not success without asking the judge (WebVoyager's rule);\n"
          "  not the judge's judgement, so left out of its n, agreement, kappa and every figure below")
    for r in rule:
        print(f"    {plural(r['automatic'], 'verdict')} by rule for {r['judge']} k={r['k_label']} {r['prompt_version']}, "
              f"{r['automatic_agreeing']} of them as the humans say")


def _print_adjudication(rep: dict) -> None:
    adj = rep["adjudication"]
    print("\nAdjudication")
    changed = adj["changed"]
    print(f"  {adj['adjudicated']} run{'' if adj['adjudicated'] == 1 else 's'} adjudicated, {len(changed)} of them changing the consensus"
          + (f" ({', '.join(changed[:10])}{', ...' if len(changed) > 10 else ''})" if changed else ""))
    if not rep["judges"]:
        return
    print("\nJudges before and after adjudication (precision, recall: the judge's success is the positive class)")
    w = max(max(len(r["judge"]) for r in rep["judges"]), 5)
    pw = max(max(len(r["prompt_version"]) for r in rep["judges"]), 6)
    print(f"  {'judge':<{w}} {'k':>3} {'prompt':<{pw}} {'':<6} {'n':>5} {'agree':>7} {'kappa':>7} "
          f"{'precision':>9} {'recall':>7}")
    for pair in zip(rep["judges"], adj["judges"]):  # the same (judge, k, prompt) rows, in the same order
        for when, r in zip(("before", "after"), pair):
            print(f"  {r['judge']:<{w}} {r['k_label']:>3} {r['prompt_version']:<{pw}} {when:<6} {r['n']:>5} "
                  f"{_pct(r['agreement']):>7} {_kappa(r['kappa']):>7} {_pct(r['precision']):>9} "
                  f"{_pct(r['recall']):>7}" + _own(r))


def _pct_ci(x, ci) -> str:
    return _pct(x) + ("" if ci is None else f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]")


def _kappa_ci(x, ci) -> str:
    return _kappa(x) + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")


def _gap_ci(x, ci) -> str:
    if x is None:
        return "-"
    return f"{100 * x:+.1f} pts" + ("" if ci is None else f" [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]")


def _print_intervals(rep: dict) -> None:
    """Every figure above with its interval, one line per comparison."""
    if "intervals" not in rep:
        return
    rows = [(f"{r['annotator1']} vs {r['annotator2']}", r["n"], _pct_ci(r["agreement"], r.get("agreement_ci")),
             _kappa_ci(r["kappa"], r.get("kappa_ci")), "", "", "", "") for r in rep["pairwise_cohen"]]
    f = rep["fleiss"]
    if f["n_runs"]:
        rows.append((f"Fleiss: {', '.join(f['annotators'])}", f["n_runs"], "", _kappa_ci(f["kappa"], f.get("kappa_ci")),
                     "", "", "", ""))
    for when, judges in (("", rep["judges"]), (" (adjudicated)", rep["adjudication"]["judges"])):
        for r in judges:
            rows.append((f"{r['judge']} k={r['k_label']} {r['prompt_version']}{when}", r["n"],
                         _pct_ci(r["agreement"], r.get("agreement_ci")), _kappa_ci(r["kappa"], r.get("kappa_ci")),
                         _pct_ci(r["precision"], r.get("precision_ci")), _pct_ci(r["recall"], r.get("recall_ci")),
                         _pct_ci(r["fpr"], r.get("fpr_ci")), _gap_ci(r["gap"], r.get("gap_ci"))
                         + _own(r) + _flag(r)))
    print(f"\nWith {rep['intervals']}")
    _table(rows)


def _flag(r: dict) -> str:
    return "  FLAGGED" if r.get("canary", {}).get("flagged") else ""


def _table(rows: list[tuple]) -> None:
    if not rows:
        print("  nothing to compare yet")
        return
    head = ("comparison", "n", "accuracy", "kappa", "precision", "recall", "false pos.", "gap (judge - humans)")
    widths = [max(len(str(row[i])) for row in rows + [head]) for i in range(len(head))]
    for row in [head] + rows:
        print("  " + "  ".join(str(c).rjust(w) if i == 1 else str(c).ljust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())


def _print_split(rep: dict) -> None:
    """The judges per group of ``--by``: each figure with its interval when there are intervals."""
    if "split" not in rep:
        return
    by = rep["split"]["by"]
    print(f"\nJudges vs human consensus by {by}" + (f" ({rep['intervals']})" if "intervals" in rep else ""))
    rows = [(f"{r['group']}: {r['judge']} k={r['k_label']} {r['prompt_version']}", r["n"],
             _pct_ci(r["accuracy"], r.get("accuracy_ci")), _kappa_ci(r["kappa"], r.get("kappa_ci")),
             _pct_ci(r["precision"], r.get("precision_ci")), _pct_ci(r["recall"], r.get("recall_ci")),
             _pct_ci(r["fpr"], r.get("fpr_ci")), _gap_ci(r["gap"], r.get("gap_ci")) + _own(r) + _flag(r))
            for r in rep["split"]["judges"]]
    _table(rows)


def _print_canaries(rep: dict) -> None:
    """Each judge on the canary runs; a flagged judge's missed canaries by name."""
    from cockpit.core.review.canary_audit import describe
    if not rep["judges"]:
        return
    print("\nJudges on the canary runs (known outcomes; `cockpit judge` judges them first)")
    seen = set()
    for r in rep["judges"]:
        key = (r["judge"], r["k_label"], r["prompt_version"])
        if key in seen or r["judge"].startswith("ref:"):
            continue
        seen.add(key)
        print(f"  {r['judge']} k={r['k_label']} {r['prompt_version']}: {describe(r['canary'])}")
    not_binary = sum(r["not_binary"] for r in rep["judges"])
    if not_binary:
        print(f"  ({plural(not_binary, 'verdict')} on runs whose human consensus is neither success nor fail "
              "left out)")


def _print_success(rep: dict) -> None:
    for j in rep.get("rates_leave_out", []):
        print(f"\nLeft out of the success rates: the verdicts of judge {j['judge']} (k={j['k']}, "
              f"{j['prompt_version']}), which the canary runs flagged ({plural(j['runs'], 'run')} it would decide)")
    for key, what in (("success_by_site", "site"), ("success_by_model", "model")):
        rows = rep[key]
        print(f"\nSuccess rate by {what}")
        if not rows:
            print("  no finished runs")
            continue
        w = max(max(len(r[what] or "(none)") for r in rows), len(what))
        print(f"  {what:<{w}} {'n':>5} {'success':>7} {'rate':>7}  from")
        for r in rows:
            src = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in r["sources"].items() if v)
            print(f"  {r[what] or '(none)':<{w}} {r['n']:>5} {r['successes']:>7} {_pct(r['rate']):>7}  {src}")


def _print_assisted(rep: dict) -> None:
    a = rep["assisted"]
    print("\nAutonomous and assisted success (assisted: a person approved, rejected, edited, took over, left a "
          "note or resumed a breakpoint)")
    if not a["n"]:
        print("  no runs with a known outcome")
        return
    print(f"  {plural(a['n'], 'run')}: success {a['success']} ({_pct(a['assisted_rate'])}) counting the help people gave, "
          f"{a['autonomous']} ({_pct(a['autonomous_rate'])}) without it; {a['assisted_runs']} "
          f"{noun(a['assisted_runs'], 'run')} had interventions, {a['assisted_successes']} of them "
          "succeeded")
    if len(a["by_model"]) > 1:
        w = max(max(len(r["model"] or "(none)") for r in a["by_model"]), 5)
        print(f"  {'model':<{w}} {'n':>5} {'assisted':>9} {'autonomous':>10}")
        for r in a["by_model"]:
            print(f"  {r['model'] or '(none)':<{w}} {r['n']:>5} {_pct(r['assisted_rate']):>9} "
                  f"{_pct(r['autonomous_rate']):>10}")
    if a["runs"]:
        print("  runs with interventions:")
        names = {1: "success", 0: "fail", None: "unknown"}
        for r in a["runs"]:
            print(f"    {r['run_id']}  {names[r['outcome']]:<7}  {r['described']}")


def _print_failures_and_steps(rep: dict) -> None:
    print("\nFailure categories (runs the humans failed)")
    cats = rep["failure_categories"]
    if cats:
        total = sum(cats.values())
        w = max(len(c or "(none)") for c in cats)
        for c, n in cats.items():
            print(f"  {c or '(none)':<{w}} {n:>5} {_pct(n / total):>7}")
    else:
        print("  no failed runs")

    print("\nSteps per run")
    if rep["steps_histogram"]:
        for b in rep["steps_histogram"]:
            print(f"  [{b['lo']:>3}, {b['hi']:>3}) {b['count']:>5}  {'#' * min(b['count'], 60)}")
    else:
        print("  no finished runs")


def _print_not_executable(rep: dict) -> None:
    ne = rep["not_executable"]
    print(f"\nNot executable (the task could not be attempted; not counted as failures): {plural(ne['count'], 'run')}")
    for r in ne["runs"]:
        why = "; ".join(f"{who}: {reason or 'no reason given'}" for who, reason in r["reasons"].items())
        print(f"  {r['run_id']}  {r['task'][:60]}  ({why})")


def _print_disagreements(rep: dict) -> None:
    print("\nDisagreements")
    if rep["disagreements"]:
        for d in rep["disagreements"]:
            print(f"  {d['run_id']}  {d['task'][:70]}")
            for reason in d["reasons"]:
                print(f"      {reason}")
    else:
        print("  none")
