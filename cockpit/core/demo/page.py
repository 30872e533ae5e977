"""The page as the demo policy (:mod:`cockpit.core.demo.policy`) reads it from a prompt's element list.

:func:`parse_page` turns the observation text into a :class:`ShopPage`; the
helpers below read what a Demo Shop page shows: results, prices, form fields.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlparse

from cockpit.core.demo.catalogue import catalogue, fold, product_named

_PRICE = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{2})?)")


# ---------- reading the page ----------

@dataclass
class Element:
    id: int
    tag: str
    type: str = ""
    text: str = ""
    aria: str = ""
    value: str = ""

    @property
    def label(self) -> str:
        return self.text or self.aria

    def says(self, pattern: str) -> bool:
        return any(re.search(pattern, s, re.I) for s in (self.text, self.aria) if s)


@dataclass
class ShopPage:
    url: str = ""
    title: str = ""
    elements: list[Element] = field(default_factory=list)

    @property
    def file(self) -> str:
        return urlparse(self.url).path.rsplit("/", 1)[-1].casefold()

    def param(self, name: str) -> str:
        return (parse_qs(urlparse(self.url).query).get(name) or [""])[0]

    @property
    def in_shop(self) -> bool:
        return "demo shop" in self.title.casefold() or any(
            e.tag == "a" and fold(e.text) == "demo shop" for e in self.elements)

    def find(self, pattern: str, tags: tuple[str, ...] = ()) -> Element | None:
        return next((e for e in self.elements if (not tags or e.tag in tags) and e.says(pattern)), None)

    @property
    def search_box(self) -> Element | None:
        return next((e for e in self.elements if e.tag in ("input", "textarea") and e.says(r"search")), None)

    @property
    def cart_link(self) -> Element | None:
        return next((e for e in self.elements if e.tag == "a" and re.match(r"cart\s*\(\d+\)", e.text, re.I)), None)

    @property
    def cart_count(self) -> int:
        link = self.cart_link
        m = re.search(r"\((\d+)\)", link.text) if link else None
        return int(m.group(1)) if m else 0


_ELEMENT = re.compile(r"^\[(\d+)\]: <([^>]+)> (.*);(?: \(scrollable\))?$")
_WHERE = re.compile(r"The page is (['\"])(.*?)\1 at (\S+?)\.\s+Analyse", re.S)


def parse_page(text: str) -> ShopPage | None:
    if "Observation:" not in text:
        return None
    obs = text.split("Observation:", 1)[1]
    where = _WHERE.search(obs)
    if where is None and "(Omitted in context.)" in obs:
        return None
    page = ShopPage(url=where.group(3) if where else "", title=where.group(2) if where else "")
    for line in obs.splitlines():
        m = _ELEMENT.match(line.strip())
        if not m:
            continue
        kind, rest = m.group(2), m.group(3)
        tag, _, typ = kind.partition(" type=")
        tag = tag.split()[0] if tag.split() else tag
        el = Element(int(m.group(1)), tag.casefold(), typ.strip())
        quoted = [q for q in re.findall(r'(value )?"([^"]*)"', rest)]
        plain = [s for v, s in quoted if not v]
        el.text = plain[0] if plain else ""
        el.aria = plain[1] if len(plain) > 1 else ""
        el.value = next((s for v, s in quoted if v), "")
        page.elements.append(el)
    return page


# ---------- what a Demo Shop page shows ----------

def element_at(page: ShopPage, n: int | None) -> Element | None:
    return next((e for e in page.elements if e.id == n), None)


def result_links(page: ShopPage) -> list[tuple[Element, str, int | None]]:
    """Product links on a results page: (element, product name, price in cents if known)."""
    out = []
    for e in page.elements:
        if e.tag != "a" or not e.text or fold(e.text) == "demo shop" or page.cart_link is e:
            continue
        shown = _PRICE.search(e.text)
        name = _PRICE.sub("", e.text).strip(" -–—,:")
        product = product_named(name)
        if product is None and catalogue():
            continue
        price = int(round(float(shown.group(1).replace(",", "")) * 100)) if shown else (
            product.price if product else None)
        out.append((e, product.name if product else name, price))
    return out


def product_name(page: ShopPage) -> str:
    if page.file != "product.html":
        return ""
    name = re.sub(r"\s*-\s*demo shop\s*$", "", page.title, flags=re.I).strip()
    return "" if name.casefold() in ("product not found", "product", "") else name


def shown_price(page: ShopPage, name: str) -> str:
    """The price the page shows next to `name`; else the price list's; else any price shown."""
    shown = [(e, m) for e in page.elements if e.tag not in ("input", "textarea", "select")
             for m in [_PRICE.search(f"{e.text} {e.aria}")] if m]
    for e, m in shown:
        if fold(name) in fold(f"{e.text} {e.aria}"):
            return m.group(0).replace(" ", "")
    product = product_named(name)
    if product is not None:
        return product.price_text
    return shown[0][1].group(0).replace(" ", "") if shown else ""


_FIELDS = [  # (key, how the field is labelled, how to describe it)
    ("name", r"\bname\b", "full name"),
    ("address", r"address|street", "address"),
    ("city", r"\bcity\b|\btown\b", "city"),
    ("card", r"card", "card number"),
]


def form_fields(page: ShopPage) -> list[tuple[str, str, Element]]:
    out, used = [], set()
    for e in page.elements:
        if e.tag not in ("input", "textarea") or e.says(r"search"):
            continue
        for key, rx, desc in _FIELDS:
            if key not in used and e.says(rx):
                used.add(key)
                out.append((key, desc, e))
                break
    return out

