"""What the window asks of the run history: the runs list, a run's rows, its own figures and
its order, deleting a run. Reads go through `RunStore`'s methods (history/run_history.py), never
through SQL: there is no SQL above core (tests/test_no_sql_above_core.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.core.foundation.imported_figures import ImportedFigures, imported_figures
from workbench.core.foundation.reported_figures import reported
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunStore, StoreError


@dataclass(frozen=True)
class HistoryRow:
    run_id: str
    when: str
    kind: str
    status: str
    requests: int  # measured requests, counted as `RunStore.runs` counts them for the CLI too
    errors: int  # failed, not counting those the user stopped
    models: list[str]
    prompt_lengths: list[int]
    calibration: int = 0  # short requests that measured each model's tokenizer
    warmup: int = 0
    created_at: float = 0.0
    imported_from: str | None = None  # the tool whose result file the run was imported from
    stopped: int = 0  # of `requests`, stopped by the user: not failures
    file_ttft_ms: float | None = None  # an imported run's median TTFT, as its file states it


def _imported_from(config: dict[str, object]) -> str | None:
    source = config.get("imported")
    tool = source.get("tool") if isinstance(source, dict) else None
    return tool if isinstance(tool, str) else None


class HistoryQueries:
    """The history of the window's store; `store` says which store that is now (None once the
    window closed it: every query is then empty)."""

    def __init__(self, store: Callable[[], RunStore | None]) -> None:
        self._store = store

    def history(self, limit: int = 100) -> list[HistoryRow]:
        store = self._store()
        if store is None:
            return []
        rows = []
        for run in store.runs(limit):
            targets = [t for t in run.config.get("targets", ()) if isinstance(t, dict)]
            lengths = [int(n) for n in run.config.get("prompt_lengths", ()) if isinstance(n, int)]
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.created_at))
            rows.append(
                HistoryRow(
                    run.run_id, when, run.kind, run.status, run.requests, run.errors,
                    [str(t.get("model", "?")) for t in targets], lengths, run.calibration,
                    run.warmup, run.created_at, _imported_from(run.config), run.stopped,
                    self._file_ttft(store, run.run_id) if _imported_from(run.config) else None,
                )
            )  # fmt: skip
        return rows

    @staticmethod
    def _file_ttft(store: RunStore, run_id: str) -> float | None:
        return reported(store.aggregates(run_id))[0].get("median_ttft_ms")

    def load_run(self, run_id: str, skip: int = 0) -> list[RequestResult]:
        """A run's rows as the history holds them; `skip`: leave out the first that many."""
        store = self._store()
        return [] if store is None else store.results(run_id, skip)

    def delete_run(self, run_id: str) -> None:
        """Remove a run from the history; one still running is refused (StoreError)."""
        store = self._store()
        if store is None:
            return
        if store.run(run_id).status == "running":
            raise StoreError(f"run {run_id} is still running: stop it first, then delete it")
        store.delete_run(run_id)

    def request_ids(self, run_id: str) -> list[str]:
        store = self._store()
        return [] if store is None else store.request_ids(run_id)

    def imported_figures(self, run_id: str) -> ImportedFigures | None:
        """An imported run's own aggregates in our terms (None: not imported, or none kept)."""
        store = self._store()
        if store is None:
            return None
        return imported_figures(run_id, store.run(run_id).config, store.aggregates(run_id))

    def rows(self, run_ids: Sequence[str]) -> list[RequestResult]:
        """The rows of these runs as the history holds them, run by run (warm-ups left out:
        they are never rows of a table or a CSV)."""
        return [r for run_id in run_ids for r in self.load_run(run_id) if r.phase != "warmup"]

    def in_run_order(self, results: Sequence[RequestResult]) -> list[RequestResult]:
        """A run's rows (which come in the order they finished) in the order of its targets,
        as the run laid its panes out; the rows' own order where the history has no plan."""
        order: dict[tuple[str, str, str], int] = {}
        store = self._store()
        try:
            config = store.run(results[0].run_id).config if store and results else {}
        except StoreError:
            config = {}  # a run the history no longer holds
        for t in config.get("targets", ()):
            if isinstance(t, dict):
                key = (str(t.get("provider")), str(t.get("model")), str(t.get("protocol", "chat")))
                order.setdefault(key, len(order))
        return sorted(results, key=lambda r: order.get((r.provider, r.model, r.protocol), 0))
