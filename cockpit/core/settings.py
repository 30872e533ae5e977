"""The user's settings: one typed object, stored as ``settings.json`` in Cockpit's home.

What it is for: a single :class:`Settings` value that the window, the CLI and
the agent can share (which model server and model, the agent's step budget,
when to ask for approval, how many screenshots to keep, who is recorded as
the human on decisions, recently opened task files). Every field carries a
short ``help`` text in its dataclass metadata (see :func:`field_help`) so a
UI can show it next to the control.

Reading is forgiving: a missing file gives the defaults; a broken file is
kept aside as ``settings.json.bad`` and the defaults are used; unknown keys
are ignored; a value of the wrong type or out of range falls back to that
field's default. Each such fallback is reported as a sentence in the list of
problems that :func:`load_settings` returns, so nothing happens silently.

What it must not do: import Qt, or ever hold or write an API key. Keys live
only in the system keyring or the environment (:mod:`cockpit.core.llm.apikeys`);
:func:`save_settings` refuses to write anything that looks like a key field.
Writing is atomic (a temporary file in the same folder, then a rename), so a
crash never leaves a half-written settings file behind.
"""
from __future__ import annotations

import copy
import dataclasses
import getpass
import json
import logging
import os
import tempfile
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cockpit.core import paths
from cockpit.core import settings_checks as checks
from cockpit.core.errors import CockpitError
from cockpit.core.llm.client import ModelConfig
from cockpit.core.lookahead.planning import PlanningConfig
from cockpit.core.lookahead.worldmodel import WorldModelConfig
from cockpit.core.settings_checks import APPROVAL_POLICIES, IMAGE_DETAILS, IMAGE_FORMATS, MAX_RECENT, setting_ok  # noqa: F401
from cockpit.core.words import json_error

__all__ = [
    "APPROVAL_POLICIES",
    "IMAGE_DETAILS",
    "IMAGE_FORMATS",
    "MAX_RECENT",
    "MODEL_HELP",
    "SETTINGS_VERSION",
    "Settings",
    "SettingsError",
    "setting_ok",
    "field_help",
    "load_settings",
    "os_user_name",
    "save_settings",
    "settings_path",
]

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1
FILE_NAME = "settings.json"
class SettingsError(CockpitError):
    """Settings could not be written (or would have contained a secret)."""


def os_user_name() -> str:
    """The operating system's name for the current user ("user" if it cannot be found)."""
    try:
        name = getpass.getuser()
    except Exception:  # no USER/LOGNAME and no passwd entry (containers)
        name = ""
    return (name or "").strip() or "user"


#: Help texts for the fields of :class:`ModelConfig` (it lives in cockpit.core.llm.modelconfig and has no metadata).
MODEL_HELP: dict[str, str] = {
    "base_url": "Address of an OpenAI-compatible server, e.g. http://localhost:8000/v1 for vLLM. "
                "Empty means OpenAI.",
    "model": "Model name as the server knows it, e.g. gpt-4o.",
    "temperature": "Sampling temperature (0 = most deterministic, 2 = most random).",
    "max_tokens": "Upper limit on the length of each model reply, in tokens.",
    "timeout": "Seconds to wait for one model request before giving up on it.",
    "max_retries": "How often a failed request is retried (rate limits, server errors, timeouts).",
    "backoff": "Seconds to wait before the first retry; doubles with each further retry.",
    "backoff_cap": "Longest wait between two retries, in seconds.",
    "image_detail": "Image detail sent with screenshots: auto, low (cheap) or high.",
    "image_max_width": "Screenshots wider than this many pixels are scaled down before sending "
                       "(empty or 0 = never).",
    "image_format": "How screenshots are sent to the model: jpeg (fast to encode; the default) or png "
                    "(lossless, as WebVoyager sent them). They are stored as PNG either way.",
    "price_in": "USD per million prompt tokens, for the cost estimate (empty = built-in price list).",
    "price_out": "USD per million completion tokens, for the cost estimate (empty = built-in price list).",
    "dialect": "How the model answers: marks (numbered boxes, WebVoyager), auto (detected per reply), or a "
               "pixel dialect (plain, uitars, qwen, claude, openai_tools, openai_computer): those models get the "
               "clean screenshot and act at points.",
    "coords": "A pixel dialect's coordinate space: pixels (of the screenshot as sent), norm1000, norm1, or qwen "
              "(Qwen2.5-VL's resized grid).",
    "qwen_min_pixels": "The qwen space: the smallest image, in pixels, the server's Qwen processor resizes "
                       "screenshots to (empty = the model card's 3,136). As the server was started with, e.g. "
                       "vLLM's --mm-processor-kwargs '{\"min_pixels\": ...}'.",
    "qwen_max_pixels": "The qwen space: the largest image, in pixels, the server's Qwen processor resizes "
                       "screenshots to (empty = the model card's 12,845,056). A common vLLM setting is 1003520 "
                       "(--mm-processor-kwargs '{\"max_pixels\": 1003520}'); it decides the grid the model "
                       "points on.",
}


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass
class Settings:
    """Everything the user can set. Never holds an API key."""

    version: int = field(default=SETTINGS_VERSION, metadata=_help(
        "Format version of settings.json."))
    model: ModelConfig = field(default_factory=ModelConfig, metadata=_help(
        "Which model server and model the agent talks to, and how."))
    max_steps: int = field(default=15, metadata=_help(
        "Most actions the agent may take on one task before it is stopped."))
    approval_policy: str = field(default="irreversible", metadata=_help(
        "When to ask you before an action runs: irreversible (purchases, sending, deleting), "
        "every (each action) or never."))
    keep_images: int = field(default=3, metadata=_help(
        "How many of the newest screenshots are sent to the model with each request (WebVoyager: 3)."))
    memory_k: int = field(default=0, metadata=_help(
        "Procedural memory: how many similar past successful runs are given to the agent as examples "
        "before a run (0 = off; 1 or 2 is typical)."))
    keep_browser_state: bool = field(default=False, metadata=_help(
        "The window's runs go on in the browser as the last run left it (cookies, storage, log-ins). "
        "Off: each run starts clean (a new browser context: no cookies, storage or cache of the last run)."))
    record_web: bool = field(default=True, metadata=_help(
        "Record the web with every run: each request and response, and each step's page, in the run's folder, "
        "so the run can be replayed as recorded and its steps inspected as they were."))
    webdriver_url: str = field(default="", metadata=_help(
        "The window's browser on a remote WebDriver or Selenium Grid, e.g. http://hub:4444 (empty = "
        "Chromium on this computer). Its nodes must reach the pages: the demo site is served on 127.0.0.1."))
    chrome_args: list[str] = field(default_factory=list, metadata=_help(
        "Extra Chrome arguments for the window's browser, e.g. --no-sandbox for a Grid node run as root."))
    viewport: list[int] = field(default_factory=lambda: [1024, 768], metadata=_help(
        "The window's browser: the page's viewport in CSS pixels, width and height (WebVoyager: 1024x768)."))
    device_scale_factor: float = field(default=1.0, metadata=_help(
        "The window's browser: screenshot pixels per CSS pixel (1; 2 gives a HiDPI 2048x1536 screenshot of a "
        "1024x768 page, for pixel models trained on such screens). Points are converted either way."))
    annotator: str = field(default="", metadata=_help(
        "Your name as recorded on approval decisions (\"human:<name>\"). Empty = the OS user name."))
    recent_task_files: list[str] = field(default_factory=list, metadata=_help(
        "Task files opened recently, newest first."))
    # -- look-ahead (world-model preview and planning; cockpit.core.lookahead.worldmodel / planning) --
    preview_model: str = field(default="", metadata=_help(
        "World model: before each action, this model predicts what the action will change (shown at the "
        "approval gate; planning simulates candidates with it). Empty = no preview; planning then uses "
        "the agent's model."))
    preview_base_url: str = field(default="", metadata=_help(
        "Server of the preview model (empty = the agent's server). Its API key comes from the keyring "
        "entry for that server, like the agent's."))
    planning: bool = field(default=False, metadata=_help(
        "Planning mode: the agent proposes several candidate actions, the world model simulates and "
        "scores each, the best one runs (through the approval gate)."))
    plan_k: int = field(default=3, metadata=_help("Planning: candidate actions asked for per step."))
    plan_horizon: int = field(default=1, metadata=_help(
        "Planning: imagined steps simulated per candidate (1 works best; longer rollouts drift)."))
    plan_samples: int = field(default=1, metadata=_help(
        "Planning: scorer replies averaged per candidate."))
    plan_refine: bool = field(default=True, metadata=_help(
        "Planning: let the agent's model drop irrelevant candidates before they are simulated."))

    # -- convenience --------------------------------------------------------------
    def annotator_name(self) -> str:
        """The name to record on decisions: :attr:`annotator`, else the OS user name."""
        return self.annotator.strip() or os_user_name()

    def decided_by(self) -> str:
        """The ``by`` value of a human decision, e.g. ``"human:alice"``."""
        return f"human:{self.annotator_name()}"

    def add_recent_task_file(self, path: str | os.PathLike) -> None:
        """Put ``path`` first in :attr:`recent_task_files` (no duplicates, at most MAX_RECENT)."""
        p = str(path)
        self.recent_task_files = [p] + [q for q in self.recent_task_files if q != p]
        del self.recent_task_files[MAX_RECENT:]

    def copy(self) -> "Settings":
        return copy.deepcopy(self)

    def preview_config(self):
        """The world model as a WorldModelConfig (no key: the keyring's, per server), or None."""
        if not self.preview_model.strip():
            return None
        base_url = self.preview_base_url.strip() or self.model.base_url
        model = dataclasses.replace(self.model, model=self.preview_model.strip(), base_url=base_url)
        if (model.model, model.base_url) != (self.model.model, self.model.base_url):
            model = dataclasses.replace(model, price_in=None, price_out=None)  # prices are the agent model's
        return WorldModelConfig(model=model)

    def planning_config(self):
        """A PlanningConfig when planning is on (it simulates with the preview model, else the agent's)."""
        if not self.planning:
            return None
        return PlanningConfig(k=self.plan_k, horizon=self.plan_horizon, samples=self.plan_samples,
                              refine=self.plan_refine)

    # -- (de)serialisation --------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the model as a nested dict)."""
        return {
            "version": SETTINGS_VERSION,
            "model": self.model.to_dict(),
            "max_steps": self.max_steps,
            "approval_policy": self.approval_policy,
            "keep_images": self.keep_images,
            "memory_k": self.memory_k,
            "keep_browser_state": self.keep_browser_state,
            "record_web": self.record_web,
            "webdriver_url": self.webdriver_url,
            "chrome_args": list(self.chrome_args),
            "viewport": list(self.viewport),
            "device_scale_factor": self.device_scale_factor,
            "annotator": self.annotator,
            "recent_task_files": list(self.recent_task_files),
            "preview_model": self.preview_model,
            "preview_base_url": self.preview_base_url,
            "planning": self.planning,
            "plan_k": self.plan_k,
            "plan_horizon": self.plan_horizon,
            "plan_samples": self.plan_samples,
            "plan_refine": self.plan_refine,
        }

    @classmethod
    def from_dict(cls, data: Any) -> tuple["Settings", list[str]]:
        """Settings from a stored dict, and the problems met on the way.

        Unknown keys are ignored, missing keys get their default, and a value of
        the wrong type or out of range falls back to its field's default (each
        reported as a problem). Key-like entries are dropped and reported.
        """
        problems: list[str] = []
        if not isinstance(data, dict):
            problems.append(f"settings are a {type(data).__name__}, not an object; using defaults")
            return cls(), problems
        out = cls()
        hints = typing.get_type_hints(cls)
        for name in data:
            if name in _FIELD_NAMES:
                continue
            if checks.KEY_LIKE.search(str(name)):
                problems.append(f"settings hold a key-like entry {name!r}; it was ignored and will not be "
                                "saved (API keys belong in the system keyring or OPENAI_API_KEY)")
            # other unknown keys (e.g. from a newer Cockpit) are ignored quietly
        version = data.get("version", SETTINGS_VERSION)
        if isinstance(version, int) and not isinstance(version, bool) and version > SETTINGS_VERSION:
            problems.append(f"settings were written by a newer Cockpit (version {version}); "
                            "settings it does not know are ignored")
        for f in dataclasses.fields(cls):
            if f.name in ("version", "model") or f.name not in data:
                continue
            ok, value = checks.coerce(data[f.name], hints[f.name])
            check = checks.CHECKS.get(f.name)
            if ok and check is not None:
                ok, value = check(value)
            if ok:
                setattr(out, f.name, value)
            else:
                problems.append(checks.bad(f.name, data[f.name], getattr(out, f.name)))
        if "model" in data:
            out.model = checks.model_from_dict(data["model"], problems)
        return out, problems


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Settings))


def field_help(name: str) -> str:
    """The help text of a setting: ``"max_steps"`` or ``"model.temperature"`` ("" if unknown)."""
    if name.startswith("model."):
        return MODEL_HELP.get(name[len("model."):], "")
    for f in dataclasses.fields(Settings):
        if f.name == name:
            return f.metadata.get("help", "")
    return ""


# --------------------------------------------------------------------------- files


def settings_path() -> Path:
    """``settings.json`` in Cockpit's home (``COCKPIT_HOME`` overrides the platform default)."""
    return paths.home() / FILE_NAME


def load_settings(path: str | os.PathLike | None = None) -> tuple[Settings, list[str]]:
    """The stored settings and a list of problems (sentences for the human).

    A missing file gives the defaults with no problems. A file that is not
    valid JSON (or not a JSON object) is renamed to ``settings.json.bad`` and
    the defaults are used; the problem says so.
    """
    p = Path(path) if path is not None else settings_path()
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return Settings(), []
    except OSError as e:
        return Settings(), [f"{p.name} could not be read ({e.strerror or type(e).__name__}); using defaults"]
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        detail = json_error(e) if isinstance(e, json.JSONDecodeError) else type(e).__name__
        return Settings(), [f"{p.name} is not valid JSON ({detail}); using defaults{_keep_bad(p)}"]
    if not isinstance(data, dict):
        return Settings(), [f"{p.name} does not hold a JSON object; using defaults{_keep_bad(p)}"]
    settings, problems = Settings.from_dict(data)
    for msg in problems:
        log.warning("%s: %s", p, msg)
    return settings, problems


def _keep_bad(p: Path) -> str:
    bad = p.with_name(p.name + ".bad")
    try:
        os.replace(p, bad)
    except OSError as e:
        log.warning("could not keep the broken settings file as %s: %s", bad, e)
        return f" (the broken file could not be renamed: {e.strerror or type(e).__name__})"
    log.warning("broken settings file kept as %s", bad)
    return f"; the broken file was kept as {bad.name}"


def save_settings(settings: Settings, path: str | os.PathLike | None = None) -> None:
    """Write ``settings`` atomically as JSON; raises SettingsError on failure.

    Refuses (SettingsError) to write anything whose name looks like a key
    (``api_key``, ``secret``, ``password``, ``token``, ...).
    """
    p = Path(path) if path is not None else settings_path()
    data = settings.to_dict()
    leaked = checks.key_like_paths(data)
    if leaked:
        raise SettingsError(f"refusing to write key-like settings ({', '.join(leaked)}) to {p.name}; "
                            "API keys belong in the system keyring")
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    tmp_name = None
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_name, p)
        tmp_name = None
    except OSError as e:
        raise SettingsError(f"could not save settings to {p}: {e.strerror or e}") from None
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
