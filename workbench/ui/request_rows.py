"""The Results table's per-request model: 20,000 imported rows without freezing the window.

A row's text (the CSV's columns, `csv_export.row_for`) is made when the row is first shown; a
large set is formatted in slices between the window's events (`sliced.py`), then sorted in one
pass over the sort column's keys. Qt's sort proxy asked Python for both cells of every
comparison (n log n calls into `data`); this model sorts with n keys. Sorting is stable, as the
proxy's was: equal keys keep the history's order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from workbench.core.foundation.results import RequestResult
from workbench.core.history.csv_export import COLUMNS, row_for
from workbench.ui.result_columns import cell_text, header_text
from workbench.ui.sliced import Latest, in_steps

_Index = QModelIndex | QPersistentModelIndex


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def sort_key(text: str) -> tuple[int, float | str]:
    """Numbers by value (an empty cell lowest), then any text by its letters."""
    value = _number(text)
    if isinstance(value, float):
        return (0, value)
    return (0, float("-inf")) if not text else (1, text)


def user_value(text: str) -> float | str:
    """What Qt.UserRole holds: the number, -inf for an empty cell, else the text."""
    value = _number(text)
    return value if isinstance(value, float) else float("-inf") if not text else value


def formatted(result: RequestResult) -> list[str]:
    row = row_for(result)
    return [row[c] for c in COLUMNS]


class SortedRows(QAbstractTableModel):
    """Rows of strings, sorted by the model itself (`sort`, which the header's clicks call)."""

    def __init__(self, columns: Sequence[str]) -> None:
        super().__init__()
        self.columns = list(columns)
        self.order: list[int] = []  # shown row -> source row
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        self.keys: list[tuple[int, float | str]] | None = None  # by source row, once sorted

    def text(self, source: int) -> list[str]:
        raise NotImplementedError

    def ready(self) -> bool:
        """Whether every row's text is there to sort on."""
        return True

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.order)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.UserRole,
        ):
            return None
        text = self.text(self.order[index.row()])[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(self.columns[index.column()], text)
        return user_value(text)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return header_text(self.columns[section])
        if role == Qt.ItemDataRole.ToolTipRole:  # the CSV's column name, in any language
            return self.columns[section]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_column, self.sort_order = column, order
        if self.ready():
            self._resort()

    def _resort(self) -> None:
        """Rows in the sort column's order; selections and the current cell follow their rows."""
        if not 0 <= self.sort_column < len(self.columns):
            return
        self.layoutAboutToBeChanged.emit()
        kept = self.persistentIndexList()
        sources = [self.order[i.row()] for i in kept]
        keys = [sort_key(self.text(s)[self.sort_column]) for s in range(len(self.order))]
        descending = self.sort_order == Qt.SortOrder.DescendingOrder
        self.order = sorted(range(len(keys)), key=keys.__getitem__, reverse=descending)
        self.keys = keys
        place = {source: row for row, source in enumerate(self.order)}
        moved = [self.index(place[s], i.column()) for s, i in zip(sources, kept, strict=True)]
        self.changePersistentIndexList(kept, moved)
        self.layoutChanged.emit()


class AggregateRows(SortedRows):
    """A few rows of strings (one per model and length), given whole."""

    def __init__(self, columns: Sequence[str]) -> None:
        super().__init__(columns)
        self.rows: list[list[str]] = []

    def text(self, source: int) -> list[str]:
        return self.rows[source]

    def set_rows(self, rows: list[list[str]]) -> None:
        self.beginResetModel()
        self.rows, self.order, self.keys = rows, list(range(len(rows))), None
        self.endResetModel()
        self.sort(self.sort_column, self.sort_order)


class _Texts(Sequence[list[str]]):
    """The rows' texts in the history's order, made on first access (`model.rows[i]`)."""

    def __init__(self, text: Callable[[int], list[str]], size: Callable[[], int]) -> None:
        self._text, self._size = text, size

    def __len__(self) -> int:
        return self._size()

    @overload
    def __getitem__(self, i: int) -> list[str]: ...
    @overload
    def __getitem__(self, i: slice) -> list[list[str]]: ...
    def __getitem__(self, i: int | slice) -> list[str] | list[list[str]]:
        if isinstance(i, slice):
            return [self._text(j) for j in range(len(self))[i]]
        return self._text(range(len(self))[i])


class RequestRows(SortedRows):
    """One row per request; `results` in the history's order, `order` as shown."""

    def __init__(self) -> None:
        super().__init__(COLUMNS)
        self.results: list[RequestResult] = []
        self._texts: list[list[str] | None] = []
        self.rows = _Texts(self.text, lambda: len(self.results))
        self.formatting: Latest[list[list[str]]] = Latest()

    def text(self, source: int) -> list[str]:
        row = self._texts[source]
        if row is None:
            row = self._texts[source] = formatted(self.results[source])
        return row

    def ready(self) -> bool:
        return not self.formatting.pending

    def set_results(self, results: Sequence[RequestResult]) -> None:
        """Show these rows: at once in the history's order, sorted once all are formatted."""
        self.beginResetModel()
        self.results = list(results)
        self._texts = [None] * len(self.results)
        self.order = list(range(len(self.results)))
        self.keys = None
        self.endResetModel()
        snapshot = list(self.results)
        self.formatting.run(lambda: in_steps(formatted, snapshot), len(snapshot), self._fill)

    def _fill(self, texts: list[list[str]]) -> None:
        for i, row in enumerate(texts):  # rows shown meanwhile were formatted already
            if self._texts[i] is None:
                self._texts[i] = row
        self._resort()

    def append(self, result: RequestResult) -> None:
        """A live run's row, inserted in its sorted place (after the rows of an equal key)."""
        text = formatted(result)
        at = len(self.order)
        if self.keys is not None and self.ready():
            key = sort_key(text[self.sort_column])
            self.keys.append(key)
            at = self._place(key)
        self.beginInsertRows(QModelIndex(), at, at)
        self.results.append(result)
        self._texts.append(text)
        self.order.insert(at, len(self.results) - 1)
        self.endInsertRows()

    def _place(self, key: tuple[int, float | str]) -> int:
        """Where a new row of this key goes: a binary search of the sorted rows."""
        assert self.keys is not None
        ascending = self.sort_order == Qt.SortOrder.AscendingOrder
        low, high = 0, len(self.order)
        while low < high:
            middle = (low + high) // 2
            other = self.keys[self.order[middle]]
            if (other <= key) if ascending else (other >= key):
                low = middle + 1
            else:
                high = middle
        return low

    def shown(self) -> list[RequestResult]:
        return [self.results[i] for i in self.order]
