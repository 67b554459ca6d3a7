"""`workbench history list` and `workbench history show RUN`: the run history from a terminal.

`--json` prints the documents docs/json.md describes; `show` prints the same run
document as `bench --json` (configuration, aggregates per model, row counts) plus the run's
kind, status and times.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from workbench.commands import history_delete
from workbench.commands.run_pick import one_run
from workbench.core.foundation.redaction import redact, redact_values
from workbench.core.foundation.reported_figures import figures
from workbench.core.foundation.terminal import json_text, printable, printable_lines
from workbench.core.history.run_facts import RunSummary, run_summaries, run_summary
from workbench.core.history.run_history import RunStore, StoreError
from workbench.core.history.run_report import run_document


def add_actions(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ls = actions.add_parser(
        "list",
        help="the recorded runs, newest first",
        description="List the runs in the history: id, kind, status, when, measured requests, "
        "how many of them failed and how many the user stopped, and models (calibration and "
        "warm-up requests are not counted, as in the window's History).",
        epilog="examples:\n  workbench history list\n  workbench history list --limit 5 --json",
    )
    ls.add_argument("--limit", type=int, default=20, help="at most this many runs (default: 20)")
    ls.add_argument("--json", action="store_true", help="print the runs as a JSON list")
    ls.set_defaults(func=run_list)
    show = actions.add_parser(
        "show",
        help="one run's configuration and aggregates",
        description="Show one recorded run: its configuration and, per model, the aggregates "
        "(mean/median/std/p90/p99 of TTFT, TPOT, ITL and end-to-end latency, request and output "
        "throughput) under vLLM's names.",
        epilog="examples:\n  workbench history show 3f2a\n  workbench history show 3f2a --json",
    )
    show.add_argument("run", metavar="RUN", help="a run id (or its first characters)")
    show.add_argument("--json", action="store_true", help="print the run as JSON")
    show.set_defaults(func=run_show)
    history_delete.add_action(actions)


def _err(message: str) -> None:
    print(f"error: {printable_lines(redact(message))}", file=sys.stderr)


def _when(stamp: float | None) -> str | None:
    return None if stamp is None else time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(stamp))


def _entry(run: RunSummary) -> dict[str, Any]:
    info = run.info
    return {
        "run_id": info.run_id,
        "kind": info.kind,
        "status": info.status,
        "created_at": _when(info.created_at),
        "finished_at": _when(info.finished_at),
        "models": run.models,
        "requests": info.requests,
        "errors": info.errors,
        "stopped": info.stopped,
        "calibration": info.calibration,
        "warmup": info.warmup,
    }


def run_list(args: argparse.Namespace) -> int:
    if args.limit < 1:
        _err(f"--limit must be 1 or more, not {args.limit}; e.g. --limit 20")
        return 2
    try:
        with RunStore() as store:  # a run whose process is gone shows as interrupted
            runs = run_summaries(store, limit=args.limit)
    except StoreError as exc:
        _err(str(exc))
        return 2
    entries = [_entry(run) for run in runs]
    if args.json:
        print(json_text(redact_values(entries)))
        return 0
    if not entries:
        print("No runs in the history yet: `workbench bench --model M` records one.")
    for e in entries:
        line = (
            f"{e['run_id'][:12]}  {e['created_at']}  {e['kind']:<10} {e['status']:<9} "
            f"{e['requests']:>5} req {e['errors']:>4} failed {e['stopped']:>4} stopped  "
            f"{', '.join(e['models'])}"
        )
        print(printable(redact(line)))
    return 0


def run_show(args: argparse.Namespace) -> int:
    try:
        with RunStore(recover=False) as store:
            run_id = one_run(store, args.run)
            if run_id is None:
                return 2
            summary = run_summary(store, store.run(run_id))
            info = summary.info
            results = store.results(info.run_id)
            stored = store.aggregates(info.run_id)
    except StoreError as exc:
        _err(str(exc))
        return 2
    document = {**_entry(summary), **run_document(info.run_id, info.config, results)}
    imported = isinstance(info.config.get("imported"), dict)
    if stored or imported:  # the file's own figures, shown as it has them
        # the rows' model as they name it (blank where the file named none), else the config's
        rows_models = list(document["aggregates"])
        model = rows_models[0] if len(rows_models) == 1 else (summary.models or ["?"])[0]
        computed = document["aggregates"].get(model) if results else None
        shown, derived, others = figures(imported, computed, stored)
        document["aggregates"] = {**document["aggregates"], model: shown}
        document["derived"] = {model: derived}
        document["tool_figures"] = {model: others}
    if args.json:
        print(json_text(redact_values(document)))
        return 0
    _print_show(document)
    return 0


def _print_show(document: dict[str, Any]) -> None:
    head = (
        f"run {document['run_id']}: {document['kind']}, {document['status']}, "
        f"{document['created_at']}"
    )
    lines = [head, f"rows: {document['rows']}"]
    config = document["config"]
    for key in ("prompt_lengths", "repeats", "concurrency", "warmup", "max_tokens", "mode"):
        if key in config:
            lines.append(f"  {key}: {config[key]}")
    for model, values in document["aggregates"].items():
        derived = set(document.get("derived", {}).get(model, ()))
        lines.append(f"{model or '(model not given)'}:")
        for name in sorted(values):
            value = values[name]
            shown = f"{value:.3f}" if isinstance(value, float) else str(value)
            lines.append(f"  {name}: {shown}" + (" (derived)" if name in derived else ""))
        for metric, stats in sorted(document.get("tool_figures", {}).get(model, {}).items()):
            shown = ", ".join(f"{s} {v:.3f}" for s, v in stats.items())
            lines.append(f"  {metric} (the tool's own name): {shown}")
    for line in lines:
        print(printable(redact(line)))
