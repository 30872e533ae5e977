"""`cockpit tiers`: each task's difficulty tier from a person's own attempt, and the agent/human step ratio."""
from __future__ import annotations

from cockpit.cli import common
from cockpit.core.words import plural

HELP = "difficulty tiers from people's own attempts at tasks, and each agent run's agent/human step ratio"

DESCRIPTION = HELP + """. A person's own attempt is a run made in the window with Run > Attempt it yourself
(its model is "human"). As Online-Mind2Web defines them, a task a person did in 5 steps or fewer is easy, in
6 to 10 medium, in 11 or more hard. Steps are counted without the final ANSWER step, for people and agents
alike; a task's human steps are the fewest of its answered attempts; attempts given up give no tier and are
counted apart. Each agent run of a task that has a human step count gets the ratio agent steps / human steps
(the mean per model closes the report)."""


def add_parser(sub) -> None:
    p = sub.add_parser("tiers", help=HELP, description=DESCRIPTION)
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args) -> int:
    from cockpit.core.review.tiers import tier_report
    return common.store_report(tier_report, print_report, args.json)


def print_report(rep: dict) -> None:
    if not rep["tasks"]:
        print("No human attempt yet: in the window, Run > Attempt it yourself (Ctrl+Shift+H), or Review's "
              "\"Attempt this task yourself\" on an agent's run.")
        return
    print("Tiers: " + ", ".join(f"{name} {plural(n, 'task')}" for name, n in rep["tiers"].items()))
    for t in rep["tasks"]:
        human = ("no answered attempt" if t["human_steps"] is None
                 else f"{plural(t['human_steps'], 'human step')}")
        gave_up = f", {t['gave_up']} given up" if t["gave_up"] else ""
        print(f"\n{t['task_key'][:70]}  [{t['tier'] or '-'}]  {human}{gave_up}")
        for a in t["agents"]:
            ratio = "-" if a["ratio"] is None else f"{a['ratio']:.2f}"
            print(f"  {a['run_id']:<14} {a['model'][:24]:<24} {a['status']:<10} {plural(a['steps'], 'step'):>9}"
                  f"  ratio {ratio}")
    if rep["mean_ratio"]:
        print("\nMean agent/human step ratio: " + "; ".join(f"{m} {r:.2f}" for m, r in rep["mean_ratio"].items()))
