"""A recorded DOM snapshot read back (``DOMSnapshot.captureSnapshot``, kept per step by the web archive).

:func:`element_at` answers "what sat under this point of the screenshot": the topmost element whose layout
box holds the point (by paint order, as the browser drew it), with its tag, attributes, text and a CSS path
that finds it again in DevTools (``tag:nth-of-type(k)`` steps from ``html``). Points are viewport CSS pixels,
as marks and pixel actions have them; the snapshot's boxes are the document's, so the recorded scroll is added.
Only the top document is searched (a point over a frame names the ``iframe``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_TEXT = 300
ELEMENT = 1
TEXT = 3


@dataclass
class SnapElement:
    tag: str
    attributes: dict[str, str] = field(default_factory=dict)
    text: str = ""
    css_path: str = ""
    box: tuple[float, float, float, float] = (0, 0, 0, 0)  # x, y, w, h in viewport CSS pixels
    value: str = ""  # a form field's value as it was (password values are blanked when recorded)

    def to_dict(self) -> dict:
        return {"tag": self.tag, "attributes": self.attributes, "text": self.text, "css_path": self.css_path,
                "box": list(self.box), "value": self.value}


class Snapshot:
    def __init__(self, snap: dict):
        self.strings: list[str] = snap.get("strings") or []
        docs = snap.get("documents") or []
        self.doc = docs[0] if docs else {}
        nodes = self.doc.get("nodes") or {}
        self.parent: list[int] = nodes.get("parentIndex") or []
        self.type: list[int] = nodes.get("nodeType") or []
        self.name: list[int] = nodes.get("nodeName") or []
        self.value: list[int] = nodes.get("nodeValue") or []
        self.attrs: list[list[int]] = nodes.get("attributes") or []
        iv = nodes.get("inputValue") or {}
        self.input_value = dict(zip(iv.get("index") or [], iv.get("value") or []))
        layout = self.doc.get("layout") or {}
        self.layout_node: list[int] = layout.get("nodeIndex") or []
        self.bounds: list[list[float]] = layout.get("bounds") or []
        self.paint: list[int] = layout.get("paintOrders") or []
        self.scroll = (float(self.doc.get("scrollOffsetX") or 0), float(self.doc.get("scrollOffsetY") or 0))
        self._children: dict[int, list[int]] | None = None

    def s(self, i: int) -> str:
        return self.strings[i] if 0 <= i < len(self.strings) else ""

    def tag(self, n: int) -> str:
        return self.s(self.name[n]).lower() if n < len(self.name) else ""

    def attributes(self, n: int) -> dict[str, str]:
        pairs = self.attrs[n] if n < len(self.attrs) else []
        return {self.s(pairs[i]): self.s(pairs[i + 1]) for i in range(0, len(pairs) - 1, 2)}

    def children(self, n: int) -> list[int]:
        if self._children is None:
            self._children = {}
            for i, p in enumerate(self.parent):
                self._children.setdefault(p, []).append(i)
        return self._children.get(n, [])

    def text(self, n: int, limit: int = MAX_TEXT) -> str:
        out: list[str] = []
        stack = [n]
        while stack and sum(map(len, out)) < limit:
            i = stack.pop()
            if self.type[i] == TEXT:
                out.append(self.s(self.value[i]))
            elif self.tag(i) not in ("script", "style", "noscript"):
                stack.extend(reversed(self.children(i)))
        return " ".join(" ".join(out).split())[:limit]

    def css_path(self, n: int) -> str:
        steps = []
        while n >= 0 and n < len(self.type) and self.type[n] == ELEMENT:
            tag = self.tag(n)
            p = self.parent[n]
            same = [c for c in self.children(p) if self.type[c] == ELEMENT and self.tag(c) == tag] if p >= 0 else [n]
            steps.append(f"{tag}:nth-of-type({same.index(n) + 1})" if len(same) > 1 else tag)
            n = p
        return " > ".join(reversed(steps))

    def element(self, n: int) -> SnapElement:
        while n >= 0 and self.type[n] != ELEMENT:
            n = self.parent[n]
        li = self.layout_node.index(n) if n in self.layout_node else -1
        x, y, w, h = self.bounds[li] if li >= 0 else (0, 0, 0, 0)
        sx, sy = self.scroll
        return SnapElement(self.tag(n), self.attributes(n), self.text(n), self.css_path(n),
                           (x - sx, y - sy, w, h), self.s(self.input_value.get(n, -1)))

    def element_at(self, x: float, y: float) -> SnapElement | None:
        px, py = x + self.scroll[0], y + self.scroll[1]
        best, best_order = -1, -1
        for li, (bx, by, bw, bh) in enumerate(self.bounds):
            if bw <= 0 or bh <= 0 or not (bx <= px < bx + bw and by <= py < by + bh):
                continue
            n = self.layout_node[li]
            if self.type[n] == TEXT:
                n = self.parent[n]
            order = self.paint[li] if li < len(self.paint) else 0
            if order >= best_order and self.tag(n) not in ("html", "#document"):
                best, best_order = n, order
        return self.element(best) if best >= 0 else None


def element_at(snap: dict, x: float, y: float) -> SnapElement | None:
    """The element a recorded snapshot shows at viewport point (x, y), or None (see the module docstring)."""
    return Snapshot(snap).element_at(x, y)
