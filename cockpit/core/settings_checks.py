"""What settings.json may hold: each value's type and range, the model settings read field by field, and
names that look like secrets (never kept). Reading a bad value gives the default and a problem in words;
nothing here reads or writes a file (:mod:`cockpit.core.settings` does)."""
from __future__ import annotations

import json
import re
import types
import typing
from typing import Any, Callable

from cockpit.core.actions.coords import SPACES, budget
from cockpit.core.agent.approval import POLICIES
from cockpit.core.llm.modelconfig import DIALECT_NAMES, ModelConfig
from cockpit.core.lookahead.planning import MAX_HORIZON, MAX_K, MAX_SAMPLES
from cockpit.core.page import images

MAX_RECENT = 10
MIN_VIEWPORT, MAX_VIEWPORT = 200, 8000  # CSS pixels a side, as `cockpit run --viewport` takes
MIN_SCALE, MAX_SCALE = 0.5, 4.0  # device scale factors, as `--device-scale-factor` takes
MAX_QWEN_PIXELS = 100_000_000  # a Qwen processor's pixel budget: far above any screen
APPROVAL_POLICIES: tuple[str, ...] = tuple(POLICIES)
IMAGE_DETAILS = ("auto", "low", "high")
IMAGE_FORMATS = images.FORMATS

#: Names that must never appear as keys anywhere in settings.json.
KEY_LIKE = re.compile(r"(^|[_\-.])(api[_\-]?key|apikey|key|secret|secrets|password|passwd|token|"
                       r"access[_\-]?token|authorization|bearer|credentials?)$", re.IGNORECASE)



def short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def bad(name: str, value: Any, default: Any) -> str:
    return f"setting {name!r} has a bad value {short(value)}; using the default {short(default)}"


def coerce(value: Any, hint: Any) -> tuple[bool, Any]:
    """(True, value) if ``value`` fits the type ``hint`` (ints are accepted for floats)."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        if value is None:
            return True, None
        inner = [a for a in args if a is not type(None)]
        return coerce(value, inner[0]) if len(inner) == 1 else (False, None)
    if origin is list:
        item = args[0] if args else Any
        if not isinstance(value, list):
            return False, None
        items = [coerce(v, item) for v in value]
        return (all(ok for ok, _ in items), [v for _, v in items])
    if hint is Any:
        return True, value
    if isinstance(value, bool) and hint is not bool:
        return False, None
    if hint is float:
        if isinstance(value, (int, float)):
            return (value == value and abs(value) != float("inf")), float(value)  # no NaN / inf
        return False, None
    if hint is int:
        if isinstance(value, float) and value.is_integer():
            return True, int(value)
        return isinstance(value, int), value
    if isinstance(hint, type):
        return isinstance(value, hint), value
    return False, None


def setting_ok(name: str, value) -> bool:
    """Whether `value` is one that settings.json may hold for `name` (a field the window also lets people type)."""
    check = CHECKS.get(name)
    return check is None or check(value)[0]


def check(pred: Callable[[Any], bool], fix: Callable[[Any], Any] = lambda v: v):
    def check(value):
        return (True, fix(value)) if pred(value) else (False, None)
    return check


def clean_recent(value: list[str]) -> tuple[bool, list[str]]:
    seen: list[str] = []
    for p in value:
        if p.strip() and p not in seen:
            seen.append(p)
    return True, seen[:MAX_RECENT]


CHECKS: dict[str, Callable[[Any], tuple[bool, Any]]] = {
    "max_steps": check(lambda v: 1 <= v <= 10_000),
    "approval_policy": check(lambda v: v in APPROVAL_POLICIES),
    "keep_images": check(lambda v: 0 <= v <= 1000),
    "memory_k": check(lambda v: 0 <= v <= 10),
    "annotator": check(lambda v: len(v) <= 200, str.strip),
    "recent_task_files": clean_recent,
    "preview_model": check(lambda v: len(v) <= 200, str.strip),
    "preview_base_url": check(lambda v: v.strip() == "" or re.match(r"^https?://\S+$", v.strip()), str.strip),
    "webdriver_url": check(lambda v: v.strip() == "" or re.match(r"^https?://\S+$", v.strip()), str.strip),
    "plan_k": check(lambda v: 1 <= v <= MAX_K),
    "plan_horizon": check(lambda v: 1 <= v <= MAX_HORIZON),
    "plan_samples": check(lambda v: 1 <= v <= MAX_SAMPLES),
    "viewport": check(lambda v: len(v) == 2 and all(MIN_VIEWPORT <= n <= MAX_VIEWPORT for n in v)),
    "device_scale_factor": check(lambda v: MIN_SCALE <= v <= MAX_SCALE),
}

MODEL_CHECKS: dict[str, Callable[[Any], tuple[bool, Any]]] = {
    "base_url": check(lambda v: v is None or v.strip() == "" or re.match(r"^https?://\S+$", v.strip()),
                       lambda v: (v or "").strip() or None),
    "model": check(lambda v: bool(v.strip()), str.strip),
    "temperature": check(lambda v: 0.0 <= v <= 2.0),
    "max_tokens": check(lambda v: v >= 1),
    "timeout": check(lambda v: v > 0),
    "max_retries": check(lambda v: 0 <= v <= 100),
    "backoff": check(lambda v: v >= 0),
    "backoff_cap": check(lambda v: v >= 0),
    "image_detail": check(lambda v: v in IMAGE_DETAILS),
    "image_max_width": check(lambda v: v is None or v >= 0, lambda v: v or None),  # 0 = off = None
    "image_format": check(lambda v: v.lower() in IMAGE_FORMATS, str.lower),
    "price_in": check(lambda v: v is None or v >= 0),
    "price_out": check(lambda v: v is None or v >= 0),
    "dialect": check(lambda v: v in DIALECT_NAMES),
    "coords": check(lambda v: v in SPACES),
    "qwen_min_pixels": check(lambda v: v is None or 0 <= v <= MAX_QWEN_PIXELS, lambda v: v or None),  # 0 = default
    "qwen_max_pixels": check(lambda v: v is None or 0 <= v <= MAX_QWEN_PIXELS, lambda v: v or None),
}


def model_from_dict(data: Any, problems: list[str]) -> ModelConfig:
    out = ModelConfig()
    if not isinstance(data, dict):
        problems.append(f"setting 'model' is a {type(data).__name__}, not an object; using the default model")
        return out
    hints = typing.get_type_hints(ModelConfig)
    for name, value in data.items():
        if name not in hints:
            if KEY_LIKE.search(str(name)):
                problems.append(f"model settings hold a key-like entry {name!r}; it was ignored and will not "
                                "be saved (API keys belong in the system keyring or OPENAI_API_KEY)")
            continue
        ok, coerced = coerce(value, hints[name])
        check = MODEL_CHECKS.get(name)
        if ok and check is not None:
            ok, coerced = check(coerced)
        if ok:
            setattr(out, name, coerced)
        else:
            problems.append(bad(f"model.{name}", value, getattr(out, name)))
    try:
        budget(out.qwen_min_pixels, out.qwen_max_pixels)
    except ValueError as e:
        problems.append(f"model settings: {e}; using the model card's budget")
        out.qwen_min_pixels = out.qwen_max_pixels = None
    return out


def key_like_paths(data: Any, prefix: str = "") -> list[str]:
    found: list[str] = []
    if isinstance(data, dict):
        for k, v in data.items():
            where = f"{prefix}{k}"
            if KEY_LIKE.search(str(k)):
                found.append(where)
            found += key_like_paths(v, where + ".")
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += key_like_paths(v, f"{prefix}{i}.")
    return found
