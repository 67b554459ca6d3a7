"""What the history holds of a run beside its rows (`RunFacts`): its date, and for an imported
run the tool whose file it came from and the figures that file stated (read by the Summary,
history/summary.py, to quote an imported run's own figures); the runs list as both faces show it
(`run_summaries`: `workbench history list` and the window's History), and a run's rows in the
order its plan laid out its targets (`in_run_order`). The faces ask here, never the store's SQL."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.core.foundation.imported_figures import ImportedFigures, imported_figures
from workbench.core.foundation.reported_figures import reported
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunInfo, RunStore, StoreError


@dataclass(frozen=True)
class RunFacts:
    """What the history holds of a run beside its rows."""

    run_id: str
    created_at: float  # an imported run's: the file's own date
    tool: str | None = None  # the tool whose file the run was imported from; None: ours
    stored: dict[tuple[str, str], float] | None = None  # the file's own figures
    # a capacity search's run.json section (its sentence: load/capacity_report.sentence)
    capacity: dict[str, Any] | None = None
    file: str | None = None  # the name of the file it was imported from


def run_facts(store: RunStore, run_ids: Iterable[str]) -> list[RunFacts]:
    """The facts of these runs (each once); a run the history lacks is left out. Reads the
    runs' own rows only (no count over their requests): the window asks at every Summary."""
    facts = []
    for run_id in dict.fromkeys(run_ids):
        for created_at, config_json in store.query(
            "SELECT created_at, config_json FROM runs WHERE run_id = ?", (run_id,)
        ):
            try:
                config = json.loads(config_json or "{}")
            except ValueError:  # a redaction hook may have cut through it: not known imported
                config = {}
            source = config.get("imported") if isinstance(config, dict) else None
            tool = source.get("tool") if isinstance(source, dict) else None
            file = source.get("file") if isinstance(source, dict) else None
            stored = store.aggregates(run_id) if tool else None
            found = config.get("capacity") if isinstance(config, dict) else None
            facts.append(
                RunFacts(
                    run_id,
                    float(created_at),
                    str(tool) if tool else None,
                    stored,
                    capacity=found if isinstance(found, dict) else None,
                    file=str(file) if tool and file else None,
                )
            )
    return facts


@dataclass(frozen=True)
class RunSummary:
    """One run of the runs list: the history's counts (`RunInfo`) and what its plan names."""

    info: RunInfo
    models: list[str]  # the plan's targets' models, in the plan's order
    prompt_lengths: list[int]
    imported_from: str | None  # the tool whose result file the run was imported from
    file_ttft_ms: float | None  # an imported run's median TTFT, as its file states it


def _imported_tool(config: dict[str, Any]) -> str | None:
    source = config.get("imported")
    tool = source.get("tool") if isinstance(source, dict) else None
    return tool if isinstance(tool, str) else None


def run_summary(store: RunStore, info: RunInfo) -> RunSummary:
    """One run of the list: its models (targets without one left out), lengths, and tool."""
    targets = [t for t in info.config.get("targets", ()) if isinstance(t, dict)]
    lengths = info.config.get("prompt_lengths", ())
    tool = _imported_tool(info.config)
    ttft = reported(store.aggregates(info.run_id))[0].get("median_ttft_ms") if tool else None
    return RunSummary(
        info,
        [str(t["model"]) for t in targets if t.get("model")],
        [int(n) for n in lengths if isinstance(n, int)],
        tool,
        ttft,
    )


def run_summaries(store: RunStore, limit: int = 100) -> list[RunSummary]:
    """The newest `limit` runs first (see `run_summary`)."""
    return [run_summary(store, info) for info in store.runs(limit)]


def measured_rows(store: RunStore, run_ids: Sequence[str]) -> list[RequestResult]:
    """The rows of these runs, run by run, warm-ups left out: never rows of a table or a CSV."""
    return [r for run_id in run_ids for r in store.results(run_id) if r.phase != "warmup"]


def in_run_order(store: RunStore, results: Sequence[RequestResult]) -> list[RequestResult]:
    """A run's rows (which come in the order they finished) in the order of its targets, as the
    run laid its panes out; the rows' own order where the history has no plan."""
    order: dict[tuple[str, str, str], int] = {}
    try:
        config = store.run(results[0].run_id).config if results else {}
    except StoreError:
        config = {}  # a run the history no longer holds
    for t in config.get("targets", ()):
        if isinstance(t, dict):
            key = (str(t.get("provider")), str(t.get("model")), str(t.get("protocol", "chat")))
            order.setdefault(key, len(order))
    return sorted(results, key=lambda r: order.get((r.provider, r.model, r.protocol), 0))


def stored_figures(store: RunStore, run_id: str) -> ImportedFigures | None:
    """An imported run's own aggregates in our terms (None: not imported, or none kept)."""
    return imported_figures(run_id, store.run(run_id).config, store.aggregates(run_id))
