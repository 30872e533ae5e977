"""The model settings' "Answers as" rows: a preset (Set-of-Mark, UI-TARS, Qwen, computer-use JSON, OpenAI
computer use, auto), or its reply format and coordinates picked apart, each labelled; the Qwen processor's pixel
budget and the grid the model then points on; and the preset a listed model's name suggests."""
from __future__ import annotations

from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSizePolicy, QSpinBox

from cockpit.core.actions import coords
from cockpit.core.llm.modelconfig import DIALECT_NAMES as DIALECTS
from cockpit.core.llm.modelconfig import PRESETS, preset_for_model
from cockpit.core.settings import MODEL_HELP
from cockpit.core.settings_checks import MAX_QWEN_PIXELS
from cockpit.ui.settings.parts import MessageLabel, label, row

_CUSTOM = "custom"

#: What each coordinate space means, in the drop-down.
SPACE_WORDS = {"pixels": "pixels of the screenshot", "norm1000": "0..1000 on both axes",
               "norm1": "0..1 on both axes", "qwen": "Qwen's resized grid (pixel budget below)"}


class Line(MessageLabel):
    """A message line in a form whose fields grow only when they expand: as wide as the field column (never
    wider: its text's width is no part of its size hint)."""

    def __init__(self):
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's naming)
        return QSize(0, super().sizeHint().height())


class DialectField(QObject):
    """Preset, reply format and coordinate space; picking a preset fills the other two. Its rows go into the
    form given (labelled, each with its Alt+letter); ``values()`` and ``budget()`` read them."""

    changed = Signal()  # the preset, format, space or budget changed: the grid line follows

    def __init__(self, form: QFormLayout, parent=None):
        super().__init__(parent)
        self._screen = ((1024, 768), 1.0, None)  # viewport, device scale, image max width: the grid's input
        self.preset = QComboBox()
        for name, (_, _, what) in PRESETS.items():
            self.preset.addItem(name, name)
            self.preset.setItemData(self.preset.count() - 1, what, 3)  # tooltip role
        self.preset.addItem(_CUSTOM, _CUSTOM)
        self.preset.setToolTip("How the model answers: numbered marks (WebVoyager) or points on a clean "
                               "screenshot, in a model family's own format. A preset sets the two rows below.")
        self.what = Line()
        self.what.setObjectName("presetWhat")
        self.dialect = QComboBox()
        self.dialect.addItems(list(DIALECTS))
        self.space = QComboBox()
        for name in coords.SPACES:
            self.space.addItem(f"{name}: {SPACE_WORDS[name]}", name)
        self.min_pixels, self.max_pixels = (self._pixels_box(d) for d in (coords.QWEN_MIN_PIXELS, coords.QWEN_MAX_PIXELS))
        self.grid = Line()
        self.grid.setObjectName("modelGrid")
        self.suggestion = Line()
        self.use_suggested = QPushButton("Use it")
        self.use_suggested.setAutoDefault(False)
        self.use_suggested.setToolTip("Set Answers as to the preset this model's name suggests")
        self._suggested = ""

        form.addRow(label("Answers &as:", self.preset, None), self.preset)
        form.addRow("", self.what)
        form.addRow("", self.suggestion)
        form.addRow("", self.use_suggested)
        form.addRow(label("Reply format:", self.dialect, "dialect"), self.dialect)
        form.addRow(label("Coordinates (&x, y):", self.space, "coords"), self.space)
        mins, maxs = QLabel("min"), QLabel("max")
        mins.setBuddy(self.min_pixels)
        maxs.setBuddy(self.max_pixels)
        self.budget_row = row(mins, self.min_pixels, maxs, self.max_pixels)
        self.budget_label = label("&Qwen pixels:", self.max_pixels, "qwen_max_pixels")
        self.min_pixels.setToolTip(MODEL_HELP["qwen_min_pixels"])
        form.addRow(self.budget_label, self.budget_row)
        form.addRow("", self.grid)
        self._suggest(False)

        self.preset.currentIndexChanged.connect(self._preset_picked)
        self.dialect.currentTextChanged.connect(self._sync)
        self.space.currentIndexChanged.connect(self._sync)
        for box in (self.min_pixels, self.max_pixels):
            box.valueChanged.connect(self._show)
        self.use_suggested.clicked.connect(self._use_suggestion)
        self._filling = False

    @staticmethod
    def _pixels_box(default: int) -> QSpinBox:
        box = QSpinBox()
        box.setRange(0, MAX_QWEN_PIXELS)
        box.setSingleStep(coords.QWEN_FACTOR * coords.QWEN_FACTOR)
        box.setGroupSeparatorShown(True)
        box.setSpecialValueText(f"model card ({default:,})")  # 0: as the model card says
        return box

    # ------------------------------------------------------------------ form <-> values
    def load(self, dialect: str, space: str, min_pixels: int | None = None, max_pixels: int | None = None) -> None:
        self._filling = True
        self.dialect.setCurrentText(dialect if dialect in DIALECTS else "marks")
        self.space.setCurrentIndex(max(0, self.space.findData(space if space in coords.SPACES else "pixels")))
        self.min_pixels.setValue(min_pixels or 0)
        self.max_pixels.setValue(max_pixels or 0)
        self._filling = False
        self._sync()

    def values(self) -> tuple[str, str]:
        return self.dialect.currentText(), self.space.currentData()

    def budget(self) -> tuple[int | None, int | None]:
        """(min, max) pixels as set; None for the model card's."""
        return self.min_pixels.value() or None, self.max_pixels.value() or None

    def problem(self) -> str:
        """What is wrong with the budget, or ""."""
        try:
            coords.budget(*self.budget())
        except ValueError as e:
            return f"Qwen pixels: {e}."
        return ""

    def set_screen(self, viewport: tuple[int, int], scale: float, max_width: int | None) -> None:
        """The screenshot the model will be sent (for the grid line): the browser's viewport and device scale,
        the image max width."""
        self._screen = (tuple(viewport), scale, max_width)
        self._show()

    # ------------------------------------------------------------------ a model's name suggests a preset
    def suggest_for(self, model: str) -> str:
        """Show the preset `model`'s name suggests when it is not the one set; returns it ("" for none)."""
        name = preset_for_model(model) or ""
        differs = bool(name) and PRESETS[name][:2] != self.values()
        self._suggested = name if differs else ""
        if differs:
            self.suggestion.setText(f"{model} is a model that answers as {name} ({PRESETS[name][2]}).")
            self.use_suggested.setText(f"Use {name}")
        self._suggest(differs)
        return self._suggested

    def _suggest(self, show: bool) -> None:
        self.suggestion.setVisible(show)
        self.use_suggested.setVisible(show)

    def suggesting(self) -> bool:
        """A preset is suggested for the model's name (the "Use …" button shows)."""
        return not self.use_suggested.isHidden()

    def _use_suggestion(self) -> None:
        if self._suggested:
            self.preset.setCurrentIndex(self.preset.findData(self._suggested))
        self._suggest(False)

    # ------------------------------------------------------------------ keeping the rows consistent
    def widgets(self) -> list:
        """In Tab order."""
        return [self.preset, self.use_suggested, self.dialect, self.space, self.min_pixels, self.max_pixels]

    def _preset_picked(self) -> None:
        name = self.preset.currentData()
        if self._filling or name == _CUSTOM or name not in PRESETS:
            return
        dialect, space, _ = PRESETS[name]
        self._filling = True
        self.dialect.setCurrentText(dialect)
        self.space.setCurrentIndex(self.space.findData(space))
        self._filling = False
        self._show()

    def _sync(self) -> None:
        """The preset that matches the dialect and space, else "custom"."""
        if self._filling:
            return
        pair = self.values()
        match = next((n for n, (d, s, _) in PRESETS.items() if (d, s) == pair or (d == "marks" == pair[0])), _CUSTOM)
        self._filling = True
        self.preset.setCurrentIndex(self.preset.findData(match))
        self._filling = False
        self._show()

    def _show(self) -> None:
        """The preset's words, which rows apply, and the size the model's points are read in."""
        dialect, space = self.values()
        name = self.preset.currentData()
        self.what.setText(PRESETS[name][2] if name in PRESETS else "Reply format and coordinates set apart.")
        pixel = dialect != "marks"
        self.space.setEnabled(pixel)
        qwen = pixel and space == "qwen"
        for w in (self.budget_label, self.budget_row):
            w.setVisible(qwen)
        self.grid.setVisible(pixel)
        if pixel:
            self.grid.setText(self._grid_words(space))
        if name == self._suggested:
            self._suggest(False)
        self.changed.emit()

    def _grid_words(self, space: str) -> str:
        viewport, scale, max_width = self._screen
        image = coords.sent_size(viewport, scale, max_width)
        shot = f"the {image[0]}x{image[1]} screenshot (viewport {viewport[0]}x{viewport[1]} at scale {scale:g})"
        if space == "qwen":
            try:
                frame = coords.Frame(viewport, image, coords.budget(*self.budget()))
            except ValueError as e:
                return f"Qwen pixels: {e}."
            w, h = frame.qwen_grid()
            return f"The model points on a {w}x{h} grid: {shot} resized within this pixel budget."
        if space == "pixels":
            return f"The model points in pixels of {shot}."
        return f"The model points in {SPACE_WORDS[space]} of {shot}."
