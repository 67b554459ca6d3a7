"""The Summary's figures of an imported run as its file reported them: the numbers `history
show` prints, renamed by reported_figures (docs/metrics.md, "JSON vocabulary").

A run's rows give every figure of its cell. Where an imported run is one cell of the page (one
model, prompt length and concurrency) and its file states a figure, the cell quotes the file's
(a guidellm median is one of the values, not the rows' interpolated one); the rest stay the
rows' and are named derived. A file's run-wide figures over several cells (a vLLM file of two
prompt lengths) belong to none of them: those cells keep their rows' figures, all derived.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from workbench.core.metrics import Aggregate
from workbench.core.reported_figures import reported
from workbench.core.run_history import RunStore

if TYPE_CHECKING:
    from workbench.core.summary import CellSummary

# a cell's figure -> the vocabulary's metric. Decode tok/s stays the rows': the tools' time per
# output token differ (guidellm's includes the first token's wait; vLLM's and AIPerf's do not).
_FROM_FILE = {"ttft_ms": "ttft", "e2e_ms": "e2el"}


@dataclass(frozen=True)
class RunFacts:
    """What the history holds of a run beside its rows."""

    run_id: str
    created_at: float  # an imported run's: the file's own date
    tool: str | None = None  # the tool whose file the run was imported from; None: ours
    stored: dict[tuple[str, str], float] | None = None  # the file's own figures
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
            facts.append(
                RunFacts(
                    run_id,
                    float(created_at),
                    str(tool) if tool else None,
                    stored,
                    str(file) if tool and file else None,
                )
            )
    return facts


def _file_aggregate(mine: Aggregate, own: dict[str, float], metric: str) -> Aggregate:
    """`mine` with each statistic the file states in its place."""

    def stated(stat: str, computed: float | None) -> float | None:
        return own.get(f"{stat}_{metric}_ms", computed)

    return replace(
        mine,
        median=stated("median", mine.median),
        p10=stated("p10", mine.p10),
        p90=stated("p90", mine.p90),
        p99=stated("p99", mine.p99),
    )


def with_file_figures(
    cells: Sequence[CellSummary], runs_of_cell: Sequence[set[str]], runs: Sequence[RunFacts]
) -> list[CellSummary]:
    """`cells` with the figures each imported run's file states; `runs_of_cell[i]`: the runs
    whose rows made cells[i]."""
    facts = {f.run_id: f for f in runs if f.tool}
    cells_of_run: dict[str, int] = {}
    for ids in runs_of_cell:
        for run_id in ids:
            cells_of_run[run_id] = cells_of_run.get(run_id, 0) + 1
    out = []
    for cell, ids in zip(cells, runs_of_cell, strict=True):
        imported = [facts[i] for i in ids if i in facts]
        if not imported:
            out.append(cell)
            continue
        tool = ", ".join(sorted({str(f.tool) for f in imported}))
        if len(ids) > 1 or cells_of_run[imported[0].run_id] > 1:
            out.append(replace(cell, reported_by=tool))  # the file's figures are no one cell's
            continue
        own = reported(imported[0].stored or {})[0]
        figures = dict(cell.figures)
        stated = []
        for figure, metric in _FROM_FILE.items():
            if figure in figures and f"median_{metric}_ms" in own:
                figures[figure] = _file_aggregate(figures[figure], own, metric)
                stated.append(figure)
        out.append(replace(cell, figures=figures, reported_by=tool, reported=tuple(stated)))
    return out
