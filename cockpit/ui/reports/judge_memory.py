"""The judge server and model of Reports, remembered across restarts (walkthrough 4: after a restart the fields
were back to gpt-4o on OpenAI, so Judge pressed without looking sent the runs to another, paid judge).

Kept in window.ini in the data folder (beside the layout and the last task), saved when a judge run starts, put
back when the window opens. The API key is never here: it stays in the keyring.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLineEdit

GROUP = "judge"


def _settings(root: Path) -> QSettings:
    return QSettings(str(Path(root) / "window.ini"), QSettings.IniFormat)


def remember(url: QLineEdit, model: QLineEdit, root: Path) -> None:
    qs = _settings(root)
    qs.setValue(f"{GROUP}/url", url.text().strip())
    qs.setValue(f"{GROUP}/model", model.text().strip())
    qs.sync()


def restore(url: QLineEdit, model: QLineEdit, root: Path, given=None) -> None:
    """The last judge into the fields, when one was remembered and the panel was `given` no judge of its own."""
    qs = _settings(root)
    if given is None and qs.contains(f"{GROUP}/model") and str(qs.value(f"{GROUP}/model") or ""):
        url.setText(str(qs.value(f"{GROUP}/url", "") or ""))
        model.setText(str(qs.value(f"{GROUP}/model") or ""))
