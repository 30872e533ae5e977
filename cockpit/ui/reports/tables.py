"""Reports' tables: one line a row, a column no wider than MAX_COLUMN, every cell whole in its tooltip."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from cockpit.ui.plaintext import tip

MAX_COLUMN = 220  # pixels: the widest a table column is made; its cells are whole in their tooltips


def report_table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.verticalHeader().setVisible(False)
    t.setEditTriggers(QTableWidget.NoEditTriggers)
    t.setWordWrap(False)  # one line a row, cut with "…" (whole in the cell's tooltip)
    t.setMinimumHeight(120)
    return t


def fill_table(table: QTableWidget, rows: list[tuple], data: list | None = None) -> None:
    """The rows' cells (as text, each whole in its tooltip); `data`: a value per row kept in its cells
    (Qt.UserRole: the run a double-click opens). A long name does not push the other columns out of view."""
    table.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            item = QTableWidgetItem(str(v))
            item.setToolTip(tip(str(v)))
            if data is not None:
                item.setData(Qt.UserRole, data[i])
            table.setItem(i, j, item)
    table.resizeColumnsToContents()
    for j in range(table.columnCount()):
        table.setColumnWidth(j, min(table.columnWidth(j), MAX_COLUMN))
    table.horizontalScrollBar().setValue(0)  # the first column (the judge's, the site's name) in view (walkthrough 6)
