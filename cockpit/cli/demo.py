"""`cockpit demo`: the agent on the bundled demo shop, driven by the offline demo policy."""
from __future__ import annotations

import sys

from cockpit.cli import common
from cockpit.cli.progress import StepPrinter

HELP = ("open the window on the bundled demo shop with the offline demo policy (no key needed); "
        "--headless runs it in the terminal")


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help=HELP, description=(
        HELP + ". The shop is served on 127.0.0.1 and the 'model' is a rule-based demo policy "
        "behind the same OpenAI-compatible API a real model uses. The run stops at the approval "
        "gate before 'Place order': on a terminal you are asked; with no terminal it is refused."))
    p.add_argument("--task", help="another task for the demo policy (default: the bundled shopping task)")
    p.add_argument("--headless", action="store_true",
                   help="no cockpit window: run in the terminal (the browser is headless either way)")
    p.add_argument("--approval", choices=("ask", "deny", "allow"), default="ask",
                   help="answer to the approval gate (default ask; deny when there is no terminal)")
    p.add_argument("--max-steps", type=int, default=15, help="step budget (default 15, as in the window)")
    common.add_browser_options(p)


def run(args) -> int:
    if not args.headless:
        return _window(args)
    return _headless(args)


def _window(args) -> int:
    from cockpit.core.demo import policy as demo
    from cockpit.core.errors import CockpitError
    from cockpit.ui.app import run_window
    try:
        return run_window(demo=True, task=args.task or demo.DEMO_TASK, url="demo:index.html")
    except CockpitError as e:
        return common.fail(f"{e}", 2)


def _headless(args) -> int:
    from cockpit.core.agent.approval import approver_for
    from cockpit.core.agent.loop import Agent, AgentConfig
    from cockpit.core.agent.start import Fresh
    from cockpit.core.browser.session import BrowserSession
    from cockpit.core.demo import policy as demo
    from cockpit.core.errors import CockpitError
    from cockpit.core.llm.client import ModelClient, ModelConfig
    from cockpit.core.store import Store
    task = args.task or demo.DEMO_TASK
    print("cockpit demo: the model is Cockpit's offline DEMO POLICY (rule-based, no AI, no key); "
          "the shop is the bundled demo site on 127.0.0.1.", file=sys.stderr)
    try:
        with demo.serve_demo_site() as site, \
                demo.serve_demo_model() as model, Store() as store, \
                BrowserSession(common.browser_config(args)) as session:
            client = ModelClient(ModelConfig(base_url=model.base_url, model=demo.DEMO_MODEL, temperature=0,
                                             max_retries=0), api_key="demo")
            agent = Agent(session, client, store, config=AgentConfig(max_steps=args.max_steps, demo=True),
                          approver=approver_for(args.approval), listener=StepPrinter())
            result = agent.run(Fresh(task, site.url("index.html")))
            client.close()
    except CockpitError as e:
        return common.fail(str(e), 3)
    print(result.answer if result.answer is not None else f"({result.status}: {result.error})")
    print(f"cockpit demo: recorded as run {result.run_id}; see `cockpit runs {result.run_id}`", file=sys.stderr)
    return 0 if result.status != "failed" else 1
