"""Text fields remembered across restarts: their texts kept in window.ini in the data folder, beside the window's
layout (cockpit.ui.window_layout.window_settings), one group of keys per set of fields.

The task bar's task and start URL (cockpit.ui.live.task_memory) and Reports' judge server and model use it. A
field's text is kept when `keep(key, text)` lets it through (else what was kept before stays), and put back only
when something was kept (a first start leaves the fields as built).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtWidgets import QLineEdit

from cockpit.ui.window_layout import window_settings


class FieldMemory:
    def __init__(self, group: str, fields: dict[str, QLineEdit],
                 keep: Callable[[str, str], bool] = lambda _key, _text: True):
        self.group, self.fields, self.keep = group, fields, keep

    def remember(self, root: Path | str) -> None:
        """Each field's text (trimmed) into window.ini, unless `keep` says no."""
        qs = window_settings(root)
        for key, field in self.fields.items():
            text = field.text().strip()
            if self.keep(key, text):
                qs.setValue(f"{self.group}/{key}", text)
        qs.sync()

    def recall(self, root: Path | str) -> dict[str, str]:
        """What was kept, by key ('' where nothing, or what `keep` would not keep now)."""
        qs = window_settings(root)
        out = {}
        for key in self.fields:
            text = str(qs.value(f"{self.group}/{key}", "") or "")
            out[key] = text if self.keep(key, text) else ""
        return out

    def restore(self, root: Path | str) -> bool:
        """The kept texts into the fields, each shown from its beginning; False (fields untouched) when none was."""
        kept = self.recall(root)
        if not any(kept.values()):
            return False
        for key, field in self.fields.items():
            field.setText(kept[key])
            field.setCursorPosition(0)  # a long task or address: its beginning in view
        return True
