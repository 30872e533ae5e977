"""The simulator: a rule-based stand-in that replies as real models do, for trying Cockpit without a GPU.

What it is for: seeing the window as it is with a real vision model (a reply takes seconds and streams in,
and now and then it is wrong) without a model. Tests of the window's waiting states use it too, with
shorter waits. It is served behind the OpenAI chat API by :class:`~cockpit.core.llm.modelserver.ModelServer`
(:func:`serve_simulator`), so the agent loop, streaming, the gate and recording run as they do for a model.

How it replies: it reads only the request, as the demo policy does (:mod:`cockpit.core.demo.policy`). On the
Demo Shop, with a shop task, it decides as the demo policy does; anywhere else it works from the page's
marks: a field to type the task's search into, else the element whose words share most with the task's,
else it answers with what the page is. Then, as a model would:

* it takes seconds: each reply's whole time is drawn from ``latency`` (2 to 8 s by default), the pieces
  streamed at about ``tokens_per_second`` after a first wait;
* now and then (``unreadable``) the reply is one the Set-of-Mark dialect cannot read (the action in prose,
  or no Action line), which costs a step and a "Format ERROR" as it does with a model;
* now and then (``wrong_target``) a click or a typed text goes to the next mark instead of the right one.

Its choices are drawn from a generator seeded by ``seed``, the task and the step, so the same run goes the
same way again. It answers only to its own name (:data:`SIM_MODEL`, "cockpit-simulator"; any other model
name is a 404, as a server without that model answers) and never echoes another, so no run it made can be
taken for a real model's. It speaks Set-of-Mark only: a request without an element list (a pixel dialect)
gets an answer saying so. It never touches the network beyond its own loopback port.
"""
from __future__ import annotations

import random
import re
import threading
from dataclasses import dataclass

from cockpit.core.demo import policy
from cockpit.core.demo.page import Element, ShopPage
from cockpit.core.demo.request import Request, read_request
from cockpit.core.llm import sse
from cockpit.core.llm.modelserver import ModelServer, Reply

SIM_MODEL = "cockpit-simulator"
SIMULATOR_PORT = 47116  # its usual port, so the Model… dialog's address stays the same from one start to the next
USUAL_URL = f"http://127.0.0.1:{SIMULATOR_PORT}/v1"
STOPWORDS = frozenset("""a an and any are as at be by can do does find for from get go how i in is it its me my of
on or page please site than that the then this to up use was what when where which who why will with you your
""".split())


@dataclass(frozen=True)
class SimulatorSettings:
    latency: tuple[float, float] = (2.0, 8.0)  # seconds per reply, first wait and streaming together
    tokens_per_second: float = 25.0
    unreadable: float = 0.07  # share of replies the dialect cannot read
    wrong_target: float = 0.07  # share of clicks and types aimed at the next mark
    seed: int = 0


class Simulator:
    """The responder: ``Simulator(settings)(request body) -> Reply``."""

    def __init__(self, settings: SimulatorSettings | None = None):
        self.settings = settings or SimulatorSettings()
        self.replies = 0  # answered so far (all of them thread-safe: each reply is drawn from its own request)
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        if body.get("model") != SIM_MODEL:
            return Reply.error(404, f"The model '{body.get('model')}' does not exist: this server is Cockpit's "
                                    f"simulator, and its only model is {SIM_MODEL}")
        with self._lock:
            self.replies += 1
        req = read_request(body)
        rng = random.Random(f"{self.settings.seed}|{req.task.text}|{len(req.history)}")
        text = self.text(req, body, rng)
        return self.paced(text, rng, streamed=bool(body.get("stream")))

    # ---------- what it says ----------
    def text(self, req: Request, body: dict, rng: random.Random) -> str:
        page = req.page
        if page is None:
            return policy.reply_text("The request has no numbered elements, and the simulator reads only those.",
                                     "ANSWER; The simulator answers in Set-of-Mark mode only: set 'Answers as' "
                                     "to webvoyager-marks.")
        if page.in_shop and req.task.kind != "unknown":
            reply = policy.demo_responder(body)
        else:
            reply = plain_page(req)
        thought, _, action = reply.partition("\nAction: ")
        thought = thought.removeprefix("Thought: ")
        if not action.startswith("ANSWER"):
            roll = rng.random()
            if roll < self.settings.unreadable:
                return unreadable(thought, action, rng)
            if roll < self.settings.unreadable + self.settings.wrong_target:
                action = wrong_target(action, page)
        where = f"I am on '{page.title}'." if page.title else "I am looking at the page."
        return policy.reply_text(f"{where} {thought}", action)

    # ---------- how long it takes ----------
    def paced(self, text: str, rng: random.Random, streamed: bool) -> Reply:
        """The reply with its wait: the whole of it drawn from the latency range; when streamed, a first wait
        and the pieces at about tokens_per_second (never faster than that, however short the range)."""
        low, high = self.settings.latency
        total = rng.uniform(low, high)
        if not streamed:
            return Reply(text=text, delay=total)
        step = 1.0 / max(self.settings.tokens_per_second, 0.1)
        streaming = len(sse.pieces(text)) * step
        return Reply(text=text, delay=max(total - streaming, min(low, 0.3)), token_delay=step)


def unreadable(thought: str, action: str, rng: random.Random) -> str:
    """A reply the Set-of-Mark dialect cannot read: the action in prose, or no Action line at all."""
    if rng.random() < 0.5:
        return f"Thought: {thought}\nAction: I would {action.split(' [', 1)[0].lower()} the element I mentioned."
    return f"{thought} So that is what I will do next: {action}."


def wrong_target(action: str, page: ShopPage) -> str:
    """The action aimed at the next mark on the page (or the one before, at the end)."""
    m = re.match(r"(\w+) \[(\d+)\](.*)", action, re.S)
    if m is None:
        return action
    ids = [e.id for e in page.elements]
    n = int(m.group(2))
    other = n + 1 if n + 1 in ids else n - 1 if n - 1 in ids else n
    return f"{m.group(1)} [{other}]{m.group(3)}"


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in STOPWORDS and (len(w) > 2 or w.isdigit())}


def plain_page(req: Request) -> str:
    """One step on any page, from its marks: type the task's search, open what matches the task, or answer."""
    page, task = req.page, req.task.text
    done = {str(t.action) for t in req.history if t.action is not None}
    want = words(task)
    query = re.search(r"(?:search|look)\s+(?:for|up)\s+[\"']?([^\"'.?]+)", task, re.I)
    fields = [e for e in page.elements if e.tag in ("input", "textarea") and e.type not in ("checkbox", "radio")
              and e.type != "password"]
    if query and fields and not any(a.startswith("Type") for a in done):
        box = next((e for e in fields if e.says("search")), fields[0])
        return policy.reply_text(f'The task asks me to search; I\'ll type "{query.group(1).strip()}" into the '
                                 "search field.", f"Type [{box.id}]; {query.group(1).strip()}")
    scored = sorted(((len(want & words(f"{e.text} {e.aria}")), -e.id, e) for e in page.elements
                     if e.tag in ("a", "button") and f"Click [{e.id}]" not in done), reverse=True)
    if scored and scored[0][0] > 0 and len(req.history) < 8:
        best: Element = scored[0][2]
        return policy.reply_text(f'"{best.label}" matches what the task is about, so I\'ll open it.',
                                 f"Click [{best.id}]")
    what = f"'{page.title}' at {page.url}" if page.title else page.url or "this page"
    return policy.reply_text("Nothing else on this page matches the task better, so I'll report where I got to.",
                             f"ANSWER; I got as far as {what}.")


def serve_simulator(settings: SimulatorSettings | None = None, port: int = 0) -> ModelServer:
    """A started loopback ModelServer answering as the simulator does (port 0: any free port). It streams."""
    return ModelServer(Simulator(settings), model_name=SIM_MODEL, port=port).start()


_shared: ModelServer | None = None
_shared_lock = threading.Lock()


def shared() -> ModelServer:
    """This process's simulator, for the window (the Model… dialog's preset, and the runs that use it): started
    on first use, on SIMULATOR_PORT when it is free, else on any free port; it runs until the process ends."""
    global _shared
    with _shared_lock:
        if _shared is None:
            try:
                _shared = serve_simulator(port=SIMULATOR_PORT)
            except OSError:  # the port is taken (another Cockpit's simulator, or something else)
                _shared = serve_simulator()
        return _shared


def is_simulator(model: str) -> bool:
    """True for the simulator's model name: a run that never saw a real model."""
    return model == SIM_MODEL


def usual_address(base_url: str | None) -> bool:
    """True for the address the Model… dialog's Simulator preset sets (this process's simulator serves it)."""
    url = (base_url or "").rstrip("/")
    return bool(url) and url in (USUAL_URL, _shared.base_url if _shared is not None else USUAL_URL)
