"""Which runs the window's Results table, Sweep tab and Summary show; their rows from the history.

The window keeps run ids here, never copies of rows: every row it shows or exports is read from
the run history (`Session.rows`), the one source of recorded rows (docs/architecture.md, rule 4).
Qt-free.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from workbench.core.results import RequestResult

if TYPE_CHECKING:
    from workbench.ui.session import Session


class ShownRuns:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.table: list[str] = []  # the Results table's runs: they pile up until one is opened
        self.current: str | None = None  # the Sweep's and Summary's run: last, opened, replayed

    def show(self, run_ids: Iterable[str]) -> None:
        """Show these runs alone (a run opened or replayed from the history)."""
        self.table = list(dict.fromkeys(run_ids))
        self.current = self.table[0] if self.table else None

    def recorded(self, result: RequestResult, current: bool) -> None:
        """A row just recorded by a live run (the runner records a request before it reports
        it); `current`: the run is now the one the Sweep and Summary show."""
        if result.run_id not in self.table:
            self.table.append(result.run_id)
        if current:
            self.current = result.run_id

    def table_rows(self) -> list[RequestResult]:
        return self.session.rows(self.table)

    def measured(self) -> list[RequestResult]:
        """The measured requests of the current run."""
        if self.current is None:
            return []
        return [r for r in self.session.rows([self.current]) if r.phase == "measured"]

    def in_order(self, request_ids: Iterable[str]) -> list[RequestResult]:
        """The table's rows as the history holds them, in the given order (the table's)."""
        recorded = {r.request_id: r for r in self.table_rows()}
        return [recorded[i] for i in request_ids if i in recorded]
