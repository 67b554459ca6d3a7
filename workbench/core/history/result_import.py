"""Foreign result files into the run history: one run per benchmark, idempotent by content.

A run's id comes from the file's SHA-256 and the benchmark's place in it, so importing the
same file again (under any name) adds nothing. The run's config records the tool, its
version, the file name and hash, the model, the target URL and the load (concurrency, rate);
what the file lacked stays null. Per-request rows go to `requests`; the tool's own aggregates
to `run_aggregates` (a file with no per-request data gives an aggregate-only run).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.foundation.i18n import Phrase
from workbench.core.history.run_history import RunKind, RunStore
from workbench.core.result_files import ImportedRun, ResultFileError, read_result_file


@dataclass(frozen=True)
class ImportOutcome:
    path: Path
    run_id: str | None  # None when the file could not be read
    tool: str | None
    model: str | None
    requests: int
    aggregates: int
    added: bool  # False: the run was already in the history
    error: str | None = None
    error_phrase: Phrase | None = None  # the error, for the window to say in its language


def run_config(run: ImportedRun) -> dict[str, Any]:
    lengths = run.prompt_lengths
    if lengths is None:
        lengths = sorted({r.prompt_tokens_target for r in run.results if r.prompt_tokens_target})
    return {
        "imported": {
            "tool": run.tool,
            "tool_version": run.tool_version,
            "file": run.file_name,
            "sha256": run.sha256,
            "benchmark": run.index,
            "settings": run.extra,
        },
        "targets": [{"provider": run.base_url, "base_url": run.base_url, "model": run.model}],
        "prompt_lengths": lengths,
        "concurrency": run.concurrency,
        "request_rate": run.request_rate,
    }


def store_run(store: RunStore, run: ImportedRun) -> bool:
    """Add one imported run whole, or nothing (False when it is there, whole, already): an
    import killed halfway leaves no part of it, so importing the file again completes it."""
    found = store.query("SELECT status FROM runs WHERE run_id = ?", (run.run_id,))
    if found == [("finished",)]:
        return False
    config = run_config(run)
    kind: RunKind = "sweep" if len(config["prompt_lengths"]) > 1 else "comparison"
    return store.add_whole_run(
        kind, config, run.run_id, run.requests(), run.aggregates, created_at=run.date
    )


Read = tuple[Path, list[ImportedRun] | Phrase]  # a file's runs, or why it could not be read


def read_files(paths: Iterable[Path]) -> list[Read]:
    """Parse every file (no history needed: a worker thread can do this part)."""
    read: list[Read] = []
    for path in paths:
        try:
            read.append((path, read_result_file(path)))
        except ResultFileError as error:
            read.append((path, error.phrase))
    return read


def store_files(store: RunStore, read: Iterable[Read]) -> list[ImportOutcome]:
    """Add parsed files to the history; a file that could not be read is reported."""
    outcomes = []
    for path, runs in read:
        if isinstance(runs, Phrase):
            outcomes.append(ImportOutcome(path, None, None, None, 0, 0, False, str(runs), runs))
            continue
        for run in runs:
            try:  # a streamed file's requests are read here, and may be broken
                added = store_run(store, run)
            except ResultFileError as error:
                outcomes.append(
                    ImportOutcome(path, None, None, None, 0, 0, False, str(error), error.phrase)
                )
                break
            outcomes.append(
                ImportOutcome(
                    path, run.run_id, run.tool, run.model, run.count_requests(),
                    len(run.aggregates), added,
                )
            )  # fmt: skip
    return outcomes


def store_files_at(history: Path, read: Iterable[Read]) -> list[ImportOutcome]:
    """store_files on a connection of its own to the history file at `history`: what a
    worker thread uses (an SQLite connection stays in the thread that opened it)."""
    store = RunStore(history)
    try:
        return store_files(store, read)
    finally:
        store.close()


def import_files(store: RunStore, paths: Iterable[Path]) -> list[ImportOutcome]:
    """Import every file; a file that cannot be read is reported and the others still go in."""
    return store_files(store, read_files(paths))
