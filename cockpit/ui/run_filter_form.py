"""Review's run filter as a form: every field of :class:`cockpit.core.store.queries.RunFilter`, in two columns.

The export dialog starts from the filter Review's table shows, so its count is Review's; the fields Review's
row has no room for (a date range, annotator agreement, the two other axes) are here too. A date that does
not read as YYYY-MM-DD is said in words by :meth:`problem` (the dialog shows it), never guessed.
"""
from __future__ import annotations

import datetime as dt

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGridLayout, QLineEdit, QWidget

from cockpit.core.store import labels as L
from cockpit.core.store.queries import AGREEMENT, RunFilter
from cockpit.core.store.records import STATUS_WORDS

_ANY = "any"


def _combo(items, data=None) -> QComboBox:
    c = QComboBox()
    c.addItem(_ANY, "")
    for i, item in enumerate(items):
        c.addItem(item, (data or items)[i])
    c.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    c.setMinimumContentsLength(10)
    return c


class RunFilterForm(QWidget):
    changed = Signal()

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.search = QLineEdit(placeholderText="words in the task or the answer")
        sites, models, statuses = (store.distinct_values(c) for c in ("site", "model", "status"))
        self.site, self.model = _combo(sites), _combo(models)
        self.status = _combo([STATUS_WORDS.get(s, s) for s in statuses], statuses)
        self.human = _combo(["success", "fail", "unsure", "not_executable", "unlabelled"])
        self.judge = _combo(["success", "fail", "undecided", "unjudged"])
        self.annotator = _combo(L.annotators(store))
        self.agreement = _combo(list(AGREEMENT))
        self.side_effects, self.repetition = _combo(list(L.AXIS_ANSWERS)), _combo(list(L.AXIS_ANSWERS))
        self.since = QLineEdit(placeholderText="YYYY-MM-DD")
        self.until = QLineEdit(placeholderText="YYYY-MM-DD")
        self._exact: dict[int, tuple[str, float]] = {}
        self.agreement.setToolTip("Two or more annotators labelled the run: all with one verdict, or not")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        left, right = QFormLayout(), QFormLayout()
        for form, rows in ((left, (("Words", self.search), ("Site", self.site), ("Model", self.model),
                                   ("Status", self.status), ("Started on or after", self.since),
                                   ("Started before", self.until))),
                           (right, (("Human verdict", self.human), ("Judge verdict", self.judge),
                                    ("Annotator", self.annotator), ("Annotators", self.agreement),
                                    ("Side effects", self.side_effects), ("Repetition", self.repetition)))):
            for text, w in rows:
                form.addRow(text, w)
        grid.addLayout(left, 0, 0)
        grid.addLayout(right, 0, 1)
        for w in (self.search, self.since, self.until):
            w.textChanged.connect(self.changed)
        for c in self.combos():
            c.currentIndexChanged.connect(self.changed)

    def combos(self) -> tuple[QComboBox, ...]:
        return (self.site, self.model, self.status, self.human, self.judge, self.annotator, self.agreement,
                self.side_effects, self.repetition)

    @staticmethod
    def _pick(c: QComboBox, value: str) -> None:
        i = c.findData(value) if value else 0
        c.setCurrentIndex(max(0, i))

    def set_filter(self, f: RunFilter) -> None:
        """Show `f` (Review's filter); a value no longer offered shows as any."""
        self.blockSignals(True)
        self.search.setText(f.search)
        for name in ("site", "model", "status", "human", "judge", "annotator", "agreement", "side_effects",
                     "repetition"):
            self._pick(getattr(self, name), getattr(f, name))
        self._exact = {}  # Review's "last 7 days" is a moment, not a date: kept while the field is not edited
        for edit, when in ((self.since, f.since), (self.until, f.until)):
            edit.setText(dt.datetime.fromtimestamp(when).strftime("%Y-%m-%d") if when else "")
            if when:
                self._exact[id(edit)] = (edit.text(), when)
        self.blockSignals(False)
        self.changed.emit()

    def problem(self) -> str:
        """What keeps the form from being a filter ("" when nothing does)."""
        for name, edit in (("on or after", self.since), ("before", self.until)):
            if edit.text().strip() and self._date(edit) is None:
                return f"Started {name}: write the date as YYYY-MM-DD, e.g. 2025-03-31 (not {edit.text().strip()!r})."
        return ""

    def _date(self, edit: QLineEdit) -> float | None:
        text, when = self._exact.get(id(edit), (None, None))
        if text is not None and edit.text() == text:
            return when
        try:
            return dt.datetime.strptime(edit.text().strip(), "%Y-%m-%d").timestamp()
        except ValueError:
            return None

    def run_filter(self) -> RunFilter:
        """The filter the form shows (dates that do not read are left out: see problem())."""
        since, until = (self._date(e) if e.text().strip() else None for e in (self.since, self.until))
        return RunFilter(search=self.search.text(), since=since, until=until,
                         **{name: getattr(self, name).currentData() or "" for name in
                            ("site", "model", "status", "human", "judge", "annotator", "agreement", "side_effects",
                             "repetition")})
