"""Agreement formulas: percent agreement, Cohen's and Fleiss' kappa, confusion matrices.

Pure functions over plain sequences and tables, written out here (no
numpy/scipy) and checked in the tests against published worked examples.
:mod:`cockpit.core.review.agreement` applies them to the labels and verdicts
in the run store.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction

#: Fewer items in common than this, and agreement and kappa say next to nothing (κ = 1.000 over one run): the
#: window shows "n too small" in place of kappa, and agreement as a count.
MIN_ITEMS = 5


def _pairs(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"the two raters must rate the same items ({len(a)} vs {len(b)} ratings)")
    if not a:
        raise ValueError("no items to compare")


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Observed agreement p_o: the fraction (0..1, not 0..100) of items on which the
    two raters gave the same label. ``a[i]`` and ``b[i]`` rate the same item."""
    _pairs(a, b)
    return sum(x == y for x, y in zip(a, b)) / len(a)


def cohen_components(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[float, float]:
    """Cohen's observed and chance agreement (p_o, p_e) of two raters over the same items.

    Cohen (1960), "A coefficient of agreement for nominal scales":
    p_o = (1/N) * #{i : a_i = b_i};  p_e = sum over categories c of (n_a(c)/N) * (n_b(c)/N),
    where n_a(c) is how many items rater a put in category c.
    """
    _pairs(a, b)
    n = len(a)
    ca, cb = Counter(a), Counter(b)
    agree = sum(x == y for x, y in zip(a, b))
    chance = sum(ca[c] * cb[c] for c in ca)
    return agree / n, chance / (n * n)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa for two raters and nominal labels: kappa = (p_o - p_e) / (1 - p_e).

    See :func:`cohen_components` for p_o and p_e. Computed in integer counts,
    (N * agreements - sum_c n_a(c) n_b(c)) / (N^2 - sum_c n_a(c) n_b(c)), so it is exact
    up to the final division.

    Degenerate case: when p_e = 1 (both raters used one and the same single
    category for every item) the formula is 0/0. We return 1.0 if the raters
    agree on every item (p_o = 1, which is then always the case) and 0.0
    otherwise, so a pair that never varied reads as perfect agreement rather
    than an error.
    """
    _pairs(a, b)
    n = len(a)
    ca, cb = Counter(a), Counter(b)
    agree = sum(x == y for x, y in zip(a, b))
    chance = sum(ca[c] * cb[c] for c in ca)
    if chance == n * n:
        return 1.0 if agree == n else 0.0
    return (n * agree - chance) / (n * n - chance)


def _check_table(table: Sequence[Sequence[int]]) -> int:
    if not table:
        raise ValueError("Fleiss' kappa needs at least one subject")
    width = len(table[0])
    if width < 1 or any(len(row) != width for row in table):
        raise ValueError("every row of the table must have one count per category")
    if any(c < 0 or int(c) != c for row in table for c in row):
        raise ValueError("counts must be non-negative integers")
    sums = {sum(row) for row in table}
    if len(sums) != 1:
        raise ValueError(f"every subject must be rated by the same number of raters (rows sum to {sorted(sums)})")
    n = sums.pop()
    if n < 2:
        raise ValueError("Fleiss' kappa needs at least two ratings per subject")
    return n


def fleiss_components(table: Sequence[Sequence[int]]) -> tuple[float, float]:
    """Fleiss' mean observed agreement P-bar and chance agreement P-bar_e.

    Fleiss (1971), "Measuring nominal scale agreement among many raters": with N
    subjects (rows), k categories (columns), n ratings per subject and n_ij the
    raters who put subject i in category j,
    P_i = (sum_j n_ij^2 - n) / (n (n - 1)),  P-bar = (1/N) sum_i P_i,
    p_j = (1/(N n)) sum_i n_ij,  P-bar_e = sum_j p_j^2.
    """
    p_bar, pe_bar = _fleiss_exact(table)
    return float(p_bar), float(pe_bar)


def _fleiss_exact(table: Sequence[Sequence[int]]) -> tuple[Fraction, Fraction]:
    n = _check_table(table)
    subjects = len(table)
    p_bar = Fraction(sum(sum(c * c for c in row) - n for row in table), subjects * n * (n - 1))
    totals = [sum(row[j] for row in table) for j in range(len(table[0]))]
    pe_bar = Fraction(sum(t * t for t in totals), (subjects * n) ** 2)
    return p_bar, pe_bar


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa = (P-bar - P-bar_e) / (1 - P-bar_e), see :func:`fleiss_components`.

    ``table[i][j]`` is how many raters put subject i in category j; every row
    must sum to the same n >= 2 (the raters need not be the same people, only
    as many). Computed with exact fractions.

    Degenerate case: P-bar_e = 1 means every rating of every subject fell in one
    category; as for :func:`cohen_kappa` we return 1.0 if P-bar = 1 (always the
    case then) and 0.0 otherwise.
    """
    p_bar, pe_bar = _fleiss_exact(table)
    if pe_bar == 1:
        return 1.0 if p_bar == 1 else 0.0
    return float((p_bar - pe_bar) / (1 - pe_bar))


def fleiss_from_labels(labels_by_item: dict[Hashable, Iterable[Hashable]], n_raters: int | None = None,
                       categories: Sequence[Hashable] | None = None,
                       ) -> tuple[list[list[int]], list[Hashable], list[Hashable]]:
    """Build a Fleiss table from each item's labels (one label per rater, raters unnamed).

    Returns ``(table, categories, items)``: ``table[i][j]`` counts the labels of
    ``items[i]`` equal to ``categories[j]``. Fleiss' kappa needs the same number of
    ratings per item, so items rated a different number of times are left out:
    every item must have ``n_raters`` labels, by default the most common count
    among items with at least two labels (ties go to the larger count). Items are
    kept in the dict's order. Categories are those given, else every label seen
    in the kept items, sorted by their text.
    """
    lists = {item: list(ls) for item, ls in labels_by_item.items()}
    if n_raters is None:
        counts = Counter(len(ls) for ls in lists.values() if len(ls) >= 2)
        if not counts:
            return [], list(categories or []), []
        n_raters = max(counts, key=lambda c: (counts[c], c))
    items = [item for item, ls in lists.items() if len(ls) == n_raters]
    if categories is None:
        categories = sorted({lab for item in items for lab in lists[item]}, key=str)
    index = {c: j for j, c in enumerate(categories)}
    table = []
    for item in items:
        row = [0] * len(categories)
        for lab in lists[item]:
            if lab not in index:
                raise ValueError(f"label {lab!r} of item {item!r} is not one of the categories")
            row[index[lab]] += 1
        table.append(row)
    return table, list(categories), items


def confusion_matrix(truth: Sequence[Hashable], pred: Sequence[Hashable],
                     classes: Sequence[Hashable] | None = None) -> dict:
    """Counts of (truth, prediction) pairs as ``{truth_class: {predicted_class: count}}``.

    Rows are the reference (e.g. the human consensus), columns the prediction
    (e.g. a judge). Every class in ``classes`` gets a row and a column, zeros
    included, in that order; pairs involving a value outside ``classes`` are
    ignored. Without ``classes``, every value seen is a class (sorted by text).
    """
    if len(truth) != len(pred):
        raise ValueError(f"truth and prediction differ in length ({len(truth)} vs {len(pred)})")
    if classes is None:
        classes = sorted(set(truth) | set(pred), key=str)
    m = {t: {p: 0 for p in classes} for t in classes}
    for t, p in zip(truth, pred):
        if t in m and p in m[t]:
            m[t][p] += 1
    return m
