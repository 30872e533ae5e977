"""The runs table of the Review mode: lazily loaded pages of the store, filtered and sorted in SQL.

Opening 10,000 runs costs one COUNT and one page of rows; more pages load as
the view scrolls (canFetchMore / fetchMore). Reads only.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from cockpit.core.store import Store
from cockpit.ui.plaintext import tip
from cockpit.core.store.db import _fts_query

PAGE = 200
COLUMNS = [  # (header, SQL expression used for sorting, row key)
    ("Started", "runs.started", "started"),
    ("Status", "runs.status", "status"),
    ("Task", "runs.task", "task"),
    ("Site", "runs.site", "site"),
    ("Model", "runs.model", "model"),
    ("Steps", "runs.steps", "steps"),
    ("Human", "human", "human"),
    ("Judge", "judge", "judge"),
    ("Answer", "runs.answer", "answer"),
]
HIDDEN_WHEN_BLIND = ("human", "judge")

#: The Judge column: the newest verdict of a judge model (reference checks left out). The judge filter uses it too,
#: so the filter and the column always agree.
_JUDGE = """(SELECT CASE verdict WHEN 1 THEN 'success' WHEN 0 THEN 'fail' ELSE 'undecided' END
     FROM verdicts WHERE verdicts.run_id = runs.id AND verdicts.judge NOT LIKE 'ref:%'
     ORDER BY created DESC LIMIT 1)"""

_SELECT = f"""SELECT runs.rowid AS rowid, runs.id, runs.started, runs.status, runs.task, runs.site, runs.model, runs.steps,
  runs.answer, runs.task_id, runs.source, runs.demo,
  (SELECT group_concat(annotator || ':' || verdict, ' ') FROM labels WHERE labels.run_id = runs.id) AS human,
  {_JUDGE} AS judge
FROM runs"""


@dataclass
class RunFilter:
    search: str = ""
    site: str = ""
    model: str = ""
    status: str = ""
    since: float | None = None  # epoch seconds
    human: str = ""  # success | fail | unsure | unlabelled
    judge: str = ""  # success | fail | undecided | unjudged
    annotator: str = ""  # runs this annotator labelled
    extra: dict = field(default_factory=dict)

    def sql(self) -> tuple[str, list]:
        where, params = ["runs.status != 'running'"], []
        for col in ("site", "model", "status"):
            if getattr(self, col):
                where.append(f"runs.{col} = ?")
                params.append(getattr(self, col))
        if self.since:
            where.append("runs.started >= ?")
            params.append(self.since)
        if self.search.strip():
            where.append("runs.rowid IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)")
            params.append(_fts_query(self.search))
        # With an annotator picked, the human verdict is that annotator's (fail = runs *they* called a
        # failure; unlabelled = runs *they* have not labelled), not anyone's.
        who, who_params = ("AND labels.annotator = ?", [self.annotator]) if self.annotator else ("", [])
        if self.human == "unlabelled":
            where.append(f"NOT EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who})")
            params += who_params
        elif self.human:
            where.append(f"EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who} AND labels.verdict = ?)")
            params += who_params + [self.human]
        elif self.annotator:
            where.append(f"EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who})")
            params += who_params
        if self.judge == "unjudged":
            where.append(f"{_JUDGE} IS NULL")
        elif self.judge:
            where.append(f"{_JUDGE} = ?")
            params.append(self.judge)
        return " WHERE " + " AND ".join(where), params


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

    # ---------- loading ----------
    def reload(self, flt: RunFilter | None = None) -> None:
        """Run the filter once and keep the ordered ids: pages are then read by id, so labelling
        a run (which may take it out of the filter) or a new run arriving never shifts a page."""
        if flt is not None:
            self.filter = flt
        self.beginResetModel()
        where, params = self.filter.sql()
        order = "DESC" if self.sort_order == Qt.DescendingOrder else "ASC"
        col = COLUMNS[self.sort_column][1]
        if self.blind and COLUMNS[self.sort_column][2] in HIDDEN_WHEN_BLIND:
            col = "runs.started"  # ordering by a hidden column would give its values away
        inner = f"SELECT runs.id AS id, {col} AS k FROM ({_SELECT}) AS runs{where}" if col in ("human", "judge") \
            else f"SELECT runs.id AS id FROM runs{where} ORDER BY {col} {order}, runs.id"
        if col in ("human", "judge"):
            inner += f" ORDER BY k {order}, id"
        self.ids = [r["id"] for r in self.store._rows(inner, params)]
        self.total = len(self.ids)
        self.rows = self._page(0)
        self.endResetModel()

    def _page(self, offset: int) -> list[dict]:
        ids = self.ids[offset:offset + PAGE]
        if not ids:
            return []
        got = {r["id"]: r for r in self.store._rows(
            f"{_SELECT} WHERE runs.id IN ({','.join('?' * len(ids))})", ids)}
        return [got[i] for i in ids if i in got]

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return not parent.isValid() and len(self.rows) < self.total

    def fetchMore(self, parent=QModelIndex()) -> None:
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
        if COLUMNS[self.sort_column][2] in HIDDEN_WHEN_BLIND:
            self.reload()
        elif self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(COLUMNS) - 1))

    # ---------- Qt model ----------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return COLUMNS[section][0]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        key = COLUMNS[index.column()][2]
        if role == Qt.UserRole:
            return row["id"]
        if role not in (Qt.DisplayRole, Qt.ToolTipRole):
            return None
        if self.blind and key in HIDDEN_WHEN_BLIND:
            return "(hidden)"
        value = row.get(key)
        if key == "started":
            return dt.datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M") if value else ""
        if key == "task" and row.get("demo"):
            value = f"[demo] {value}"
        if key == "model" and row.get("source") == "webvoyager":
            value = "(imported)" if value in (None, "", "(imported)") else value
        text = "" if value is None else str(value)
        return tip(text, "open the run to read it all") if role == Qt.ToolTipRole else text.replace("\n", " ")[:200]

    def run_id(self, row: int) -> str | None:
        return self.rows[row]["id"] if 0 <= row < len(self.rows) else None

    def row_of(self, run_id: str) -> int:
        for i, r in enumerate(self.rows):
            if r["id"] == run_id:
                return i
        return -1

    def distinct(self, column: str) -> list[str]:
        rows = self.store._rows(f"SELECT DISTINCT {column} AS v FROM runs WHERE {column} != '' ORDER BY 1")
        return [r["v"] for r in rows if r["v"]]
