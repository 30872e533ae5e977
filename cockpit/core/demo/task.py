"""What a task asks the demo policy (:mod:`cockpit.core.demo.policy`) to do: buy a product, ask a price, or neither."""
from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.core.demo.catalogue import STOP_WORDS, Product, catalogue, fold, name_matches, site_search_hits

#: The made-up card number typed at checkout (the shop says any number will do).
DEMO_CARD = "4242 4242 4242 4242"

DEFAULT_NAME = "Ada Lovelace"
DEFAULT_ADDRESS = "12 Analytical Row"
DEFAULT_CITY = "London"


@dataclass
class DemoTask:
    text: str
    kind: str  # "buy", "price" or "unknown"
    phrase: str = ""  # what to look for, as the task says it
    criterion: str = ""  # "cheapest", "dearest", "best rated" or ""
    name: str = DEFAULT_NAME
    address: str = DEFAULT_ADDRESS
    city: str = DEFAULT_CITY
    card: str = DEMO_CARD

    @property
    def query(self) -> str:
        """The words to type into the shop's search box."""
        if not catalogue() or site_search_hits(self.phrase):
            return self.phrase
        for w in sorted(self.phrase.split(), key=len, reverse=True):
            if fold(w) not in STOP_WORDS and site_search_hits(w):
                return w
        return self.phrase

    @property
    def candidates(self) -> list[Product]:
        by_name = [p for p in catalogue() if name_matches(self.phrase, p.name)]
        return by_name or site_search_hits(self.phrase)

    @property
    def target(self) -> Product | None:
        return _choose(self.candidates, self.criterion, self.phrase)

    @property
    def ship_to(self) -> str:
        return f"{self.name}, {self.address}, {self.city}"


_CRITERIA = [
    ("cheapest", r"cheapest|least expensive|lowest[- ]priced|lowest price|most affordable"),
    ("dearest", r"most expensive|priciest|highest[- ]priced"),
    ("best rated", r"best[- ]rated|highest[- ]rated|top[- ]rated|best reviewed"),
]
_SHOP = r"(?:in|from|at|on)\s+(?:the\s+)?demo[\s-]*shop\b"
_BUY = re.compile(
    r"\b(?:buy|order|purchase|get\s+me)\s+(?:me\s+)?(?:(?:the|a|an|some|one)\s+)?"
    r"(?:(?:cheapest|least expensive|lowest[- ]priced|most affordable|most expensive|priciest|highest[- ]priced|"
    r"best[- ]rated|highest[- ]rated|top[- ]rated|best reviewed)\s+)?"
    r"(?:(?:pairs?|sets?)\s+of\s+)?(?P<what>.+?)"
    r"(?=\s+" + _SHOP + r"|\s+and\s+(?:ship|send|deliver|have)\b|\s*,|\s+(?:ship|send|deliver)\b|\s+to\s+|[.!?]|$)",
    re.I)
_PRICE_Q = [
    re.compile(r"\b(?:price|cost)\s+of\s+(?:(?:the|a|an)\s+)?(?P<what>.+?)(?=\s+" + _SHOP + r"|[?.!,]|$)", re.I),
    re.compile(r"\bhow\s+much\s+(?:does|do|is|are)\s+(?:(?:the|a|an)\s+)?(?P<what>.+?)"
               r"(?=\s+cost\b|\s+" + _SHOP + r"|[?.!,]|$)", re.I),
]
_SHIP = re.compile(r"\b(?:ship|send|deliver)\w*\s+(?:(?:it|them|this|that|the order|the parcel)\s+)?to\s+"
                   r"(?P<to>.+?)(?=\.\s+[A-Z]|[.!?]?\s*$)", re.I | re.S)
_CARD = re.compile(r"\b(\d{4}(?:[ -]?\d{4}){3})\b")


def parse_task(text: str) -> DemoTask:
    """Read what the task asks for; unknown when it is not a Demo Shop purchase or price question."""
    task = _parse_task(text)
    if task.kind != "unknown" and not re.search(r"demo[\s-]*shop", task.text, re.I) and not task.candidates:
        return DemoTask(task.text, "unknown")  # not about the shop, and nothing there matches
    return task


def _parse_task(text: str) -> DemoTask:
    t = re.sub(r"\s+", " ", text or "").strip()
    criterion = next((c for c, rx in _CRITERIA if re.search(rx, t, re.I)), "")
    for rx in _PRICE_Q:
        if m := rx.search(t):
            what = _clean_phrase(m.group("what"))
            if what:
                return DemoTask(t, "price", phrase=what)
    if m := _BUY.search(t):
        what = _clean_phrase(m.group("what"))
        if what:
            task = DemoTask(t, "buy", phrase=what, criterion=criterion)
            if s := _SHIP.search(t):
                parts = [p.strip(" .") for p in s.group("to").split(",") if p.strip(" .")]
                if parts:
                    task.name = parts[0]
                if len(parts) >= 3:
                    task.address, task.city = ", ".join(parts[1:-1]), parts[-1]
                elif len(parts) == 2:
                    task.address = parts[1]
            if c := _CARD.search(t):
                task.card = c.group(1)
            return task
    return DemoTask(t, "unknown")


def _clean_phrase(s: str) -> str:
    s = re.sub(r"^(?:(?:the|a|an|some|one)\s+)+", "", s.strip(), flags=re.I)
    return s.strip(" \"'").strip()


def _choose(products: list[Product], criterion: str, phrase: str = "") -> Product | None:
    if not products:
        return None
    if criterion == "cheapest":
        return min(products, key=lambda p: p.price)
    if criterion == "dearest":
        return max(products, key=lambda p: p.price)
    if criterion == "best rated":
        return max(products, key=lambda p: p.rating)
    exact = [p for p in products if fold(p.name) == fold(phrase)]
    return (exact or products)[0]

