"""Review's runs browser: the search, the filters, the runs table and the count.

A widget of its own (cockpit.ui.review.panel composes it): it owns the table model and the filter boxes,
says which run the person picked (runPicked) and is told which runs to show (blind mode, the runs to
adjudicate). The filter boxes read their whole "any" text ("annotator: any") and wrap onto more lines on a
narrow window; a chosen value longer than the box is cut by the box and shown whole in its tooltip.
"""
from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProxyStyle,
    QStyle,
    QStyleOptionHeader,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.store import labels as L
from cockpit.core.store.records import STATUS_WORDS, status_text
from cockpit.core.words import plural
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.plaintext import tip
from cockpit.ui.review.runs_model import RunFilter, RunsTableModel, column

#: The columns sized to their contents: rows told apart at a glance, shown whole.
WHOLE = ("started", "id", "status", "steps", "site")
TASK_WIDTH = 220


class SortArrows(QProxyStyle):
    """The header's sort arrow as people read it: up for ascending (oldest first), down for descending (newest
    first). Qt's header asks the style for the opposite (a down arrow for ascending), so the list of newest runs
    first showed an up arrow."""
    _FLIP = {QStyleOptionHeader.SortUp: QStyleOptionHeader.SortDown,
             QStyleOptionHeader.SortDown: QStyleOptionHeader.SortUp}

    def drawPrimitive(self, element, option, painter, widget=None):
        if element == QStyle.PE_IndicatorHeaderArrow and isinstance(option, QStyleOptionHeader):
            option = QStyleOptionHeader(option)
            option.sortIndicator = self._FLIP.get(option.sortIndicator, option.sortIndicator)
        super().drawPrimitive(element, option, painter, widget)


class RunsBrowser(QWidget):
    runPicked = Signal(str)  # run id: the person selected its row
    listChanged = Signal()  # the search or a filter changed the runs listed

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.model = RunsTableModel(store, self)
        self.shown_run_id: str | None = None  # the run whose row is (to be) selected
        self._quiet = False  # selecting a row for a run being opened: no runPicked
        self._build()
        self.model.reload(self.current_filter())
        self.update_count()

    def _build(self) -> None:
        self.search = QLineEdit(placeholderText="search task and answer…")
        self.search.setMinimumWidth(80)
        self.search.setToolTip("Lists the runs whose task or answer holds these words in this order (a few other "
                               "words may stand between them), as you type")
        self._typed = QTimer(self, singleShot=True, interval=300)  # the list follows the typing, once it pauses
        self._typed.timeout.connect(self.apply_filter)
        self.search.textEdited.connect(lambda _t: self._typed.start())
        self.search.returnPressed.connect(self.apply_filter)
        self.f_site, self.f_model, self.f_status = QComboBox(), QComboBox(), QComboBox()
        self.f_human, self.f_judge, self.f_annotator, self.f_since = QComboBox(), QComboBox(), QComboBox(), QComboBox()
        self.f_human.addItems(["human: any", "success", "fail", "unsure", "not_executable", "unlabelled"])
        self.f_judge.addItems(["judge: any", "success", "fail", "undecided", "unjudged"])
        self.f_since.addItems(["any time", "today", "last 7 days", "last 30 days"])
        self.fill_filters()
        for c in self.filters():
            c.currentIndexChanged.connect(self.apply_filter)
            c.currentIndexChanged.connect(lambda _i, c=c: c.setToolTip(tip(c.currentText())))
            # as wide as its "any" text, whatever the data: a long site name does not widen the window
            c.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            c.setMinimumContentsLength(len(c.itemText(0)) + 1)
            c.setToolTip(tip(c.currentText()))
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.DescendingOrder)
        self.table.verticalHeader().setVisible(False)
        rows = self.table.verticalHeader()  # rows one line of text high: more runs in view (issue #38, A2)
        rows.setSectionResizeMode(QHeaderView.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        head = self.table.horizontalHeader()
        for key in WHOLE:
            head.setSectionResizeMode(column(key), QHeaderView.ResizeToContents)
        head.resizeSection(column("task"), TASK_WIDTH)
        head.setStretchLastSection(True)
        self._arrows = SortArrows()  # kept: the header does not own its style
        head.setStyle(self._arrows)
        self._widths: dict[int, int] = {}
        self.model.modelAboutToBeReset.connect(self._keep_widths)
        self.model.modelReset.connect(self._fit_widths)
        self.table.setWordWrap(False)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        self.count = QLabel()
        self.count.setTextFormat(Qt.PlainText)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self.filters_btn = QToolButton(text="Filters", checkable=True)  # compact: the boxes fold away
        self.filters_btn.setToolTip("Show or hide the filter boxes (a small screen: the list gets their room)")
        self.filters_btn.toggled.connect(self._show_filters)
        self.filters_btn.hide()
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.filters_btn)
        self._lay.addLayout(top)
        self.filter_row = flow_row((*self.filters(), self.count))  # wraps: every box reads its whole text
        self._lay.addWidget(self.filter_row)
        self._lay.addWidget(self.table, 1)

    def _keep_widths(self) -> None:
        head = self.table.horizontalHeader()
        if self.model.rowCount():  # (an empty list keeps the widths its rows had)
            self._widths = {column(k): head.sectionSize(column(k)) for k in WHOLE}

    def _fit_widths(self) -> None:
        """The columns sized to their rows; when a filter leaves no row, as wide as they were (not as their headers:
        the columns would jump, and jump back when the filter is cleared)."""
        head = self.table.horizontalHeader()
        empty = self.model.rowCount() == 0
        for key in WHOLE:
            c = column(key)
            head.setSectionResizeMode(c, QHeaderView.Interactive if empty else QHeaderView.ResizeToContents)
            if empty and c in self._widths:
                head.resizeSection(c, self._widths[c])

    def set_compact(self, on: bool) -> None:
        """A small screen: the filter boxes fold behind the Filters button (open while one is set)."""
        self.filters_btn.setVisible(on)
        self._show_filters(not on or self.filters_btn.isChecked())

    def _show_filters(self, on: bool) -> None:
        self.filter_row.setVisible(on)
        if not self.filters_btn.isVisible():
            return
        n = sum(c.currentIndex() > 0 for c in self.filters())
        self.filters_btn.setText(f"Filters ({n} set) · {self.count.text()}" if n and not on
                                 else f"Filters · {self.count.text()}" if not on else "Filters")

    def filters(self) -> tuple[QComboBox, ...]:
        return (self.f_site, self.f_model, self.f_status, self.f_human, self.f_judge, self.f_annotator, self.f_since)

    def add_above_table(self, widget: QWidget) -> None:
        self._lay.insertWidget(self._lay.indexOf(self.table), widget)

    def _on_row(self, cur, _prev) -> None:
        rid = self.model.run_id(cur.row())
        if rid and not self._quiet:
            self.shown_run_id = rid
            self.runPicked.emit(rid)

    def fill_filters(self) -> None:
        """Refill the choices; what was chosen stays chosen (when it is still a choice)."""
        for combo, label, items in ((self.f_site, "site: any", self.model.distinct("site")),
                                    (self.f_model, "model: any", self.model.distinct("model")),
                                    (self.f_status, "status: any", self.model.distinct("status")),
                                    (self.f_annotator, "annotator: any", L.annotators(self.store))):
            chosen = combo.currentText() if combo.currentIndex() > 0 else None
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(label)
            for item in items:  # a status in words ("out of steps", not max_steps); the stored value is the data
                combo.addItem(STATUS_WORDS.get(item, item) if combo is self.f_status else item, item)
                combo.setItemData(combo.count() - 1, tip(status_text(item) if combo is self.f_status else item),
                                  Qt.ToolTipRole)  # "refused": stopped at the gate
            if chosen is not None:
                combo.setCurrentIndex(max(0, combo.findText(chosen)))
            combo.setToolTip(tip(combo.currentText()))
            combo.blockSignals(False)

    def current_filter(self) -> RunFilter:
        """The search and the filter boxes as they read now."""
        def pick(c: QComboBox) -> str:
            return (c.currentData() or c.currentText()) if c.currentIndex() > 0 else ""
        since = {1: 1, 2: 7, 3: 30}.get(self.f_since.currentIndex())
        return RunFilter(search=self.search.text(), site=pick(self.f_site), model=pick(self.f_model),
                         status=pick(self.f_status), human=pick(self.f_human), judge=pick(self.f_judge),
                         annotator=pick(self.f_annotator), since=time.time() - since * 86400 if since else None,
                         running=True)  # a batch started from the command line shows as it goes

    def apply_filter(self) -> None:
        self.model.reload(self.current_filter())
        self.update_count()
        self.reselect()
        self.listChanged.emit()

    def reload_kept(self) -> None:
        """The list read again (new runs, new labels) as it was on screen: the rows loaded so far, the selected
        run, the scroll position. The same runs listed: only the rows that changed are redrawn."""
        loaded, bar = len(self.model.rows), self.table.verticalScrollBar()
        pos = bar.value()
        if not self.model.update(self.current_filter()):
            return
        while len(self.model.rows) < loaded and self.model.canFetchMore():
            self.model.fetchMore()
        self.update_count()
        self.reselect()
        bar.setValue(pos)
        self.listChanged.emit()

    def update_count(self) -> None:
        self.count.setText(plural(self.model.total, 'run', grouped=True))
        self._show_filters(not self.filter_row.isHidden())  # the Filters button says the count when folded

    def select(self, run_id: str) -> None:
        """Select the run's row when it is listed (loading pages as needed), and scroll to it."""
        self.shown_run_id = run_id
        row = self.model.ensure_loaded(run_id)
        if row >= 0:
            self._quiet = True
            try:
                self.table.setCurrentIndex(self.model.index(row, 0))
            finally:
                self._quiet = False
            self.table.scrollTo(self.model.index(row, 0))

    def listed(self, run_id: str) -> bool:
        return run_id in self.model.ids

    def list_and_select(self, run_id: str) -> str:
        """List and select `run_id`: the list read again when it is not in it (a new run), then the search and
        filters cleared when they hide it. Returns what was cleared, in words ("" when nothing was)."""
        if not self.listed(run_id):
            self.apply_filter()
        cleared = []
        if not self.listed(run_id):
            if self.search.text().strip():
                cleared.append(f"the search “{self.search.text().strip()}”")
            cleared += [f"the filter {c.currentText()}" for c in self.filters() if c.currentIndex() > 0]
            self.search.clear()
            for c in self.filters():
                c.blockSignals(True)
                c.setCurrentIndex(0)
                c.setToolTip(tip(c.currentText()))
                c.blockSignals(False)
            self.apply_filter()
        self.select(run_id)
        return ", ".join(cleared)

    def reselect(self) -> None:
        """Select the shown run's row again after a reload, without opening it again."""
        row = self.model.row_of(self.shown_run_id) if self.shown_run_id else -1
        if row >= 0:
            self.table.blockSignals(True)
            self.table.setCurrentIndex(self.model.index(row, 0))
            self.table.blockSignals(False)

    def set_blind(self, on: bool) -> None:
        """Blind: neither show, filter nor sort by the verdicts."""
        reset = False
        for combo in (self.f_human, self.f_judge):  # filtering by verdicts would give them away
            if on and combo.currentIndex() > 0:
                combo.blockSignals(True)
                combo.setCurrentIndex(0)
                combo.blockSignals(False)
                reset = True
            combo.setEnabled(not on)
        self.model.set_blind(on)
        if reset:
            self.apply_filter()

    def set_only(self, run_ids: list[str] | None) -> None:
        self.model.set_only(run_ids)
        self.update_count()
        self.reselect()
        self.listChanged.emit()  # (the open run may have left the list, or come back)

    def update_human(self, run_id: str) -> None:
        """The run's Human column after a label."""
        row = self.model.row_of(run_id)
        if row >= 0:
            self.model.rows[row]["human"] = self.store.human_verdicts_text(run_id)
            idx = self.model.index(row, column("human"))
            self.model.dataChanged.emit(idx, idx)
