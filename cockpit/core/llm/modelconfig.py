"""Which model to call and what it costs: :class:`ModelConfig`, and the price list behind its cost estimates.

A ModelConfig is stored with each run and never holds a key. Prices are USD
per 1M tokens: the config's own, else :data:`PRICES` by model name. Re-exported
by :mod:`cockpit.core.llm.client`, which calls the model.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from cockpit.core.actions import coords
from cockpit.core.actions.dialects import DIALECTS as PIXEL_DIALECTS

#: Every reply format: Set-of-Mark, detected per reply, or a pixel dialect (cockpit.core.actions.dialects).
DIALECT_NAMES = ("marks", "auto") + tuple(PIXEL_DIALECTS)

#: USD per 1M (prompt, completion) tokens of a few well-known models.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
}


@dataclass
class ModelConfig:
    """Which server and model to use and how to call it. Stored with each run; never holds a key."""

    base_url: str | None = None      # None = OpenAI; e.g. http://localhost:8000/v1 (vLLM)
    model: str = "gpt-4o"
    temperature: float = 1.0
    max_tokens: int = 1000
    timeout: float = 120.0           # seconds per request
    max_retries: int = 4             # retries after the first attempt
    backoff: float = 1.0             # first wait in seconds; doubles, capped at backoff_cap, with jitter
    backoff_cap: float = 30.0
    image_detail: str = "auto"       # "low" | "high" | "auto" -> image_url.detail
    image_max_width: int | None = None  # downscale screenshots wider than this before sending
    image_format: str = "jpeg"       # "jpeg" | "png": how screenshots are sent (stored as PNG either way)
    price_in: float | None = None    # USD per 1M prompt tokens; None = look up PRICES
    price_out: float | None = None   # USD per 1M completion tokens; None = look up PRICES
    dialect: str = "marks"           # how the model answers: "marks" (Set-of-Mark) or a pixel dialect, or "auto"
    coords: str = "pixels"           # a pixel dialect's coordinate space (cockpit.core.actions.coords.SPACES)
    qwen_min_pixels: int | None = None  # the qwen space: the server's image processor budget (None = the
    qwen_max_pixels: int | None = None  # model card's, 3,136 and 12,845,056); vLLM: --mm-processor-kwargs

    @property
    def pixel(self) -> bool:
        """The model acts at points on a clean screenshot (pixel mode), not on numbered marks."""
        return self.dialect != "marks"

    def qwen_budget(self) -> tuple[int, int]:
        """(min, max) pixels the server's Qwen processor resizes screenshots within (the qwen space's grid)."""
        return coords.budget(self.qwen_min_pixels, self.qwen_max_pixels)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "ModelConfig":
        """Build from a stored dict, ignoring keys this version does not know."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (data or {}).items() if k in known})

    @property
    def display_url(self) -> str:
        return self.base_url or "https://api.openai.com/v1"


#: Dialect presets: name -> (dialect, coordinate space, what it is for). A preset names a model family, not a
#: server: the same model answers alike from vLLM, Ollama, LM Studio or a hosted endpoint.
PRESETS: dict[str, tuple[str, str, str]] = {
    "webvoyager-marks": ("marks", "pixels", "Set-of-Mark: numbered boxes, Click [12] (WebVoyager)"),
    "ui-tars-1.5": ("uitars", "qwen", "UI-TARS-1.5: click(start_box='(x,y)') on its resized grid"),
    "ui-tars-1.0": ("uitars", "norm1000", "UI-TARS 1.0: click(start_box='(x,y)') in 0..1000"),
    "qwen2.5-vl": ("qwen", "qwen", "Qwen2.5-VL: the computer_use function, pixels of its resized grid"),
    "qwen3-vl": ("qwen", "norm1000", "Qwen3-VL: the computer_use function in 0..1000"),
    "computer-use-json": ("claude", "pixels", "Claude-style computer-use JSON actions, screenshot pixels"),
    "openai-tools": ("openai_tools", "pixels", "OpenAI function tools (click, type, scroll...) in chat"),
    "openai-computer-use": ("openai_computer", "pixels", "OpenAI's computer-use tool (Responses API)"),
    "auto": ("auto", "pixels", "detect the dialect from each reply; screenshot pixels"),
}

#: The presets' earlier names (they said vLLM, though Ollama and LM Studio serve these models too); still read.
PRESET_ALIASES: dict[str, str] = {"vllm-ui-tars-1.5": "ui-tars-1.5", "vllm-ui-tars": "ui-tars-1.0",
                                  "vllm-qwen2.5-vl": "qwen2.5-vl", "vllm-qwen3-vl": "qwen3-vl"}

#: Model names (as servers list them: "ByteDance-Seed/UI-TARS-1.5-7B", "qwen2.5vl:7b") -> the preset they answer
#: in; the first match wins.
_FAMILIES = ((r"ui[-_ ]?tars[-_ ]?1\.5", "ui-tars-1.5"), (r"ui[-_ ]?tars", "ui-tars-1.0"),
             (r"qwen[-_ ]?2[._]?5[-_ ]?vl", "qwen2.5-vl"), (r"qwen[-_ ]?3[-_ ]?vl", "qwen3-vl"),
             (r"computer[-_ ]use[-_ ]preview", "openai-computer-use"))


def preset_named(name: str) -> str:
    """The preset `name` stands for (an earlier name gives its new one); ValueError for none."""
    name = PRESET_ALIASES.get(name, name)
    if name not in PRESETS:
        raise ValueError(f"no preset {name!r}; one of {', '.join(PRESETS)}")
    return name


def preset_for_model(model: str) -> str | None:
    """The preset a model of this name answers in (UI-TARS, Qwen-VL, OpenAI computer use), or None."""
    name = (model or "").lower()
    return next((preset for pattern, preset in _FAMILIES if re.search(pattern, name)), None)


def price_for(model: str) -> tuple[float, float] | None:
    """Known (in, out) USD per 1M tokens: exact name, else the longest matching prefix."""
    name = (model or "").lower()
    if name in PRICES:
        return PRICES[name]
    for known in sorted(PRICES, key=len, reverse=True):
        if name.startswith(known):
            return PRICES[known]
    return None


def estimate_cost(config: ModelConfig, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for one call, or None when either price is unknown."""
    known = price_for(config.model) or (None, None)
    p_in = config.price_in if config.price_in is not None else known[0]
    p_out = config.price_out if config.price_out is not None else known[1]
    if p_in is None or p_out is None:
        return None
    return (prompt_tokens * p_in + completion_tokens * p_out) / 1_000_000
