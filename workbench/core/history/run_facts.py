"""What the history holds of a run beside its rows (`RunFacts`): its date, and for an imported
run the tool whose file it came from and the figures that file stated (read by the Summary,
history/summary.py, to quote an imported run's own figures); the runs list as both faces show it
(`run_summaries`: `workbench history list` and the window's History), and a run's rows in the
order its plan laid out its targets (`in_run_order`). The faces ask here, never the store's SQL."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workbench.core.history.run_history import RunStore


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
