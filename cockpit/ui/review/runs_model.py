"""The runs table of the Review mode: lazily loaded pages of the store, filtered and sorted by the store.

Opening 10,000 runs costs one COUNT and one page of rows; more pages load as
the view scrolls (canFetchMore / fetchMore). Reads only.
"""
from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from cockpit.core.agent.start import DEMO_SITE  # also shown for a demo run recorded before runs named it
from cockpit.core.store import Store
from cockpit.core.store.origin import MARK, origin_text
from cockpit.core.store.queries import RunFilter
from cockpit.core.store.records import STATUS_WORDS, status_text
from cockpit.ui.plaintext import tip

PAGE = 200
_ROOT = QModelIndex()  # the default parent: the table has no tree
COLUMNS = [  # (header, row key; also the sort key, see cockpit.core.store.queries.SORT_KEYS)
    ("Started", "started"),  # to the second: two runs of one task told apart at a glance
    ("Status", "status"),
    ("Task", "task"),  # before the narrower ones: in view on a 1024-pixel screen too
    ("Run", "id"),  # the id again holds the start time; whole in the run's header line too
    ("Steps", "steps"),
    ("Site", "site"),
    ("Model", "model"),
    ("Human", "human"),
    ("Judge", "judge"),
    ("Answer", "answer"),
]


def started_text(when: float | None, known=None) -> str:
    """The Started cell: when the run began; "imported <date>" for an imported run whose source does not say."""
    if not when:
        return ""
    text = dt.datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M:%S")
    return f"imported {text[:16]}" if known == 0 else text


def column(key: str) -> int:
    """The table column showing row key `key`."""
    return [k for _, k in COLUMNS].index(key)


_USER, _TIP = int(Qt.UserRole), int(Qt.ToolTipRole)
_ASKED = frozenset((int(Qt.DisplayRole), int(Qt.ToolTipRole), _USER))  # the roles data() answers
HIDDEN_WHEN_BLIND = ("human", "judge")
#: What a run of a blind batch hides from its annotator until they have labelled it: the verdicts and the agent's claim.
HIDDEN_FOR_BATCH = ("human", "judge", "status", "answer")


class RunsTableModel(QAbstractTableModel):
    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self.filter = RunFilter()
        self.rows: list[dict] = []
        self.total = 0
        self.sort_column = 0
        self.sort_order = Qt.DescendingOrder
        self.blind = False
        self.hidden_runs: set[str] = set()  # runs of a blind batch the annotator has not labelled yet
        self.only: list[str] | None = None  # when set, only these runs (the runs to adjudicate)

    # ---------- loading ----------
    def reload(self, flt: RunFilter | None = None) -> None:
        """Run the filter once and keep the ordered ids: pages are then read by id, so labelling
        a run (which may take it out of the filter) or a new run arriving never shifts a page."""
        if flt is not None:
            self.filter = flt
        self.beginResetModel()
        self.ids = self._ids()
        self.total = len(self.ids)
        self.rows = self._page(0)
        self.endResetModel()

    def update(self, flt: RunFilter | None = None) -> bool:
        """Read the list again (another process wrote to the store). When the same runs are listed in the same
        order, only the loaded rows that changed are told (no reset: the view keeps its selection, scroll and
        column widths, and does not measure every cell again). True when the model was reset."""
        if flt is not None:
            self.filter = flt
        ids = self._ids()
        if ids != self.ids:
            self.reload()
            return True
        fresh = self.store.table_rows(self.ids[:len(self.rows)])
        if len(fresh) != len(self.rows):  # a listed run went meanwhile
            self.reload()
            return True
        for i, (old, new) in enumerate(zip(self.rows, fresh)):
            if old != new:
                self.rows[i] = new
                self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))
        return False

    def _ids(self) -> list[str]:
        """The ordered ids the filter, the sort, a blind batch and the runs to adjudicate let through."""
        key = COLUMNS[self.sort_column][1]
        if (self.blind and key in HIDDEN_WHEN_BLIND) or (self.hidden_runs and key in HIDDEN_FOR_BATCH):
            key = "started"  # ordering by a hidden column would give its values away
        ids = self.store.filtered_run_ids(self.filter, key, self.sort_order == Qt.DescendingOrder)
        if self.hidden_runs and self._filters_hidden():  # a filter on a hidden value would narrow them by it
            ids = [i for i in ids if i not in self.hidden_runs]
        if self.only is not None:
            only = set(self.only)
            ids = [i for i in ids if i in only]
        return ids

    def _page(self, offset: int) -> list[dict]:
        return self.store.table_rows(self.ids[offset:offset + PAGE])

    def canFetchMore(self, parent=_ROOT) -> bool:
        return not parent.isValid() and len(self.rows) < self.total

    def fetchMore(self, parent=_ROOT) -> None:
        more = self._page(len(self.rows))
        if not more:
            self.total = len(self.rows)
            return
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(more) - 1)
        self.rows.extend(more)
        self.endInsertRows()

    def ensure_loaded(self, run_id: str) -> int:
        """Load pages until `run_id` is in the table; its row, or -1 when the filter excludes it."""
        try:
            pos = self.ids.index(run_id)
        except ValueError:
            return -1
        while len(self.rows) <= pos and self.canFetchMore():
            self.fetchMore()
        return pos if pos < len(self.rows) else -1

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.sort_column, self.sort_order = column, order
        self.reload()

    def set_blind(self, on: bool) -> None:
        self.blind = on
        if COLUMNS[self.sort_column][1] in HIDDEN_WHEN_BLIND:
            self.reload()
        elif self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(COLUMNS) - 1))

    def set_hidden_runs(self, run_ids: set[str]) -> None:
        """Runs whose verdicts, status and answer show as "(hidden)" (blind batch, not labelled yet)."""
        if run_ids != self.hidden_runs:
            self.hidden_runs = set(run_ids)
            if self._filters_hidden() or COLUMNS[self.sort_column][1] in HIDDEN_FOR_BATCH:
                self.reload()
            elif self.rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(COLUMNS) - 1))

    def _filters_hidden(self) -> bool:
        """The filter picks runs by a value a blind batch hides: its status, a human or a judge verdict, or its
        answer (the search reads the answer too)."""
        f = self.filter
        return f is not None and bool(f.status or f.human or f.judge or f.search.strip())

    def set_only(self, run_ids: list[str] | None) -> None:
        """Show only these runs (None: all the filter lets through)."""
        self.only = None if run_ids is None else list(run_ids)
        self.reload()

    # ---------- Qt model ----------
    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=_ROOT) -> int:
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return COLUMNS[section][0]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if role not in _ASKED or not index.isValid():  # first: the view asks each cell for many roles
            return None
        row = self.rows[index.row()]
        key = COLUMNS[index.column()][1]
        if role == _USER:
            return row["id"]
        if (self.blind and key in HIDDEN_WHEN_BLIND) or (row["id"] in self.hidden_runs and key in HIDDEN_FOR_BATCH):
            return "(hidden)"
        value = row.get(key)
        if key == "human" and row.get("adjudicated"):
            value = f"{value or ''} → adjudicated {row['adjudicated'].replace('_', ' ')}".strip()
        origin = origin_text(row.get("source"), row.get("imported_from"), row.get("bundle")) \
            if key in ("started", "task") else ""  # asked for every cell the view paints: only where it is shown
        if key == "started":  # an imported run: where from, on the first column (walkthrough 9)
            text = started_text(value, row.get("started_known"))
            return f"{text}\n{origin}" if role == _TIP and origin else text
        if key == "task" and row.get("demo"):
            value = f"[demo] {value}"
        if key == "task" and origin:  # at a glance: an imported copy beside the run it was exported from
            value = f"{MARK} {value}" if role != _TIP else f"{value}\n\n{origin}"
        if key == "status":  # short in the list, whole in the tooltip (walkthrough 5: it squeezed the Task column)
            value = status_text(value) if role == _TIP else STATUS_WORDS.get(value, value)
        if key == "site" and not value and row.get("demo"):
            value = DEMO_SITE
        if key == "model" and row.get("source") == "webvoyager":
            value = "(imported)" if value in (None, "", "(imported)") else value
        text = "" if value is None else str(value)
        return tip(text, "open the run to read it all") if role == _TIP else text.replace("\n", " ")[:200]

    def run_id(self, row: int) -> str | None:
        return self.rows[row]["id"] if 0 <= row < len(self.rows) else None

    def row_of(self, run_id: str) -> int:
        for i, r in enumerate(self.rows):
            if r["id"] == run_id:
                return i
        return -1

    def distinct(self, column: str) -> list[str]:
        return self.store.distinct_values(column)
