"""What the history holds of a run beside its rows (`RunFacts`): its date, and for an imported
run the tool whose file it came from and the figures that file stated (read by the Summary,
core/history/summary.py, to quote an imported run's own figures)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from workbench.core.history.run_history import RunStore
from workbench.core.load.capacity_report import sentence


@dataclass(frozen=True)
class RunFacts:
    """What the history holds of a run beside its rows."""

    run_id: str
    created_at: float  # an imported run's: the file's own date
    tool: str | None = None  # the tool whose file the run was imported from; None: ours
    stored: dict[tuple[str, str], float] | None = None  # the file's own figures
    capacity: str = ""  # a capacity search's answer in one sentence (core/load/capacity_report.py)
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
                    capacity=sentence(found) if isinstance(found, dict) else "",
                    file=str(file) if tool and file else None,
                )
            )
    return facts
