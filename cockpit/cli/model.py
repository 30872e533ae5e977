"""`cockpit model check-pointing`: does Cockpit read the model's points where the model means them?"""
from __future__ import annotations

import sys

from cockpit.cli import common

HELP = ("check-pointing: ask a pixel model to click labelled targets and say where its clicks land (are its "
        "coordinates read right?)")


def add_parser(sub) -> None:
    p = sub.add_parser("model", help=HELP, description=HELP + ".")
    what = p.add_subparsers(dest="model_command", metavar="COMMAND", required=True)
    check = what.add_parser(
        "check-pointing", help="ask the model to click each target of a local calibration page",
        description="Open a local calibration page with 9 labelled targets (corners included) in a headless "
                    "browser, ask the configured pixel model to click each one (one request per target, as a run's "
                    "first step), and report where each click lands against its target and which coordinate space "
                    "and scale explain the clicks, naming the option that fixes a wrong one (--coords, "
                    "--qwen-max-pixels, --device-scale-factor). Exit status: 0 when the setting is right, 1 when "
                    "another reading fits the clicks better, 2 on errors.")
    common.add_model_options(check)
    common.add_browser_options(check)


def run(args) -> int:
    from cockpit.core.agent.pointcheck import check_pointing
    from cockpit.core.browser.session import BrowserSession
    from cockpit.core.errors import CockpitError
    from cockpit.core.llm.client import ModelClient
    mc = common.model_config(args)

    def progress(i: int, n: int, label: str) -> None:
        print(f"cockpit: asking the model to click target {label} ({i + 1} of {n})", file=sys.stderr, flush=True)

    try:
        with ModelClient(mc) as client, BrowserSession(common.browser_config(args)) as session:
            report = check_pointing(session, client, on_progress=progress)
    except CockpitError as e:
        return common.fail(str(e), 2)
    print("\n".join(report.lines()))
    return 1 if report.fix else 0
