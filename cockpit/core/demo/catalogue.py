"""The Demo Shop's catalogue for the demo policy (:mod:`cockpit.core.demo.policy`): its products and prices.

Read from the shop's own ``products.js``, with the word matching the policy
uses to compare a task's phrase with product names.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from cockpit.core import resources

STOP_WORDS = {"a", "an", "the", "some", "one", "pair", "pairs", "of", "set", "me", "for", "product", "products"}


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    price: int  # cents
    rating: float = 0.0
    description: str = ""

    @property
    def price_text(self) -> str:
        return money(self.price)


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


@functools.cache
def catalogue() -> tuple[Product, ...]:
    """The Demo Shop's products, read from its products.js (empty if unreadable)."""
    try:
        src = resources.read_text("demo_site/products.js")
    except (OSError, ValueError):
        return ()
    m = re.search(r"PRODUCTS\s*=\s*\[(.*?)\];", src, re.S)
    out = []
    for block in re.findall(r"\{(.*?)\}", m.group(1) if m else "", re.S):
        kv = dict(re.findall(r'(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|[\d.]+)', block))
        try:
            out.append(Product(id=kv["id"].strip('"'), name=kv["name"].strip('"'), price=int(kv["price"]),
                               rating=float(kv.get("rating", 0)), description=kv.get("description", "").strip('"')))
        except (KeyError, ValueError):
            continue
    return tuple(out)


def product_named(name: str) -> Product | None:
    key = fold(name)
    return next((p for p in catalogue() if fold(p.name) == key), None)


def fold(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().casefold()


def _words(s: str) -> list[str]:
    """Comparable words: lower case, hyphens split, a plural 's' dropped."""
    out = []
    for w in re.findall(r"[a-z0-9]+", s.casefold()):
        if w in STOP_WORDS:
            continue
        if len(w) > 3 and w.endswith("es") and w[:-2].endswith(("ss", "sh", "ch", "x")):
            w = w[:-2]
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


def name_matches(phrase: str, name: str) -> bool:
    want, have = _words(phrase), set(_words(name))
    return bool(want) and all(w in have for w in want)


def site_search_hits(query: str) -> list[Product]:
    """What the shop's search returns for `query` (a substring of name or description)."""
    q = query.strip().casefold()
    return [p for p in catalogue() if q in p.name.casefold() or q in p.description.casefold()]

