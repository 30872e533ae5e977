"""The model settings' server and model fields: base URL (with presets), model (filled by "List models"),
temperature, max tokens, request timeout, image detail, width and format, and how the model answers.

It owns these fields and turns them into a :class:`~cockpit.core.llm.client.ModelConfig`. It says what it did
(a preset picked, models listed) through ``said``; the dialog shows that on its status line.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit, QMenu, QSpinBox, QToolButton, QVBoxLayout, QWidget

from cockpit.core.demo import simulator
from cockpit.core.llm.client import ModelConfig
from cockpit.core.settings import IMAGE_DETAILS, IMAGE_FORMATS
from cockpit.ui.settings.dialect_field import DialectField
from cockpit.ui.settings.parts import BusyButton, MessageLabel, form, label, row

#: (menu text, base URL, the model it sets); "" as the URL means OpenAI; "" as the model: the server's own
#: models differ from one computer to the next, so the field is emptied and the person asked to pick one.
PRESETS: tuple[tuple[str, str, str], ...] = (
    ("OpenAI", "", ModelConfig().model),
    ("vLLM", "http://localhost:8000/v1", ""),
    ("Ollama", "http://localhost:11434/v1", ""),
    ("LM Studio", "http://localhost:1234/v1", ""),
    ("Simulator", simulator.USUAL_URL, simulator.SIM_MODEL),
)
#: what the menu says of a preset, when more than its address is needed
PRESET_WORDS = {"Simulator": "Simulator — not a real model: a rule-based stand-in, to try Cockpit without a GPU"}
SIMULATOR_NOTE = ("Simulator: Cockpit's rule-based stand-in, not a real model. Its replies take 2–8 s and stream "
                  "in, and now and then one is unreadable or aimed at the wrong box, as a model's are. It works "
                  "in Set-of-Mark mode only; runs record the model as " + simulator.SIM_MODEL + ".")
PICK_A_MODEL = "pick one of the server's models: List models asks it which it has"
PICK_PLACEHOLDER = "pick a model (List models asks the server)"


class ModelSection(QWidget):
    """The server and model fields; ``form_config()`` reads them, ``load()`` fills them."""

    server_changed = Signal()    # the base URL was edited or a preset picked: the key's state follows
    list_requested = Signal()    # "List models" was pressed
    said = Signal(str)           # what a preset or a model listing did, for the status line

    def __init__(self, cfg: ModelConfig, parent: QWidget | None = None, *, listed: dict | None = None):
        """`listed`: the models List models found per server this session (:mod:`.listed_models`), filled in."""
        super().__init__(parent)
        self._base = cfg                                   # fields the form does not show keep their values
        self._models = {cfg.base_url or "": cfg.model}     # the model last set for each server, while open
        self.listed = {} if listed is None else listed
        self._listing_for = ""                             # the server List models asked
        self._build()
        self.load(cfg)

    def _build(self) -> None:
        self.form = form()
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("empty = OpenAI (https://api.openai.com/v1)")
        self.base_url_edit.setClearButtonEnabled(True)
        self.presets_button = QToolButton()
        self.presets_button.setText("&Presets")
        self.presets_button.setToolTip("Fill in the usual address of a well-known server")
        self.presets_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.presets_button)
        self.preset_actions = {}
        for name, url, _ in PRESETS:
            act = menu.addAction(PRESET_WORDS.get(name) or f"{name}  ({url or 'https://api.openai.com/v1'})")
            act.triggered.connect(lambda _=False, n=name: self.apply_preset(n))
            self.preset_actions[name] = act
        self.presets_button.setMenu(menu)
        self.base_url_edit.editingFinished.connect(self.server_changed)
        self.form.addRow(label("&Base URL:", self.base_url_edit, "base_url"),
                         row(self.base_url_edit, self.presets_button))

        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setMinimumContentsLength(24)  # its width: never that of a long model name
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.list_button = BusyButton("&List models", "Listing…", "Ask the server which models it offers")
        self.list_button.clicked.connect(self.list_requested)
        self.form.addRow(label("&Model:", self.model_combo, "model"), row(self.model_combo, self.list_button))
        self.simulator_note = MessageLabel(SIMULATOR_NOTE)  # shown while the model is the simulator
        self.simulator_note.setObjectName("simulatorNote")
        self.simulator_note.setStyleSheet("QLabel#simulatorNote { background: #fff4ce; color: #4a3b00; "
                                          "border: 1px solid #d9b94a; padding: 4px; }")
        self.form.addRow(self.simulator_note)
        self.model_combo.editTextChanged.connect(self._note_simulator)

        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        self.form.addRow(label("&Temperature:", self.temperature_spin, "temperature"), self.temperature_spin)
        self.max_tokens_spin = QSpinBox()
        self.max_tokens_spin.setRange(1, 1_000_000)
        self.max_tokens_spin.setSingleStep(100)
        self.form.addRow(label("Max t&okens:", self.max_tokens_spin, "max_tokens"), self.max_tokens_spin)
        self.timeout_spin = QDoubleSpinBox()
        self.timeout_spin.setRange(1.0, 3600.0)
        self.timeout_spin.setDecimals(0)
        self.timeout_spin.setSuffix(" s")
        self.form.addRow(label("Request t&imeout:", self.timeout_spin, "timeout"), self.timeout_spin)
        self.detail_combo = QComboBox()
        self.detail_combo.addItems(list(IMAGE_DETAILS))
        self.form.addRow(label("Image &detail:", self.detail_combo, "image_detail"), self.detail_combo)
        self.width_spin = QSpinBox()
        self.width_spin.setRange(0, 20_000)
        self.width_spin.setSingleStep(64)
        self.width_spin.setSuffix(" px")
        self.width_spin.setSpecialValueText("off")
        self.form.addRow(label("Image max &width:", self.width_spin, "image_max_width"), self.width_spin)
        self.format_combo = QComboBox()
        self.format_combo.addItems(list(IMAGE_FORMATS))
        self.form.addRow(label("Image &format:", self.format_combo, "image_format"), self.format_combo)
        self.dialect_field = DialectField(self.form, self)  # marks or a pixel dialect, its coordinates and budget
        self.model_combo.currentTextChanged.connect(lambda text: self.dialect_field.suggest_for(text.strip()))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self.form)

    def widgets(self) -> list[QWidget]:
        """In Tab order."""
        return [self.base_url_edit, self.presets_button, self.model_combo, self.list_button, self.temperature_spin,
                self.max_tokens_spin, self.timeout_spin, self.detail_combo, self.width_spin, self.format_combo,
                *self.dialect_field.widgets()]

    # ------------------------------------------------------------------ form <-> config
    def load(self, cfg: ModelConfig) -> None:
        self.base_url_edit.setText(cfg.base_url or "")
        self._offer_listed(cfg.base_url or "")
        self.model_combo.setEditText(cfg.model)
        self.temperature_spin.setValue(cfg.temperature)
        self.max_tokens_spin.setValue(cfg.max_tokens)
        self.timeout_spin.setValue(cfg.timeout)
        i = self.detail_combo.findText(cfg.image_detail)
        self.detail_combo.setCurrentIndex(i if i >= 0 else 0)
        self.width_spin.setValue(cfg.image_max_width or 0)
        i = self.format_combo.findText(cfg.image_format)
        self.format_combo.setCurrentIndex(i if i >= 0 else 0)
        self.dialect_field.load(cfg.dialect, cfg.coords, cfg.qwen_min_pixels, cfg.qwen_max_pixels)
        self.dialect_field.suggest_for(cfg.model)
        self._note_simulator()

    def _note_simulator(self, *_) -> None:
        self.simulator_note.setVisible(simulator.is_simulator(self.model()))

    def base_url(self) -> str | None:
        """The base URL in the form; None for OpenAI."""
        return self.base_url_edit.text().strip() or None

    def model(self) -> str:
        return self.model_combo.currentText().strip()

    def form_config(self) -> ModelConfig:
        """A ModelConfig from the form (fields the form does not show keep their values)."""
        dialect, coords = self.dialect_field.values()
        qwen_min, qwen_max = self.dialect_field.budget()
        return replace(self._base, base_url=self.base_url(), model=self.model(),
                       temperature=round(self.temperature_spin.value(), 2), max_tokens=self.max_tokens_spin.value(),
                       timeout=float(self.timeout_spin.value()), image_detail=self.detail_combo.currentText(),
                       image_max_width=self.width_spin.value() or None, image_format=self.format_combo.currentText(),
                       dialect=dialect, coords=coords, qwen_min_pixels=qwen_min, qwen_max_pixels=qwen_max)

    def url_problem(self) -> str:
        url = self.base_url()
        if url and not (url.startswith("http://") or url.startswith("https://")):
            return "The base URL must start with http:// or https:// (or be empty for OpenAI)."
        return ""

    def problem(self) -> str:
        """What keeps the form from being used (tested, saved), or ""."""
        return (self.url_problem() or ("" if self.model() else "Enter a model name (or use List models).")
                or self.dialect_field.problem())

    # ------------------------------------------------------------------ presets and listed models
    def apply_preset(self, name: str) -> None:
        """The preset's address, and a model its server has: the one set for that server earlier, OpenAI's
        default, or none (the field is emptied and the person asked to pick one). The simulator's is started
        here, on this computer, and answers in Set-of-Mark mode only."""
        url, model = next((u, m) for n, u, m in PRESETS if n == name)
        if name == "Simulator":
            try:
                url = simulator.shared().base_url  # started now, so Test connection and List models reach it
            except OSError as e:
                self.said.emit(f"The simulator could not start: {e}")
                return
            self.dialect_field.load("marks", "pixels")  # the simulator reads numbered marks only
        if url != (self.base_url() or ""):
            self._models[self.base_url() or ""] = self.model()
            model = self._models.get(url) or model
            self.base_url_edit.setText(url)
            self._offer_listed(url)
            self.model_combo.setEditText(model)
        if name == "Simulator":
            self.model_combo.setEditText(simulator.SIM_MODEL)  # its only name, whatever was set for the address
        self.model_combo.lineEdit().setPlaceholderText("" if self.model() else PICK_PLACEHOLDER)
        self.server_changed.emit()
        if name == "Simulator":
            self.said.emit("Simulator: started on this computer. " + SIMULATOR_NOTE.split(": ", 1)[1])
            return
        self.said.emit(f"{name}: model {self.model()}." if self.model() else f"{name}: {PICK_A_MODEL}.")

    def _offer_listed(self, url: str) -> None:
        """The models listed earlier this session for the server at `url` in the list (none: an empty list)."""
        self.model_combo.clear()
        self.model_combo.addItems(self.listed.get(url, []))

    def set_listing(self, busy: bool) -> None:
        if busy:
            self._listing_for = self.base_url() or ""
        self.list_button.set_busy(busy)

    def fill_models(self, names: list[str]) -> None:
        """The server's models in the list (kept for the session); the current model selected if the server has
        it, else the first."""
        current = self.model()
        self.listed[self._listing_for] = list(names)
        self.model_combo.clear()
        self.model_combo.addItems(names)
        if not names:
            self.model_combo.setEditText(current)
            self.said.emit("The server lists no models.")
            return
        count = f"{len(names)} model{'s' if len(names) != 1 else ''} listed"
        if current in names:
            self.model_combo.setCurrentIndex(names.index(current))
            self.said.emit(f"{count}; {current}, the model set, is one of them.")
            return
        self.model_combo.setCurrentIndex(0)
        self.model_combo.lineEdit().setPlaceholderText("")
        self.said.emit(f"{count}; selected the first, {names[0]}"
                       + (f" ({current} is not one of them)." if current else ".")
                       + " Pick another from the Model list if you like.")

