"""The window's handle on its run history: the store the session holds now (None once the
window closed it: every answer is then empty), asked through core's queries (history/run_facts.py,
`RunStore`'s methods). What a query reads and how it shapes a run lives there, never here: no
SQL and no query-shaping above core (tests/test_no_sql_above_core.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from workbench.core.foundation.imported_figures import ImportedFigures
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunStore

if TYPE_CHECKING:
    from workbench.core.history.run_facts import RunSummary


def _facts() -> ModuleType:
    """core's queries of a run, loaded with the first one: not before the window's first paint."""
    from workbench.core.history import run_facts

    return run_facts


class HistoryQueries:
    """The history of the window's store; `store` says which store that is now."""

    def __init__(self, store: Callable[[], RunStore | None]) -> None:
        self._store = store

    def history(self, limit: int = 100) -> list[RunSummary]:
        store = self._store()
        return [] if store is None else _facts().run_summaries(store, limit)

    def load_run(self, run_id: str, skip: int = 0) -> list[RequestResult]:
        """A run's rows as the history holds them; `skip`: leave out the first that many."""
        store = self._store()
        return [] if store is None else store.results(run_id, skip)

    def delete_run(self, run_id: str) -> None:
        """Remove a run from the history; one still running is refused (StoreError)."""
        store = self._store()
        if store is not None:
            store.delete_run(run_id)

    def request_ids(self, run_id: str) -> list[str]:
        store = self._store()
        return [] if store is None else store.request_ids(run_id)

    def imported_figures(self, run_id: str) -> ImportedFigures | None:
        store = self._store()
        return None if store is None else _facts().stored_figures(store, run_id)

    def rows(self, run_ids: Sequence[str]) -> list[RequestResult]:
        store = self._store()
        return [] if store is None else _facts().measured_rows(store, run_ids)

    def in_run_order(self, results: Sequence[RequestResult]) -> list[RequestResult]:
        store = self._store()
        return list(results) if store is None else _facts().in_run_order(store, results)
