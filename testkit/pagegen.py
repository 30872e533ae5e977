"""Synthetic pages of N elements, in three shapes.

``cards`` (the default), shaped like a busy shopping site: a header of links,
a search form, then product cards (image, title link, price, rating span with
a listener, "Add to cart" button) repeated until the page holds about N
elements, nested in one grid.

``flat``: N siblings directly in ``<body>`` (as long feeds and logs are
built): mostly paragraphs of text, every fifth a link, every tenth a button.

``table``: a ``<table>`` of rows (five cells each: id, a link, text, a
number, a button), as many rows as make about N elements.

Most of each page lies below the fold, as on real long pages; the viewport
holds a realistic few hundred elements at most.
"""
from __future__ import annotations

_CARD = ('<div class="card" data-i="{i}"><a href="#p{i}" class="thumb"><img alt="Product {i}" '
         'width="80" height="60"></a><div class="body"><a href="#p{i}" class="title">Product {i} '
         'with a fairly long descriptive name</a><span class="price">${p}.99</span>'
         '<span class="rating" data-r="{r}">{r} stars</span><button type="button">Add to cart</button>'
         '</div></div>')
_PER_CARD = 8  # elements per card above
SHAPES = ("cards", "flat", "table")


def generate(n_elements: int, shape: str = "cards") -> str:
    if shape == "flat":
        return _flat(n_elements)
    if shape == "table":
        return _table(n_elements)
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


def _flat_item(i: int) -> str:
    if i % 10 == 9:
        return f'<button type="button">Action {i}</button>'
    if i % 5 == 4:
        return f'<a href="#e{i}">Entry {i} link</a>'
    return f'<p>Line {i}: some ordinary text of a long flat page</p>'


def _flat(n: int) -> str:
    head = ('<!doctype html><html><head><title>Flat page ({n} siblings)</title><style>'
            'body{{margin:0;font:13px sans-serif}} p,a,button{{display:block;margin:2px 8px}}'
            '</style></head><body>').format(n=n)
    return head + "".join(_flat_item(i) for i in range(max(1, n - 6))) + "</body></html>"


def _table(n: int) -> str:
    rows = max(1, (n - 10) // 7)  # tr + 5 td + a link / button
    head = ('<!doctype html><html><head><title>Table page ({n} rows)</title><style>'
            'body{{margin:0;font:13px sans-serif}} td{{padding:2px 6px;border-bottom:1px solid #eee}}'
            '</style></head><body><h1>Orders</h1><table><thead><tr><th>#</th><th>Item</th><th>Note</th>'
            '<th>Price</th><th></th></tr></thead><tbody>').format(n=rows)
    body = (f'<tr><td>{i}</td><td><a href="#o{i}">Order {i}</a></td><td>shipped to customer {i % 97}</td>'
            f'<td>{10 + i % 90}.99</td><td><button type="button">Refund {i}</button></td></tr>' for i in range(rows))
    return head + "".join(body) + "</tbody></table></body></html>"
