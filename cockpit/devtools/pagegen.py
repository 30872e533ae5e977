"""Synthetic pages of N elements, shaped like a busy shopping site.

A header of links, a search form, then product cards (image, title link,
price, rating span with a listener, "Add to cart" button) repeated until the
page holds about N elements. Most of the page lies below the fold, as on real
long pages; the viewport holds a realistic few hundred elements at most.
"""
from __future__ import annotations

_CARD = ('<div class="card" data-i="{i}"><a href="#p{i}" class="thumb"><img alt="Product {i}" '
         'width="80" height="60"></a><div class="body"><a href="#p{i}" class="title">Product {i} '
         'with a fairly long descriptive name</a><span class="price">${p}.99</span>'
         '<span class="rating" data-r="{r}">{r} stars</span><button type="button">Add to cart</button>'
         '</div></div>')
_PER_CARD = 8  # elements per card above


def generate(n_elements: int) -> str:
    cards = max(1, (n_elements - 30) // _PER_CARD)
    head = ['<!doctype html><html><head><title>Synthetic page ({n} elements)</title><style>'
            'body{{margin:0;font:13px sans-serif}} nav a{{margin:0 6px}} '
            '.grid{{display:flex;flex-wrap:wrap}} .card{{width:240px;height:110px;margin:4px;'
            'border:1px solid #ccc;display:flex}} .thumb img{{background:#ddd}} .body{{padding:4px}} '
            '.title{{display:block}} .rating{{cursor:pointer;color:#a60;margin:0 6px}}</style></head><body>'
            .format(n=n_elements),
            '<nav>' + ''.join(f'<a href="#s{k}">Section {k}</a>' for k in range(10)) + '</nav>',
            '<form onsubmit="return false"><input name="q" placeholder="Search"><button>Go</button></form>',
            '<div class="grid">']
    body = [_CARD.format(i=i, p=10 + i % 90, r=1 + i % 5) for i in range(cards)]
    tail = ['</div><script>document.querySelectorAll(".rating").forEach(s => '
            's.addEventListener("click", () => s.classList.toggle("on")));</script></body></html>']
    return "".join(head + body + tail)
