"""The offline demo policy: a rule-based stand-in for a model, for the Demo Shop.

What it is for: letting someone try Cockpit with no API key and no network.
:func:`demo_responder` is served behind the OpenAI chat API by
:class:`~cockpit.core.llm.modelserver.ModelServer` (see :func:`serve_demo_model`),
so the real agent loop, approval gate, recording and replay all run unchanged
against the bundled Demo Shop (``resources/demo_site``). The product always
labels runs made with it as a demo.

How it decides: it reads only the request's messages, the way a model would.
The task comes from the first user message, the page (URL, title and the
numbered element list) from the last user message that shows one, and the
result of the previous action from the last user message. Progress is worked
out from what the page shows (the URL, the cart count, the values already
typed into fields), so a refused, failed or repeated step does not confuse
it. It keeps no state between requests. The one thing it knows besides the
messages is the Demo Shop's own price list (``products.js``): the element
list names products but does not always show their prices, and a demo policy
cannot read screenshots. Prices shown in the element text win when present.

It handles three kinds of task: buying a product in the Demo Shop (search,
pick the match, add to cart, check out, fill the form, propose "Place order",
which the approval gate then stops), asking for a product's price, and
anything else, which it answers at once with a polite note that the demo
policy only knows the Demo Shop tasks.

What it must not do: it never touches the network (it is a plain function;
the server binds to loopback only), never calls a real model, and never
pretends to be one: anything it says about itself says it is the demo policy.
"""
from __future__ import annotations

import logging
import os
import re

# The parts live in demo.catalogue (products), demo.task (what a task asks),
# demo.page (reading the page) and demo.request (reading the request); the
# public names are kept importable from here.
from cockpit.core import resources
from cockpit.core.demo.catalogue import catalogue, fold, money, name_matches
from cockpit.core.demo.page import element_at, form_fields, product_name, result_links, shown_price
from cockpit.core.demo.request import Request, read_request
from cockpit.core.demo.task import DEMO_CARD, DemoTask, parse_task
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite, serve_shared

__all__ = ["DEMO_MODEL", "DEMO_TASK", "DEMO_QUESTION", "DEMO_CARD", "REFUSED_ANSWER", "UNKNOWN_ANSWER",
           "DemoTask", "catalogue", "demo_responder", "demo_site_port", "parse_task", "serve_demo_model"]

DEMO_MODEL = "cockpit-demo-policy"
DEMO_TASK = ("Buy the cheapest pair of headphones in the Demo Shop and ship it to "
             "Ada Lovelace, 12 Analytical Row, London.")
DEMO_QUESTION = "What is the price of the Glass French Press in the Demo Shop?"

#: After this many replies in one run the policy gives up instead of wandering.
MAX_REPLIES = 40
#: The same action this many times in a row means it is stuck.
MAX_REPEATS = 3
#: This many failed actions among the last ERROR_WINDOW (in demo.request) and it stops.
MAX_ERRORS = 3

UNKNOWN_ANSWER = ("Sorry, I can't help with that: this is the offline demo policy, and it only knows the "
                  "Demo Shop tasks (buying a product there, such as the cheapest headphones, or looking up "
                  "a product's price). Connect a real model to try other tasks.")
REFUSED_ANSWER = "I filled in the order but placing it was refused; nothing was bought."


# ---------- deciding ----------

def reply_text(thought: str, action: str) -> str:
    """A reply in WebVoyager's form: ``Thought: ...`` then ``Action: ...``."""
    return f"Thought: {thought}\nAction: {action}"


def _answer(thought: str, text: str) -> str:
    return reply_text(thought, f"ANSWER; {text}")


def demo_responder(body: dict) -> str:
    """One reply, ``Thought: ...\\nAction: ...``, decided from the request's messages alone."""
    req = read_request(body)
    task, page = req.task, req.page
    if task.kind == "unknown":
        return _answer("This task is not something I can do in the Demo Shop.", UNKNOWN_ANSWER)
    if page is None or not page.in_shop:
        where = f" ({page.url})" if page is not None and page.url else ""
        return _answer("This page is not the Demo Shop, which is the only site I know how to use.",
                       f"I could not do the task: the page{where} is not the Demo Shop, and this offline "
                       "demo policy only knows how to use the Demo Shop.")
    if req.refused:
        return _refused(req)
    if len(req.history) >= MAX_REPLIES:
        return _answer("I have taken many steps without finishing, so I will stop here.",
                       "I could not finish the task in the Demo Shop; nothing was bought.")
    if req.recent_errors() >= MAX_ERRORS:
        return _answer("Several of my last actions failed, so I will stop rather than keep guessing.",
                       f"I could not finish the task: my last actions failed ({_short(req.feedback)}).")
    thought, action = (_buy if task.kind == "buy" else _price)(req)
    if action.startswith("ANSWER"):
        return reply_text(thought, action)
    return _unstick(req, thought, action)


def _unstick(req: Request, thought: str, action: str) -> str:
    """Avoid repeating an action that just failed, or one that keeps changing nothing."""
    last = req.last_action
    same = last is not None and str(last) == action
    if same and req.errored:
        if not action.startswith("Scroll"):
            return reply_text("That did not work. I'll scroll down to get a better view of the page and try again.",
                          "Scroll [WINDOW]; down")
        return reply_text("Scrolling failed too, so I'll go back to the previous page.", "GoBack")
    repeats = 0
    for turn in reversed(req.history if not action.startswith("Scroll") else []):  # scrolling on is fine
        if turn.action is None or str(turn.action) != action:
            break
        repeats += 1
    if repeats >= MAX_REPEATS:
        return _answer("I keep trying the same action without getting anywhere, so I will stop.",
                       "I could not finish the task: the page did not respond as expected; nothing was bought.")
    return reply_text(thought, action)


def _short(feedback: str) -> str:
    s = feedback.split(":", 1)[-1].strip()
    s = s.split(". Check the element", 1)[0]
    return s[:160]


def _refused(req: Request) -> str:
    message = req.feedback.split("Their message:", 1)[1] if "Their message:" in req.feedback else ""
    message = message.replace("Choose another action.", "").strip()
    said = f" The supervisor said: {message}" if message else ""
    if "not by a person" in req.feedback:  # the run's policy or a site rule refused it: no one was asked
        what = "nothing was bought" if req.task.kind == "buy" else "I stopped before finding the answer"
        return _answer("The run's rules refused my last action without asking anyone, so I will stop and report.",
                       f"My last action was refused by the run's rules (no person was asked), so I stopped; {what}.")
    last = req.last_action
    page = req.page
    placing = (req.task.kind == "buy" and page is not None and page.file == "checkout.html" and last is not None
               and last.kind == "click" and (el := element_at(page, last.target)) is not None
               and el.says(r"place order|\bpay\b|buy now|submit"))
    if placing:
        return _answer("The supervisor refused to let me place the order, so I will stop and report.",
                       REFUSED_ANSWER + said)
    what = "nothing was bought" if req.task.kind == "buy" else "I stopped before finding the answer"
    return _answer("The supervisor refused my last action, so I will stop here and report.",
                   f"My last action was refused by the supervisor, so I stopped; {what}.{said}")


def _search(req: Request, why: str) -> tuple[str, str]:
    box = req.page.search_box
    query = req.task.query
    if box is None:
        home = req.page.find(r"^demo shop$", ("a",))
        if home is not None:
            return "I can't see the search box here, so I'll go to the shop's home page.", f"Click [{home.id}]"
        return "I can't see the search box, so I'll scroll to look for it.", "Scroll [WINDOW]; up"
    return f'{why} I\'ll search the shop for "{query}".', f"Type [{box.id}]; {query}"


def _pick_result(req: Request) -> tuple[str, str]:
    """On the results of the task's search: open the product the task wants, or scroll to find it."""
    task, page = req.task, req.page
    results = result_links(page)
    if not results:
        return "", ""
    matching = [r for r in results if name_matches(task.phrase, r[1])] or results
    target = task.target
    pick = next((r for r in results if target and r[1] == target.name), None)
    if pick is None and target is not None:
        at_end = "cannot scroll further down" in req.feedback or (
            req.errored and req.last_action is not None and req.last_action.kind == "scroll")
        if not at_end:
            return (f"I can see {len(results)} results but not all of the matching products yet; "
                    "I'll scroll down to see the rest.", "Scroll [WINDOW]; down")
    priced = [r for r in matching if r[2] is not None]
    if task.criterion in ("cheapest", "dearest") and priced:
        if pick is None:  # no price list to go by: choose from what the page shows
            pick = (min if task.criterion == "cheapest" else max)(priced, key=lambda r: r[2])
        word = "cheapest" if task.criterion == "cheapest" else "most expensive"
        listing = ", ".join(f"{r[1]} {money(r[2])}" for r in priced)
        many = f"{len(priced)} matching products" if len(priced) > 1 else "one matching product"
        return (f"The results show {many} ({listing}). The {word} is the {pick[1]}, so I'll open it.",
                f"Click [{pick[0].id}]")
    pick = pick or matching[0]
    why = "which is what I'm looking for"
    if task.criterion == "best rated" and target and pick[1] == target.name:
        why = f"the best rated of them at {target.rating:.1f} out of 5"
    return f"The results include the {pick[1]}, {why}, so I'll open it.", f"Click [{pick[0].id}]"


def _is_target(task: DemoTask, name: str) -> bool:
    target = task.target
    return fold(name) == fold(target.name) if target else name_matches(task.phrase, name)


def _common(req: Request, looking_for: str) -> tuple[str, str] | None:
    """Steps both tasks share: search, and pick from the results."""
    page, task = req.page, req.task
    if page.file == "search.html" and fold(page.param("q")) == fold(task.query):
        thought, action = _pick_result(req)
        if action:
            return thought, action
        return None  # nothing found: the caller answers
    return _search(req, looking_for)


def _not_found(req: Request) -> tuple[str, str]:
    return (f'The search for "{req.task.query}" found nothing that matches.',
            f'ANSWER; The Demo Shop has no product matching "{req.task.phrase}".'
            + (" Nothing was bought." if req.task.kind == "buy" else ""))


def _price(req: Request) -> tuple[str, str]:
    page, task = req.page, req.task
    name = product_name(page)
    if name and _is_target(task, name):
        price = shown_price(page, name)
        if price:
            return (f"This is the {name} page, and its price is {price}.",
                    f"ANSWER; The {name} costs {price}.")
    step = _common(req, f"I need the price of the {task.phrase}.")
    return step if step is not None else _not_found(req)


def _buy(req: Request) -> tuple[str, str]:
    page, task = req.page, req.task
    target = task.target
    item = target.name if target else task.phrase

    if page.file == "order-placed.html" or re.search(r"order placed", page.title, re.I):
        what = f"the {target.name} ({target.price_text})" if target else f"the {task.phrase}"
        return ("The shop shows the order confirmation page, so the order went through.",
                f"ANSWER; Done: I ordered {what} in the Demo Shop and the order has been placed. "
                f"It will be shipped to {task.ship_to}.")
    if page.file == "checkout.html":
        return _checkout(req)
    if page.file == "cart.html":
        return _cart(req, item)
    step = _product_page(req)
    if step is not None:
        return step

    what = f"the {task.criterion} {task.phrase}" if task.criterion else f'"{task.phrase}"'
    step = _common(req, f"I need to find {what} in the Demo Shop.")
    return step if step is not None else _not_found(req)


def _checkout(req: Request) -> tuple[str, str]:
    """On the checkout form: fill in what is missing or wrong, then place the order."""
    page, task = req.page, req.task
    fields = form_fields(page)
    if fields:
        want = {"name": task.name, "address": task.address, "city": task.city, "card": task.card}
        for key, desc, el in fields:
            if el.value == want[key]:
                continue
            if key == "card" and not el.value and req.typed_since_page_change(
                    el.id, (task.card, "(secret)")):
                continue
            if key == "card":
                thought = "Next is the payment card. The shop takes any made-up number, so I'll enter a test card."
            elif el.value:
                thought = (f'The {desc} field says "{el.value}", which is not right; '
                           f'I\'ll replace it with "{want[key]}".')
            else:
                thought = f'I\'m on the checkout form. The {desc} field is empty; I\'ll enter "{want[key]}".'
            return thought, f"Type [{el.id}]; {want[key]}"
        button = page.find(r"place order|buy now|pay now|submit order", ("button", "input", "a"))
        if button is not None:
            return ("The shipping details and the card number are all filled in. "
                    "The last step is to place the order.", f"Click [{button.id}]")
        return "The form is filled in, but I can't see the button to place the order; I'll scroll down.", \
            "Scroll [WINDOW]; down"
    # no form: the cart is empty (or the page is still loading)
    return _search(req, "The checkout has nothing to pay for, so the cart must be empty.")


def _cart(req: Request, item: str) -> tuple[str, str]:
    """On the cart: remove what the task did not ask for, keep one of the item, go to checkout."""
    page, task = req.page, req.task
    removes = [e for e in page.elements if e.says(r"^remove\b")]
    lines = [(e, re.sub(r"^remove\s+", "", e.aria or e.text, flags=re.I).strip()) for e in removes]
    other = next(((e, n) for e, n in lines if n and fold(n) != "remove" and not _is_target(task, n)), None)
    if other is not None:
        return (f"The cart also holds the {other[1]}, which the task did not ask for; I'll remove it.",
                f"Click [{other[0].id}]")
    has_target = any(_is_target(task, n) for _, n in lines) or (lines and not any(n for _, n in lines))
    checkout = page.find(r"checkout|check out", ("a", "button"))
    if has_target and page.cart_count > 1 and len(lines) == 1:
        return ("The cart holds more than one of this item but I need just one; I'll remove it and add one again.",
                f"Click [{lines[0][0].id}]")
    if has_target and checkout is not None:
        return f"The cart holds the {item}. I'll proceed to checkout.", f"Click [{checkout.id}]"
    if not lines:
        return _search(req, "The cart is empty.")
    return _search(req, f"The {item} is not in the cart yet.")


def _product_page(req: Request) -> tuple[str, str] | None:
    """On a product page: add the wanted product to the cart, or go to the cart; None when not one."""
    page, task = req.page, req.task
    name = product_name(page)
    if name:
        if not _is_target(task, name):
            return _search(req, f"This is the {name}, not the product I need.")
        go = page.find(r"^go to cart$|^view cart$", ("a", "button"))
        if go is not None:
            return f"The {name} has been added to the cart. I'll go to the cart.", f"Click [{go.id}]"
        if page.cart_count == 0:
            add = page.find(r"add to cart|add to basket", ("button", "a", "input"))
            if add is not None:
                price = shown_price(page, name)
                at = f" at {price}" if price else ""
                return f"This is the {name} page{at}. I'll add it to the cart.", f"Click [{add.id}]"
        if page.cart_link is not None:
            return "The cart already has something in it. I'll open the cart to check it.", \
                f"Click [{page.cart_link.id}]"
    return None


def serve_demo_model(port: int = 0) -> ModelServer:
    """A started loopback ModelServer answering with :func:`demo_responder`.

    Stop it with ``stop()``, or use it as a context manager (entering it again is harmless).
    """
    return ModelServer(demo_responder, model_name=DEMO_MODEL, port=port).start()


#: The demo shop's usual port, so demo runs can be replayed and branched after a restart.
DEMO_SITE_PORT = 47115
#: The environment variable naming another port for the demo shop (the tests give each process its own).
DEMO_PORT_ENV = "COCKPIT_DEMO_PORT"

log = logging.getLogger(__name__)


def demo_site_port() -> int:
    """The demo shop's port: COCKPIT_DEMO_PORT when it names a port, else DEMO_SITE_PORT."""
    value = os.environ.get(DEMO_PORT_ENV, "").strip()
    if value:
        if value.isdigit() and 0 < int(value) < 65536:
            return int(value)
        log.warning("%s=%r is not a port number (1-65535); the demo shop uses %d", DEMO_PORT_ENV, value,
                    DEMO_SITE_PORT)
    return DEMO_SITE_PORT


def serve_demo_site():
    """The bundled demo shop on 127.0.0.1, on :func:`demo_site_port` (shared with another Cockpit serving the shop
    there: the window and `cockpit demo` at once) when nothing else holds it, else on any port."""
    with resources.path("demo_site") as root:
        try:
            return serve_shared(root, demo_site_port())
        except OSError as e:
            site = LocalSite(root).start()
            log.warning("the demo shop is served at port %d, not its own %d: %s", site.port, demo_site_port(),
                        e.strerror or e)
            return site
