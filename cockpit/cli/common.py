"""Options and helpers shared by sub-commands that drive a browser."""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from cockpit.core.browser.session import BrowserConfig
from cockpit.core.tasks.starturl import StartAddress, StartAddressError, start_address


def viewport(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        if not (200 <= w <= 8000 and 200 <= h <= 8000):
            raise ValueError
        return w, h
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a viewport like 1024x768") from None


def scale_factor(text: str) -> float:
    try:
        value = float(text)
        if not 0.5 <= value <= 4:
            raise ValueError
        return value
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a device scale factor from 0.5 to 4, like 1 or 2") from None


def add_browser_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("browser")
    g.add_argument("--viewport", type=viewport, default=(1024, 768), metavar="WxH",
                   help="page viewport in CSS pixels (default 1024x768)")
    g.add_argument("--device-scale-factor", type=scale_factor, default=1.0, metavar="X",
                   help="screenshot pixels per CSS pixel (default 1; 2 gives a HiDPI 2048x1536 screenshot of a "
                        "1024x768 viewport, for models trained on such screens; pixel models' points are "
                        "converted either way)")
    g.add_argument("--webdriver-url", metavar="URL",
                   help="use a remote WebDriver / Selenium Grid instead of local Chromium")
    g.add_argument("--session-start-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="with --webdriver-url: how long to keep asking for a browser (a Grid queues requests "
                        "while its slots are busy; a batch stops when none comes; default 300)")
    g.add_argument("--chrome-arg", action="append", default=[], metavar="ARG",
                   help="an extra Chrome command-line argument, repeatable; write it with '=' "
                        "(--chrome-arg=--no-sandbox, needed on a Grid node run as root)")
    g.add_argument("--headed", action="store_true", help="show the browser window (needs a display)")
    g.add_argument("--chrome", metavar="PATH", help="Chrome/Chromium binary (default: found on this machine)")
    g.add_argument("--chromedriver", metavar="PATH", help="chromedriver binary (default: found on this machine)")


def browser_config(args) -> BrowserConfig:
    return BrowserConfig(viewport=args.viewport, device_scale_factor=args.device_scale_factor, headless=not args.headed,
                         webdriver_url=args.webdriver_url, chrome_binary=args.chrome,
                         chromedriver=args.chromedriver, extra_args=list(args.chrome_arg),
                         session_start_timeout=args.session_start_timeout)


#: A page argument that names no page: a missing file, a folder, an odd scheme (bad input, exit 2).
BadTarget = StartAddressError


def start_url(target: str) -> StartAddress:
    """`target` read as the window's URL field reads it (core.tasks.starturl.start_address); a guess is said."""
    addr = start_address(target)
    if addr.note:
        print(f"cockpit: note: {addr.note}", file=sys.stderr)
    return addr


@contextlib.contextmanager
def serve_if_file(target: str):
    """Yield a URL for `target`: a web address as is, a local HTML file (a path or a file:// URL) served on
    127.0.0.1. Raises BadTarget, before anything starts, when it names no page."""
    addr = start_url(target)
    if addr.path is not None:
        from cockpit.core.localserver import LocalSite
        with LocalSite(addr.path.parent) as site:
            yield site.url(addr.path.name)
    else:
        yield addr.url


def fail(msg: str, code: int = 1) -> int:
    print(f"cockpit: error: {msg}", file=sys.stderr)
    return code




def store_report(compute, show, as_json: bool) -> int:
    """A report over the run store: `compute(store)` (runs whose process died marked interrupted first), printed
    as JSON or by `show(report)`; a store that cannot be read exits 2 saying why (agreement, hops, tiers)."""
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store, liveness
    try:
        with Store() as store:
            liveness.mark_interrupted(store)
            rep = compute(store)
    except CockpitError as e:
        return fail(str(e), 2)
    if as_json:
        print(json.dumps(rep, indent=1, default=str))
    else:
        show(rep)
    return 0


class Added:
    """An argument group that keeps the options added to it by dest (argparse keeps a parser's own list private),
    so a command can restate an option's help or default: ``add_model_options(p)["temperature"].help = …``."""

    def __init__(self, group):
        self.group, self.actions = group, {}

    def add_argument(self, *flags, **kw) -> argparse.Action:
        action = self.group.add_argument(*flags, **kw)
        self.actions[action.dest] = action
        return action


def add_model_options(p: argparse.ArgumentParser, *, from_run: bool = False) -> dict[str, argparse.Action]:
    """The model options, returned by dest; `from_run`: for a command going on from a recorded run (resume,
    branch), where an option not given means "as in that run" (None), and the help texts name the usual
    defaults."""
    g = Added(p.add_argument_group("model (any OpenAI-compatible chat endpoint)"))
    g.add_argument("--base-url", metavar="URL",
                   help="server URL, e.g. http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama), "
                        "http://localhost:1234/v1 (LM Studio); default: OpenAI")
    g.add_argument("--model", default="gpt-4o", help="model name as the server knows it (default gpt-4o)")
    g.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (default 1.0)")
    g.add_argument("--max-tokens", type=int, default=1000, help="reply length limit (default 1000)")
    g.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                   help="per-request timeout (default 120)")
    g.add_argument("--retries", type=int, default=4, help="retries on 429/5xx/timeouts (default 4)")
    g.add_argument("--image-detail", choices=("auto", "low", "high"), default="auto",
                   help="image detail sent to the model; low is cheapest (default auto)")
    g.add_argument("--image-max-width", type=int, metavar="PX",
                   help="downscale screenshots wider than this before sending")
    g.add_argument("--image-format", choices=("jpeg", "png"), default="jpeg",
                   help="how screenshots are sent to the model: jpeg is about 5x faster to encode, png is "
                        "lossless as in WebVoyager; stored as PNG either way (default jpeg)")
    g.add_argument("--price", metavar="IN,OUT",
                   help="USD per million prompt,completion tokens, for models Cockpit has no price for")
    from cockpit.core.llm.modelconfig import PRESET_ALIASES, PRESETS
    g.add_argument("--preset", type=preset, metavar="NAME",
                   help="how the model answers: " + "; ".join(f"{k}: {v[2]}" for k, v in PRESETS.items())
                        + " (default webvoyager-marks; the earlier names " + ", ".join(PRESET_ALIASES)
                        + " still work)")
    from cockpit.core.llm.modelconfig import DIALECT_NAMES
    g.add_argument("--dialect", choices=DIALECT_NAMES,
                   help="the reply format, overriding the preset's (pixel dialects get a clean screenshot)")
    g.add_argument("--coords", choices=("pixels", "norm1000", "norm1", "qwen"),  # coords.SPACES
                   help="a pixel dialect's coordinate space, overriding the preset's: screenshot pixels, "
                        "0..1000, 0..1, or Qwen2.5-VL's resized grid")
    g.add_argument("--qwen-min-pixels", type=pixels, metavar="N",
                   help="the qwen space: the min_pixels the server's Qwen processor was started with "
                        "(default: the model card's 3136)")
    g.add_argument("--qwen-max-pixels", type=pixels, metavar="N",
                   help="the qwen space: the max_pixels the server's Qwen processor was started with, e.g. "
                        "1003520 for vLLM's --mm-processor-kwargs '{\"max_pixels\": 1003520}' (default: the model "
                        "card's 12845056); it decides the grid the model points on")
    if from_run:
        p.set_defaults(model=None, temperature=None, max_tokens=None, timeout=None, retries=None,
                       image_detail=None, image_format=None)
    return g.actions


def preset(text: str) -> str:
    from cockpit.core.llm.modelconfig import preset_named
    try:
        return preset_named(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def pixels(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
        if not 784 <= value <= 100_000_000:
            raise ValueError
        return value
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a pixel count from 784 to 100000000") from None


def model_config(args):
    from cockpit.core.llm.client import ModelConfig
    price_in = price_out = None
    if args.price:
        try:
            price_in, price_out = (float(v) for v in args.price.split(","))
        except ValueError:
            raise SystemExit(fail(f"--price wants two numbers like 2.5,10, not {args.price!r}", 2)) from None
    from cockpit.core.llm.modelconfig import PRESETS
    dialect, coords, _ = PRESETS[getattr(args, "preset", None) or "webvoyager-marks"]
    config = ModelConfig(base_url=args.base_url, model=args.model, temperature=args.temperature,
                         max_tokens=args.max_tokens, timeout=args.timeout, max_retries=args.retries,
                         image_detail=args.image_detail, image_max_width=args.image_max_width,
                         image_format=args.image_format, price_in=price_in, price_out=price_out,
                         dialect=getattr(args, "dialect", None) or dialect, coords=getattr(args, "coords", None) or coords,
                         qwen_min_pixels=getattr(args, "qwen_min_pixels", None),
                         qwen_max_pixels=getattr(args, "qwen_max_pixels", None))
    try:
        config.qwen_budget()
    except ValueError as e:
        raise SystemExit(fail(f"{e} (--qwen-min-pixels, --qwen-max-pixels)", 2)) from None
    return config


def add_agent_options(p: argparse.ArgumentParser, approval_default: str = "ask") -> dict[str, argparse.Action]:
    """The agent options, returned by dest."""
    g = Added(p.add_argument_group("agent"))
    g.add_argument("--max-steps", type=int, default=15, help="step budget per task (default 15)")
    g.add_argument("--keep-images", type=int, default=3, metavar="N",
                   help="screenshots attached to each request; older ones become a note (default 3)")
    g.add_argument("--approval", choices=("ask", "deny", "allow"), default=approval_default,
                   help="who answers the approval gate: ask on the terminal (deny when there is none), "
                        f"deny, or allow (default {approval_default})")
    g.add_argument("--ask-before", choices=("irreversible", "every", "never"), default="irreversible",
                   help="which actions go through the gate: irreversible ones (default), every action, none")
    g.add_argument("--memory", type=int, default=0, metavar="K",
                   help="procedural memory: include the action sequences of the K most similar past "
                        "successful runs as examples in the prompt (default 0 = off)")
    g.add_argument("--rules", metavar="FILE", type=Path,
                   help="per-site risk rules (JSON); default: risk_rules.json in the data dir if present")
    g.add_argument("--record-web", choices=("on", "off"), default="on",
                   help="record every request and response and each step's page in the run's folder, for "
                        "replaying as recorded (branch --recorded), inspecting steps and HAR export (default on)")
    return g.actions


def agent_config(args, *, demo: bool = False):
    from cockpit.core.agent.loop import AgentConfig
    from cockpit.core.errors import CockpitError
    from cockpit.core.safety.risk import default_rules_path, load_rules
    if args.rules and not args.rules.is_file():  # only the default file may be absent
        raise CockpitError(f"the risk rules file {args.rules} does not exist")
    rules = load_rules(args.rules or default_rules_path())
    return AgentConfig(max_steps=args.max_steps, keep_images=args.keep_images,
                       approval_policy=args.ask_before, risk_rules=rules, demo=demo,
                       memory_k=max(0, getattr(args, "memory", 0) or 0),
                       record_web=getattr(args, "record_web", "on") != "off")
