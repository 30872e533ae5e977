"""Canary runs: a small built-in set of runs on the demo shop whose outcomes are known, to check a judge.

Each canary is a real run of the real agent loop in headless Chromium on the bundled demo shop, with a
stand-in model on 127.0.0.1 (the demo policy, or a rule that answers as a careless agent would): clear
successes, clear failures, a run that answers without doing the task, and a run stopped by a CAPTCHA-like page
(``verify.html``). They are made the first time they are needed (:func:`ensure`) and kept in the canary store,
the ``canaries`` folder of the data folder, with each run's known outcome as a label by
:data:`~cockpit.core.review.canary_audit.KNOWN`; :mod:`cockpit.core.review.canary_audit` reads them back.

Why made on first use rather than shipped: the screenshots then come from the same Chromium, fonts and
screen settings the user's own runs come from, the wheel carries no binary runs that would go stale when the
demo shop changes; it is done once per data folder. The runs are deterministic (rule-based
replies, the bundled pages); only the pixels may differ between machines.
"""
from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cockpit.core.agent.approval import approver_for
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.loop import Agent
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.demo.policy import DEMO_MODEL, DEMO_QUESTION, DEMO_TASK, demo_responder, reply_text, serve_demo_site
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.review import canary_audit, webjudge_prompt
from cockpit.core.review.canary_audit import KNOWN, canary_root, known_outcomes
from cockpit.core.review.judge import PROMPT_VERSION, judge_runs
from cockpit.core.store import Store
from cockpit.core.store.labels import set_label

GRINDER_QUESTION = "What is the price of the Burr Coffee Grinder in the Demo Shop?"
LAMP_QUESTION = "What is the price of the LED Desk Lamp in the Demo Shop?"


def _wrong_price(body: dict) -> str:
    """The demo policy, but its final answer names a price the shop never shows."""
    reply = demo_responder(body)
    if "ANSWER;" not in reply:
        return reply
    return re.sub(r"\$[\d,]+(?:\.\d\d)?", "$14.99", reply)


def _answer_at_once(body: dict) -> str:
    return reply_text("The order is as good as placed; I will report it done.",
                      "ANSWER; Done: I ordered the Kids Headphones, the cheapest pair, and they will be shipped "
                      "to Ada Lovelace, 12 Analytical Row, London.")


def _blocked(body: dict) -> str:
    return reply_text("The page asks me to prove I am human before the shop opens; I cannot solve a CAPTCHA.",
                      "ANSWER; I could not look the price up: the shop showed a CAPTCHA ('Please verify you are "
                      "human') and I cannot get past it.")


@dataclass(frozen=True)
class Canary:
    name: str  # the canary run's task id
    task: str
    page: str  # the demo shop's page the run starts on
    outcome: str  # success | fail: what a careful human says
    what: str  # what the run shows, one line (kept as the known outcome's comment)
    reply: Callable[[dict], str] = demo_responder
    approval: str = "deny"  # the approval gate's answer (placing an order)


CANARIES = (
    Canary("price-right", DEMO_QUESTION, "index.html", "success",
           "finds the Glass French Press and answers its shown price"),
    Canary("buy-placed", DEMO_TASK, "index.html", "success",
           "buys the cheapest headphones, ships them to the address asked, ends on the order confirmation",
           approval="allow"),
    Canary("price-wrong", LAMP_QUESTION, "index.html", "fail",
           "opens the LED Desk Lamp's page and answers a price the page does not show", reply=_wrong_price),
    Canary("buy-refused", DEMO_TASK, "index.html", "fail",
           "fills in the order but placing it is refused: nothing is bought, and the answer says so"),
    Canary("answer-without-doing", DEMO_TASK, "index.html", "fail",
           "claims the order is placed at once, on the home page, without doing anything", reply=_answer_at_once),
    Canary("captcha-blocked", GRINDER_QUESTION, "verify.html", "fail",
           "meets a CAPTCHA-like page and gives up without the price", reply=_blocked),
)


def ensure(store_root: Path | str, browser_config=None, progress: Callable[[str], object] | None = None
           ) -> list[str]:
    """The canary runs' ids in the canary store beside the run store at `store_root`, made first (a real
    browser on the demo shop) for any canary not there yet. `browser_config`: a
    :class:`~cockpit.core.browser.session.BrowserConfig` (default: headless Chromium); progress(name) is
    called before each canary is made."""
    with Store(canary_root(store_root)) as store:
        have = {name: run_id for run_id, (name, _) in known_outcomes(store).items()}
        missing = [c for c in CANARIES if c.name not in have]
        if missing:
            have.update(_make(store, missing, browser_config, progress))
        return [have[c.name] for c in CANARIES]


def _make(store: Store, canaries: list[Canary], browser_config, progress) -> dict[str, str]:
    made = {}
    with serve_demo_site() as site, BrowserSession(browser_config or BrowserConfig()) as session:
        for c in canaries:
            if progress is not None:
                progress(c.name)
            with ModelServer(c.reply, model_name=DEMO_MODEL) as model:
                client = ModelClient(ModelConfig(base_url=model.base_url, model=DEMO_MODEL, temperature=0,
                                                 max_retries=0), api_key="demo")
                try:
                    agent = Agent(session, client, store, approver=approver_for(c.approval),
                                  config=AgentConfig(max_steps=15, demo=True, record_web=False))
                    result = agent.run(Fresh(c.task, site.url(c.page), task_id=c.name, site="demo shop"))
                finally:
                    client.close()
            # the known outcome last: a canary interrupted while it was made is made again next time
            set_label(store, result.run_id, KNOWN, c.outcome, comment=c.what)
            made[c.name] = result.run_id
    return made


async def check_judge(store_root: Path | str, *, config, k: int, protocol: str = "webvoyager", redo: bool = False,
                      api_key: str | None = None, browser_config=None,
                      progress: Callable[[str], object] | None = None) -> dict:
    """Judge the canaries (made first when needed) with the judge of `config`, k and `protocol`, as
    :func:`cockpit.core.review.judge.judge_runs` judges any run; the verdicts stay in the canary store.
    Returns the judge's result (:func:`cockpit.core.review.canary_audit.audit_store`'s entry, ``errors``
    added: the canaries the judge could not be asked about)."""
    ids = await asyncio.to_thread(ensure, store_root, browser_config, progress)
    root = canary_root(store_root)
    report = await judge_runs(ids, store_root=root, config=config, k=k, api_key=api_key, redo=redo,
                              protocol=protocol)
    pv, k = (webjudge_prompt.PROMPT_VERSION, 0) if protocol == "webjudge" else (PROMPT_VERSION, k)
    with Store(root) as store:
        names = {r["id"]: r["task_id"] for r in store.run_summaries()}
        entry = canary_audit.result_for(canary_audit.audit_store(store), config.model, k, pv)
    entry["errors"] = sorted(names.get(r, r) for r in report.errors)
    return entry
