"""The model settings' "Answers as" row: a preset (Set-of-Mark, UI-TARS, Qwen, computer-use JSON, OpenAI
computer use, auto), or a dialect and coordinate space picked apart."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from cockpit.core.actions.coords import SPACES
from cockpit.core.llm.modelconfig import DIALECT_NAMES as DIALECTS
from cockpit.core.llm.modelconfig import PRESETS

_CUSTOM = "custom"


class DialectField(QWidget):
    """Preset, dialect and coordinate space; picking a preset fills the other two."""

    def __init__(self, parent=None):
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.preset = QComboBox()
        for name, (_, _, what) in PRESETS.items():
            self.preset.addItem(name, name)
            self.preset.setItemData(self.preset.count() - 1, what, 3)  # tooltip role
        self.preset.addItem(_CUSTOM, _CUSTOM)
        self.preset.setToolTip("How the model answers: numbered marks (WebVoyager) or points on a clean "
                               "screenshot, in a model family's own format")
        self.dialect = QComboBox()
        self.dialect.addItems(list(DIALECTS))
        self.dialect.setToolTip("The reply format; pixel dialects are sent the clean screenshot, no boxes")
        self.space = QComboBox()
        self.space.addItems(list(SPACES))
        self.space.setToolTip("Where a point lands: screenshot pixels, 0..1000, 0..1, or Qwen2.5-VL's resized grid")
        for w in (self.preset, self.dialect, self.space):
            row.addWidget(w)
        self.preset.currentIndexChanged.connect(self._preset_picked)
        self.dialect.currentTextChanged.connect(self._sync)
        self.space.currentTextChanged.connect(self._sync)
        self._filling = False

    def load(self, dialect: str, space: str) -> None:
        self._filling = True
        self.dialect.setCurrentText(dialect if dialect in DIALECTS else "marks")
        self.space.setCurrentText(space if space in SPACES else "pixels")
        self._filling = False
        self._sync()

    def values(self) -> tuple[str, str]:
        return self.dialect.currentText(), self.space.currentText()

    def _preset_picked(self) -> None:
        name = self.preset.currentData()
        if self._filling or name == _CUSTOM or name not in PRESETS:
            return
        dialect, space, _ = PRESETS[name]
        self._filling = True
        self.dialect.setCurrentText(dialect)
        self.space.setCurrentText(space)
        self._filling = False
        self.space.setEnabled(dialect != "marks")

    def _sync(self) -> None:
        """The preset that matches the dialect and space, else "custom"."""
        if self._filling:
            return
        pair = self.values()
        match = next((n for n, (d, s, _) in PRESETS.items() if (d, s) == pair or (d == "marks" == pair[0])), _CUSTOM)
        self._filling = True
        self.preset.setCurrentIndex(self.preset.findData(match))
        self._filling = False
        self.space.setEnabled(pair[0] != "marks")
