"""`cockpit run` options for the world-model preview and planning mode (issue #7)."""
from __future__ import annotations

import argparse
import dataclasses


def add_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("look-ahead (world-model preview and planning; extra model calls)")
    g.add_argument("--preview-model", metavar="M",
                   help="before each action, ask model M (any OpenAI-compatible one) what the action will change; "
                        "shown at the approval prompt and stored with the step beside what really changed")
    g.add_argument("--preview-base-url", metavar="URL",
                   help="server of the preview model (default: the agent's --base-url)")
    g.add_argument("--plan", action="store_true",
                   help="planning mode: the agent proposes several candidate actions, the preview model (or the "
                        "agent's model) simulates and scores each, the best one runs (through the approval gate)")
    g.add_argument("--plan-k", type=int, default=3, metavar="K", help="candidates per step (default 3)")
    g.add_argument("--plan-horizon", type=int, default=1, metavar="H",
                   help="simulated steps per candidate (default 1; longer rollouts drift)")
    g.add_argument("--plan-samples", type=int, default=1, metavar="N",
                   help="scorer replies averaged per candidate (default 1)")
    g.add_argument("--no-plan-refine", action="store_true",
                   help="simulate every candidate instead of letting the model drop irrelevant ones first")


def apply(args, mc, ac):
    """The agent config with the preview and planning settings of `args` (CockpitError when invalid)."""
    from cockpit.core.errors import CockpitError
    from cockpit.core.lookahead.planning import PlanningConfig
    from cockpit.core.lookahead.worldmodel import WorldModelConfig
    preview = None
    if args.preview_base_url and not args.preview_model:
        raise CockpitError("--preview-base-url needs --preview-model")
    if args.preview_model:
        # The agent's call settings (timeouts, retries, image options) carry over; --price only for the
        # very same model.
        base_url = args.preview_base_url or mc.base_url
        model = dataclasses.replace(mc, model=args.preview_model, base_url=base_url)
        if (args.preview_model, base_url) != (mc.model, mc.base_url):
            model = dataclasses.replace(model, price_in=None, price_out=None)
        preview = WorldModelConfig(model=model)
    planning = None
    if args.plan:
        planning = PlanningConfig(k=args.plan_k, horizon=args.plan_horizon, samples=args.plan_samples,
                                  refine=not args.no_plan_refine)
    elif (args.plan_k, args.plan_horizon, args.plan_samples) != (3, 1, 1) or args.no_plan_refine:
        raise CockpitError("--plan-k, --plan-horizon, --plan-samples and --no-plan-refine need --plan")
    return dataclasses.replace(ac, preview=preview, planning=planning)
