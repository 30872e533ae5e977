"""The offline demo policy, driving real Chromium through the Demo Shop.

The model is demo_responder behind ModelServer, reached by the real openai
client; the page is the bundled demo site served by LocalSite. A small loop
here plays the agent: observe, build the prompt, ask, parse, execute.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import pytest
from openai import OpenAI

from cockpit.core.agent.execute import Executor
from cockpit.core.demo.policy import (
    DEMO_CARD,
    DEMO_MODEL,
    DEMO_QUESTION,
    DEMO_TASK,
    REFUSED_ANSWER,
    UNKNOWN_ANSWER,
    demo_responder,
    parse_task,
    serve_demo_model,
)
from cockpit.core.errors import ActionError
from cockpit.core.llm import prompt
from cockpit.core.page.observation import Observation, observe


@pytest.fixture(scope="module")
def model():
    srv = serve_demo_model()
    client = OpenAI(base_url=srv.base_url, api_key="no-key-needed", max_retries=0, timeout=20)
    yield srv, client
    client.close()
    srv.stop()


@dataclass
class Run:
    steps: list[tuple[str, str]] = field(default_factory=list)  # (url, action) per step
    answer: str | None = None
    obs: Observation | None = None  # the last observation
    pending: object = None  # the action we stopped before
    conv: prompt.Conversation | None = None
    pngs: dict = field(default_factory=dict)

    @property
    def urls(self) -> list[str]:
        return [u for u, _ in self.steps]


def _ask(client, conv: prompt.Conversation, pngs: dict) -> str:
    msgs = prompt.materialize(conv.request(), pngs.__getitem__)
    reply = client.chat.completions.create(model=DEMO_MODEL, messages=msgs)
    return reply.choices[0].message.content


def drive(browser, client, task: str, start: str, *, stop_before_place_order: bool = True,
          max_steps: int = 20) -> Run:
    """Run the agent loop until an ANSWER, or until it proposes clicking "Place order"."""
    browser.goto(start)
    browser.js("localStorage.clear(); sessionStorage.clear();")
    browser.goto(start)
    run = Run(conv=prompt.Conversation(prompt.system_prompt()))
    executor = Executor(browser)
    lead = prompt.task_text(task, start)
    for n in range(1, max_steps + 1):
        obs = observe(browser)
        run.obs = obs
        run.pngs[n] = obs.render()
        run.conv.add_observation(n, prompt.observation_text(obs.element_text, url=obs.url, title=obs.title),
                                 lead=lead)
        text = _ask(client, run.conv, run.pngs)
        run.conv.add_reply(text)
        parsed = prompt.parse_reply(text)
        assert parsed.action is not None, f"step {n}: unparseable reply {text!r}"
        assert parsed.thought, f"step {n}: no thought in {text!r}"
        action = parsed.action
        run.steps.append((obs.url, str(action)))
        if action.kind == "answer":
            run.answer = action.text
            return run
        mark = obs.marks[action.target - 1] if action.target else None
        if stop_before_place_order and action.kind == "click" and mark is not None and mark.label == "Place order":
            run.pending = action
            return run
        try:
            lead = prompt.feedback_text(outcome=executor.run(action, obs.marks).message)
        except ActionError as e:
            lead = prompt.feedback_text(error=str(e))
    pytest.fail(f"no answer after {max_steps} steps: {run.steps}")


def _marks_by_label(obs: Observation) -> dict:
    return {m.label: m for m in obs.marks}


def _field_values(obs: Observation) -> dict:
    return {m.text or m.placeholder: m.value for m in obs.marks if m.tag == "input"}


@pytest.fixture(scope="module")
def checkout_run(browser, demo_shop, model):
    """The demo task, driven up to the proposed "Place order" click."""
    _, client = model
    run = drive(browser, client, DEMO_TASK, demo_shop.url("index.html"))
    # What the browser holds now, before any later test moves it.
    run.card_value = browser.js("return document.getElementById('card').value")
    run.url_now = browser.url
    return run


def test_demo_task_reaches_place_order_with_the_form_filled(checkout_run):
    run = checkout_run
    assert run.answer is None and run.pending is not None, run.steps
    obs = run.obs
    assert obs.url.endswith("/checkout.html") and run.url_now == obs.url
    # The path a person would see: search, the cheapest headphones, cart, checkout.
    assert "search.html?q=headphones" in run.urls[1]
    assert run.urls[2].endswith("product.html?id=kids-headphones")
    assert any(u.endswith("/cart.html") for u in run.urls)
    assert len(run.steps) == 10, run.steps
    labels = _marks_by_label(obs)
    assert "Cart (1)" in labels
    assert _field_values(obs) == {"Search products": "", "Full name": "Ada Lovelace",
                                       "Address": "12 Analytical Row", "City": "London", "Card number": ""}
    # The card field is secret: its value never shows in the marks, but it is typed.
    assert run.card_value == DEMO_CARD
    assert DEMO_CARD not in obs.element_text
    assert str(run.pending) == f"Click [{labels['Place order'].id}]"


def test_refused_place_order_ends_with_a_plain_answer(checkout_run, model):
    _, client = model
    run = checkout_run
    conv = copy.deepcopy(run.conv)
    n = len(run.pngs) + 1
    pngs = {**run.pngs, n: run.pngs[n - 1]}  # the page did not change: nothing ran
    conv.add_observation(n, prompt.observation_text(run.obs.element_text, url=run.obs.url, title=run.obs.title),
                         lead=prompt.feedback_text(refused="Not today."))
    parsed = prompt.parse_reply(_ask(client, conv, pngs))
    assert parsed.action is not None and parsed.action.kind == "answer"
    assert parsed.action.text.startswith(REFUSED_ANSWER)
    assert "Not today." in parsed.action.text


def test_approved_order_ends_with_the_confirmation(browser, demo_shop, model):
    _, client = model
    run = drive(browser, client, DEMO_TASK, demo_shop.url("index.html"), stop_before_place_order=False)
    assert run.urls[-1].endswith("/order-placed.html")
    assert len(run.steps) == 11
    assert "Kids Headphones" in run.answer and "$24.99" in run.answer
    assert "Ada Lovelace, 12 Analytical Row, London" in run.answer
    assert "Cart (0)" in _marks_by_label(run.obs)  # the shop emptied the cart


def test_price_question_answers_with_the_shown_price(browser, demo_shop, model):
    _, client = model
    run = drive(browser, client, DEMO_QUESTION, demo_shop.url("index.html"))
    assert run.urls[-1].endswith("product.html?id=french-press")
    assert len(run.steps) == 3
    assert "$22.50" in run.answer


def test_unknown_task_is_answered_at_once(browser, demo_shop, model):
    srv, client = model
    before = len(srv.requests)
    run = drive(browser, client, "Book me a table for two in a Paris restaurant tonight.", demo_shop.url("index.html"))
    assert len(run.steps) == 1 and run.answer == UNKNOWN_ANSWER
    assert "demo" in run.answer.lower()
    assert len(srv.requests) == before + 1
    assert srv.errors == []


# ---------- the policy on hand-made requests (no browser) ----------

SHOP_URL = "http://127.0.0.1:8000/index.html"


def _body(task: str, *turns: tuple[str, str, str]) -> dict:
    """turns: (lead, observation text, reply); the last reply is left out."""
    msgs = [{"role": "system", "content": prompt.system_prompt()}]
    for i, (lead, obs, reply) in enumerate(turns):
        text = f"{prompt.task_text(task, SHOP_URL)}\n{obs}" if i == 0 else (f"{lead}\n{obs}" if lead else obs)
        msgs.append({"role": "user", "content": [{"type": "text", "text": text},
                                                  {"type": "image_url", "image_url": {"url": "data:,"}}]})
        if reply:
            msgs.append({"role": "assistant", "content": reply})
    return {"model": DEMO_MODEL, "messages": msgs}


def _obs(url: str, title: str, *elements: str) -> str:
    return prompt.observation_text("\n".join(elements), url=url, title=title)


CHECKOUT = _obs("http://127.0.0.1:8000/checkout.html", "Checkout - Demo Shop",
                '[1]: <a> "Demo Shop";', '[2]: <input type=text> "Search products";', '[3]: <button> "Search";',
                '[4]: <a> "Cart (1)";', '[5]: <input type=text> "Full name", value "Ada Lovelace";',
                '[6]: <input type=text> "Address", value "12 Analytical Row";',
                '[7]: <input type=text> "City";', '[8]: <input type=text> "Card number";',
                '[9]: <button> "Place order";')


def _action(body: dict) -> str:
    return str(prompt.parse_reply(demo_responder(body)).action)


def test_policy_reads_progress_from_the_page():
    assert _action(_body(DEMO_TASK, ("", CHECKOUT, ""))) == "Type [7]; London"


def test_policy_does_not_repeat_a_failed_action():
    body = _body(DEMO_TASK, ("", CHECKOUT, "Thought: x\nAction: Type [7]; London"),
                 (prompt.feedback_text(error="element [7] is covered by <div>"), CHECKOUT, ""))
    assert _action(body) == "Scroll [WINDOW]; down"
    errors = [(prompt.feedback_text(error="boom"), CHECKOUT, "Thought: x\nAction: Type [7]; London")] * 3
    body = _body(DEMO_TASK, ("", CHECKOUT, "Thought: x\nAction: Type [7]; London"), *errors)
    body["messages"].pop()  # the last reply is the one being asked for
    assert _action(body).startswith("ANSWER; I could not finish")
    # Failing, scrolling, failing again... does not go round for ever either.
    err, ok = prompt.feedback_text(error="boom"), prompt.feedback_text(outcome="scrolled the window down")
    cycle = [(err, CHECKOUT, "Thought: x\nAction: Scroll [WINDOW]; down"),
             (ok, CHECKOUT, "Thought: x\nAction: Type [7]; London")] * 2
    body = _body(DEMO_TASK, ("", CHECKOUT, "Thought: x\nAction: Type [7]; London"), *cycle, (err, CHECKOUT, ""))
    assert _action(body).startswith("ANSWER; I could not finish")


def test_policy_knows_the_card_was_typed_though_the_field_hides_it():
    filled = CHECKOUT.replace('"City";', '"City", value "London";')
    body = _body(DEMO_TASK, ("", filled, f"Thought: x\nAction: Type [8]; {DEMO_CARD}"),
                 (prompt.feedback_text(outcome="typed (secret) into [8] and pressed Enter"), filled, ""))
    assert _action(body) == "Click [9]"
    assert _action(_body(DEMO_TASK, ("", filled, ""))) == f"Type [8]; {DEMO_CARD}"


def test_policy_parses_the_task():
    t = parse_task(DEMO_TASK)
    assert (t.kind, t.phrase, t.criterion) == ("buy", "headphones", "cheapest")
    assert (t.name, t.address, t.city, t.target.name) == ("Ada Lovelace", "12 Analytical Row", "London",
                                                          "Kids Headphones")
    assert parse_task(DEMO_QUESTION).target.name == "Glass French Press"
    assert parse_task("What's the weather in Paris?").kind == "unknown"
    assert parse_task("Order a taxi to the airport").kind == "unknown"


def test_policy_answers_garbage_politely():
    for body in ({}, {"messages": []}, {"messages": [{"role": "user", "content": "hello"}]}):
        assert _action(body) == f"ANSWER; {UNKNOWN_ANSWER}"


def test_policy_outside_the_shop_says_so():
    elsewhere = _obs("https://example.com/", "Example Domain", '[1]: <a> "More information...";')
    reply = demo_responder(_body(DEMO_TASK, ("", elsewhere, "")))
    action = prompt.parse_reply(reply).action
    assert action.kind == "answer" and "not the Demo Shop" in action.text


def test_policy_is_deterministic_and_stops_when_an_early_step_is_refused():
    index = _obs(SHOP_URL, "Demo Shop - Home", '[1]: <a> "Demo Shop";', '[2]: <input type=text> "Search products";')
    first = _body(DEMO_TASK, ("", index, ""))
    assert demo_responder(first) == demo_responder(copy.deepcopy(first))  # a re-ask gets the same reply
    refused = _body(DEMO_TASK, ("", index, demo_responder(first)),
                    (prompt.feedback_text(refused=" "), index, ""))
    action = prompt.parse_reply(demo_responder(refused)).action
    assert action.kind == "answer" and "refused" in action.text and "nothing was bought" in action.text
