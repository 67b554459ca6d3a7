"""Which runs the window's Results table, Sweep tab and Summary show; their rows from the history.

The window keeps no rows of its own making: every row it shows or exports is one the run history
holds (docs/architecture.md, rule 4). A live run's rows are the objects the history just took
(the runner records a request before it reports it); a run opened, imported or replayed is read
from the history once. When a run ends, only what this window has not seen is read: the history's
request ids are compared with the rows held, and rows from the first difference on (rows another
process wrote, rows recorded without an event) are read back; a run that brought nothing new
costs one column of ids, never its rows again. Qt-free.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from workbench.core.foundation.results import RequestResult

if TYPE_CHECKING:
    from workbench.ui.compare_controller import CompareController


class ShownRuns:
    def __init__(self, session: CompareController) -> None:
        self.session = session
        self.table: list[str] = []  # the Results table's runs: they pile up until one is opened
        self.current: str | None = None  # the Sweep's and Summary's run: last, opened, replayed
        # runs imported from other tools' result files, shown beside the current one
        self.beside: list[str] = []
        # the rows of the runs shown, by run and request id, in the history's order
        self._rows: dict[str, dict[str, RequestResult]] = {}

    def show(self, run_ids: Iterable[str]) -> None:
        """Show these runs alone (a run opened or replayed from the history), read afresh."""
        self.table = list(dict.fromkeys(run_ids))
        self.current = self.table[0] if self.table else None
        self.beside = []
        self._rows = {}

    def add_beside(self, run_ids: Iterable[str]) -> None:
        """Imported runs join what is shown (the table, the Sweep, the Summary); nothing goes."""
        for run_id in dict.fromkeys(run_ids):
            if run_id not in self.table:
                self.table.append(run_id)
            if run_id not in self.beside and run_id != self.current:
                self.beside.append(run_id)

    def add_imported(self, rows: Sequence[RequestResult]) -> None:
        """Imported runs join what is shown (`add_beside`), with the rows the import read back
        from the history already (on its worker thread): they are not read a second time."""
        run_ids = list(dict.fromkeys(r.run_id for r in rows))
        self.add_beside(run_ids)
        for run_id in run_ids:
            self._rows[run_id] = {}
        for r in rows:
            self._rows[r.run_id][r.request_id] = r

    def recorded(self, result: RequestResult, current: bool) -> None:
        """A row just recorded by a live run (the runner records a request before it reports
        it); `current`: the run is now the one the Sweep and Summary show."""
        if result.run_id not in self.table:
            self.table.append(result.run_id)
        self._rows.setdefault(result.run_id, {})[result.request_id] = result
        if current:
            self.current = result.run_id

    def finished(self, run_id: str) -> bool:
        """A live run ended: read what the history holds beyond the rows shown; True when that
        changed the rows (the table must be filled again)."""
        held = self._rows.get(run_id)
        if held is None:  # not shown: it is read when it is
            return False
        ids = self.session.records.request_ids(run_id)
        if ids == list(held):
            return False
        # the rows held up to the first id where the history differs (or ends) stay
        pairs = zip(ids, held, strict=False)
        same = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(ids), len(held)))
        kept = list(held.values())[:same]
        tail = self.session.records.load_run(run_id, skip=len(kept))
        self._rows[run_id] = {r.request_id: r for r in kept + tail}
        return True

    def _rows_of(self, run_ids: Iterable[str]) -> list[RequestResult]:
        """The rows of these runs, run by run; a run not held yet is read from the history
        (warm-ups left out: they are never rows of a table or a CSV)."""
        out = []
        for run_id in run_ids:
            if run_id not in self._rows:
                self._rows[run_id] = {
                    r.request_id: r for r in self.session.records.load_run(run_id)
                }
            out += [r for r in self._rows[run_id].values() if r.phase != "warmup"]
        return out

    def table_rows(self) -> list[RequestResult]:
        return self._rows_of(self.table)

    def measured(self) -> list[RequestResult]:
        """The measured requests of the current run and of the imported runs beside it."""
        runs = ([self.current] if self.current is not None else []) + self.beside
        return [r for r in self._rows_of(runs) if r.phase == "measured"]

    def in_order(self, request_ids: Iterable[str]) -> list[RequestResult]:
        """The table's rows as the history holds them, in the given order (the table's)."""
        recorded = {r.request_id: r for r in self.table_rows()}
        return [recorded[i] for i in request_ids if i in recorded]
