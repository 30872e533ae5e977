"""What every bench shares: its command line, timing, medians and percentiles, and its output.

A bench is run from the repository root as a module (``python -m bench.step_bench``), so it imports
``cockpit`` and ``testkit`` without touching ``sys.path``. Each one builds its command line with
:class:`Arguments` (the shared ``--json FILE``, ``--quick`` and, where it has one, ``--repeats``),
times with :func:`since_ms` or :func:`timed`, sums up with :func:`median`, :func:`percentile` and
:func:`summary` (the standard library's ``statistics``), prints with :class:`Table` and writes what it
printed as JSON with :func:`write_json`.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

NAN = float("nan")
ROOT = Path(__file__).resolve().parent.parent
#: the fixture pages of the tests, which some benches serve too
TEST_PAGES = ROOT / "tests" / "pages"


# ---------------------------------------------------------------- the command line
class Arguments(argparse.ArgumentParser):
    """A bench's argument parser: its docstring as the help, ``--json FILE``, and when given,
    ``--repeats N`` and ``--quick`` (a short run to check the bench works: the values in `quick`
    replace the defaults of the options not given on the command line)."""

    def __init__(self, doc: str, *, repeats: int | None = None, repeats_help: str = "",
                 quick: dict | None = None, json_help: str = "also write the results as JSON to FILE"):
        super().__init__(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
        self.quick = dict(quick or {})
        if repeats is not None:
            self.add_argument("--repeats", type=int, default=repeats,
                              help=repeats_help or f"timings per case (default {repeats})")
        self.add_argument("--json", type=Path, metavar="FILE", help=json_help)
        if self.quick:
            self.add_argument("--quick", action="store_true", help="a short run, to check the bench works: "
                              + ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in self.quick.items()))

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        ns = super().parse_args(args, namespace)
        if getattr(ns, "quick", False):
            for key, value in self.quick.items():
                if getattr(ns, key) == self.get_default(key):
                    setattr(ns, key, value)
        return ns


# ---------------------------------------------------------------- timing
def since_ms(t0: float) -> float:
    """Milliseconds since `t0`, a ``time.perf_counter()`` reading."""
    return (time.perf_counter() - t0) * 1000


@contextmanager
def timed(into: list[float]) -> Iterator[None]:
    """Time the block; its milliseconds are appended to `into`."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        into.append(since_ms(t0))


# ---------------------------------------------------------------- statistics
def median(values: Iterable[float]) -> float:
    """The median, NaN when there is nothing."""
    values = list(values)
    return statistics.median(values) if values else NAN


def percentile(values: Iterable[float], p: int) -> float:
    """The p-th percentile (1..99), interpolated between the two nearest values (``statistics.quantiles``,
    inclusive method: 0 is the smallest value, 100 the largest); NaN when there is nothing."""
    values = list(values)
    if len(values) < 2:
        return values[0] if values else NAN
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def summary(values: Iterable[float]) -> dict:
    """n, median, p95, p99, mean, min and max of `values` (NaN for an empty list)."""
    values = list(values)
    if not values:
        return {"n": 0, **dict.fromkeys(("median", "p95", "p99", "mean", "min", "max"), NAN)}
    return {"n": len(values), "median": median(values), "p95": percentile(values, 95),
            "p99": percentile(values, 99), "mean": statistics.mean(values), "min": min(values), "max": max(values)}


# ---------------------------------------------------------------- output
_SPEC = re.compile(r"^(?P<align>[<>^])?(?P<width>\d+)")


class Table:
    """A fixed-width table printed as it goes, which keeps its rows for the JSON output.

    ``Table(("page", "page", "<22"), ("median", "median", ">6.0f", "ms"))``: each column is
    (key, header, format spec[, unit written after each cell]); the header is aligned to the cell's
    width. A cell may be given already formatted as a string when the spec is only an alignment and
    a width.
    """

    def __init__(self, *columns: tuple[str, ...], sep: str = " "):
        self.columns = [(c[0], c[1], c[2], c[3] if len(c) > 3 else "") for c in columns]
        self.sep = sep
        self.rows: list[dict] = []

    def header(self, extra: str = "") -> str:
        cells = []
        for _key, head, spec, unit in self.columns:
            m = _SPEC.match(spec)
            cells.append(f"{head:{m['align'] or '<'}{int(m['width']) + len(unit)}}" if m else head)
        return self.sep.join(cells) + extra

    def row(self, *values, extra: str = "", record: dict | None = None) -> str:
        """The row's line; the values (and `record`, more fields for the JSON) are kept in `rows`."""
        self.rows.append({**{c[0]: _plain(v) for c, v in zip(self.columns, values, strict=True)}, **(record or {})})
        return self.sep.join(f"{v:{spec}}{unit}" for (_k, _h, spec, unit), v in zip(self.columns, values, strict=True)) + extra


def _plain(value):
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def write_json(path: Path | str | None, data) -> None:
    """Write `data` as indented JSON to `path` (nothing when `path` is None); NaN becomes null."""
    if path is None:
        return
    Path(path).write_text(json.dumps(_clean(data), indent=1, default=str))


def _clean(data):
    if isinstance(data, float) and math.isnan(data):
        return None
    if isinstance(data, dict):
        return {str(k): _clean(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_clean(v) for v in data]
    return data
