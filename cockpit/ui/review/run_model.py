"""The run's model or the window's: which model goes on from a recorded run, and what the person is told.

A branch goes on with the model its run was recorded with (server, model, dialect and coordinate space, as stored
with the run), not with whatever Model… says now (issue #38). When the two differ, the person chooses; when the
run's server is gone (a server started for a session ends with it), they are told so and offered the current
settings. Re-ask (cockpit.ui.review.reask_dialog) words a gone server the same way (:func:`gone_text`).
"""
from __future__ import annotations

import socket
from typing import Callable
from urllib.parse import urlparse

from PySide6.QtWidgets import QMessageBox, QWidget

from cockpit.core.llm import apikeys
from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.ui.fieldnames import MODEL_DIALOG

__all__ = ["ask_which_model", "describe", "gone_text", "same_model", "server_gone"]

RUNS = "Branch with the run's model"
CURRENT = "Branch with the current model"


def same_model(a: ModelConfig, b: ModelConfig) -> bool:
    """The same server, model, and way of answering (dialect and coordinates)."""
    def key(c: ModelConfig) -> tuple:
        return (c.base_url or "", c.model, c.dialect, c.coords if c.pixel else "")
    return key(a) == key(b)


def describe(cfg: ModelConfig) -> str:
    """"UI-TARS-1.5-7B at 127.0.0.1:8000 (uitars, qwen coordinates)" / "gpt-4o at … (Set-of-Mark)"."""
    how = f"{cfg.dialect}, {cfg.coords} coordinates" if cfg.pixel else "Set-of-Mark"
    return f"{cfg.model} at {cfg.display_url} ({how})"


def server_gone(cfg: ModelConfig, timeout: float = 1.0) -> bool:
    """Nothing listens at the run's server any more. Asked of a server on this computer or its network only (a
    refused connection comes back at once); a hosted API is taken to be there."""
    if not apikeys.is_local(cfg.base_url):
        return False
    where = urlparse(cfg.base_url if "//" in cfg.base_url else f"//{cfg.base_url}")
    try:
        port = where.port or (443 if where.scheme == "https" else 80)
        with socket.create_connection((where.hostname, port), timeout=timeout):
            return False
    except (OSError, ValueError):
        return True


def gone_text(asked: ModelConfig, now: ModelConfig | None, use_current: str,
              same_way: bool = False, fields: bool = False) -> tuple[str, bool]:
    """What to say when nothing answers at the run's server: (the text, whether the current settings are offered,
    named by the button `use_current`). `same_way`: the current model is offered only when it answers the way
    the run's did (marks or the same pixel dialect): re-ask sends the step's recorded prompt as it was. `fields`:
    the asking dialog has Model and Server fields of its own (Re-ask), which another server goes in; without
    them (Branch) it goes in Model… (walkthrough 8: Re-ask pointed to Model… beside its own Server field)."""
    url = asked.display_url
    said = (f"The run's model server is gone: nothing answers at {url} any more"
            + (" (a server started for a session, such as the demo policy's, ends with it)."
               if apikeys.is_local(url) else "."))
    other = ("put the address of another server in the Server field above (and its model in the Model field), "
             "then Send" if fields else f"set another one in {MODEL_DIALOG}")
    if same_way and now is not None and (now.pixel, now.dialect if now.pixel else "") != (
            asked.pixel, asked.dialect if asked.pixel else ""):
        how = describe(asked).split(" (", 1)[-1].rstrip(")")
        return said + (f" The current model ({describe(now)}) answers another way than this step was asked "
                       f"({how}): start that server again, or {other.replace('another server', 'a server')} "
                       f"with a model that answers that way." if fields else
                       f" The current model ({describe(now)}) answers another way than this step was asked "
                       f"({how}): set such a model in {MODEL_DIALOG} to re-ask it."), False
    if now is not None and (now.base_url or "", now.model) != (asked.base_url or "", asked.model):
        return said + f" Press “{use_current}” to ask {now.model} at {now.display_url} instead" + (
            f", or {other}." if fields else "."), True
    return said + f" Start that server again, or {other}.", False


def ask_which_model(parent: QWidget, run_cfg: ModelConfig | None, now: ModelConfig,
                    go: Callable[[ModelConfig], None]) -> QMessageBox | None:
    """Call `go` with the model to branch with: the run's, at once when it is the current one too; else the box
    asking which (returned, open; Cancel calls nothing). A run that recorded no model goes on with `now`."""
    if run_cfg is None:
        go(now)
        return None
    gone = server_gone(run_cfg)
    if not gone and same_model(run_cfg, now):
        go(run_cfg)
        return None
    box = QMessageBox(QMessageBox.Question, "Branch with which model?", "", QMessageBox.Cancel, parent)
    current = f"{CURRENT} ({now.model})"
    if gone:
        text, offered = gone_text(run_cfg, now, current)
        box.setIcon(QMessageBox.Warning)
    else:
        text, offered = (f"This run was made by {describe(run_cfg)}; Model… is set to {describe(now)} now. "
                         "Which should go on from this step?"), True
        runs = box.addButton(f"{RUNS} ({run_cfg.model})", QMessageBox.AcceptRole)
        runs.clicked.connect(lambda: go(run_cfg))
        box.setDefaultButton(runs)  # Enter: as the run was made
    if offered:
        box.addButton(current, QMessageBox.AcceptRole).clicked.connect(lambda: go(now))
    box.setText(text)
    box.open()
    return box
