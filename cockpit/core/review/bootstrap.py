"""Bootstrap 95% intervals over runs for the agreement figures (Efron & Tibshirani, "An Introduction to the
Bootstrap", ch. 13: the percentile interval).

Each figure (kappa, agreement, precision, recall, false-positive rate, success-rate gap) is a function of its runs. A resample
draws as many runs as there are, with replacement, from :class:`random.Random` seeded with ``seed``
(``rng.choices(items, k=len(items))``); the figure is computed on it; this is repeated ``resamples`` times,
and the interval is the 2.5th and 97.5th percentiles of the values (linear interpolation between order
statistics, Python's ``statistics.quantiles(method="inclusive")`` and numpy's default). A resample where a
figure is undefined (precision when the judge said success on none of the drawn runs) is left out of that
figure; when more than half are, its interval is None. The figures of one comparison are computed on the
same resamples; each comparison starts its own generator from the seed, so the same seed gives the same
intervals and adding a comparison does not move the others.

Written here rather than taken from scipy (``scipy.stats.bootstrap``): Cockpit ships without numpy/scipy,
and over two-valued labels every figure is a function of a few counts, so a resample is one ``choices``
call and a ``Counter``.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

RESAMPLES = 2000
SEED = 0
LEVEL = 0.95


@dataclass(frozen=True)
class Bootstrap:
    resamples: int = RESAMPLES
    seed: int = SEED
    level: float = LEVEL

    def describe(self) -> str:
        return (f"{self.level:.0%} intervals: percentile bootstrap over runs, {self.resamples} resamples, "
                f"seed {self.seed}")

    def intervals(self, items: Sequence[Hashable], statistics: dict[str, Callable[[Counter], float | None]]
                  ) -> dict[str, tuple[float, float] | None]:
        """Each statistic's percentile interval (a statistic is a function of the items' counts) over the same
        resamples of `items`; None with no items or resamples, or for mostly undefined values."""
        if not items or self.resamples < 1:
            return {name: None for name in statistics}
        rng = random.Random(self.seed)
        pool = list(items)
        values: dict[str, list[float]] = {name: [] for name in statistics}
        for _ in range(self.resamples):
            counts = Counter(rng.choices(pool, k=len(pool)))
            for name, statistic in statistics.items():
                v = statistic(counts)
                if v is not None:
                    values[name].append(v)
        tail = (1 - self.level) / 2
        out = {}
        for name, vs in values.items():
            vs.sort()
            out[name] = None if len(vs) * 2 < self.resamples else (quantile(vs, tail), quantile(vs, 1 - tail))
        return out


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolating linearly between order statistics (type 7)."""
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# --------------------------------------------------------------------------- figures from counts
# Pairs are (reference, other) with 1 = success, 0 = fail: (human, judge) or (annotator 1, annotator 2).


def pair_agreement(c: Counter) -> float | None:
    n = sum(c.values())
    return (c[(1, 1)] + c[(0, 0)]) / n if n else None


def pair_kappa(c: Counter) -> float | None:
    """Cohen's kappa from the pair counts, as :func:`cockpit.core.review.kappa.cohen_kappa` computes it."""
    n = sum(c.values())
    if not n:
        return None
    agree = c[(1, 1)] + c[(0, 0)]
    a1, b1 = c[(1, 1)] + c[(1, 0)], c[(1, 1)] + c[(0, 1)]
    chance = a1 * b1 + (n - a1) * (n - b1)
    if chance == n * n:
        return 1.0 if agree == n else 0.0
    return (n * agree - chance) / (n * n - chance)


def precision(c: Counter) -> float | None:
    said = c[(1, 1)] + c[(0, 1)]
    return c[(1, 1)] / said if said else None


def recall(c: Counter) -> float | None:
    real = c[(1, 1)] + c[(1, 0)]
    return c[(1, 1)] / real if real else None


def false_positive_rate(c: Counter) -> float | None:
    """Of the runs the reference failed, the share the other called a success: fp / (fp + tn)."""
    failed = c[(0, 1)] + c[(0, 0)]
    return c[(0, 1)] / failed if failed else None


def rate_gap(c: Counter) -> float | None:
    """The other's success rate minus the reference's, over the same runs (judge minus humans)."""
    n = sum(c.values())
    if not n:
        return None
    return ((c[(1, 1)] + c[(0, 1)]) - (c[(1, 1)] + c[(1, 0)])) / n


def fleiss_rows(c: Counter) -> float | None:
    """Fleiss' kappa from counts of rows (n_success, n_fail), each row a run rated by the same n raters."""
    subjects = sum(c.values())
    if not subjects:
        return None
    n = sum(next(iter(c)))
    p_bar = sum(k * (s * s + f * f - n) for (s, f), k in c.items()) / (subjects * n * (n - 1))
    tot_s = sum(k * s for (s, _f), k in c.items())
    tot_f = subjects * n - tot_s
    pe = (tot_s * tot_s + tot_f * tot_f) / (subjects * n) ** 2
    if pe == 1:
        return 1.0 if p_bar == 1 else 0.0
    return (p_bar - pe) / (1 - pe)
