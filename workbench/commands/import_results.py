"""`workbench import-results PATH...` and `workbench history export RUN --format vllm`: other
tools' result files into the run history, and our runs out in vLLM's result JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.commands import history as history_command
from workbench.commands.run_pick import one_run
from workbench.core.foundation.redaction import redact, redact_values
from workbench.core.foundation.reported_figures import reported
from workbench.core.foundation.terminal import printable_lines
from workbench.core.history.result_import import ImportOutcome, import_files
from workbench.core.history.run_history import RunStore, StoreError
from workbench.core.result_files import vllm

EXAMPLE = (
    "example: workbench import-results results/vllm-*.json benchmarks.json "
    "artifacts/run/profile_export.jsonl"
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import-results",
        help="import vLLM, guidellm, AIPerf or GenAI-Perf result files into the run history",
        description="Read result files other benchmark tools wrote (vLLM `bench serve "
        "--save-result [--save-detailed]` JSON, guidellm benchmarks.json/.yaml, AIPerf "
        "profile_export.jsonl, AIPerf / GenAI-Perf profile_export_*.json) and add each "
        "benchmark in them to the run history, beside your own runs. The format is read from "
        "the content. Importing the same file again adds nothing.",
        epilog=EXAMPLE,
    )
    p.add_argument("paths", metavar="PATH", nargs="+", type=Path, help="a result file")
    p.add_argument("--json", action="store_true", help="print what was imported as JSON")
    p.set_defaults(func=run_import)
    history = sub.add_parser(
        "history",
        help="list, show or export recorded runs",
        description="Work with the run history.",
    )
    actions = history.add_subparsers(dest="history_command", metavar="ACTION")
    export = actions.add_parser(
        "export",
        help="write a run as vLLM `--save-result --save-detailed` JSON",
        description="Write a run from the history as the JSON `vllm bench serve "
        "--save-result --save-detailed` writes, so notebooks made for vLLM's results read it.",
        epilog="example: workbench history export 3f2a --format vllm -o run.json",
    )
    export.add_argument("run", metavar="RUN", help="a run id (or its first characters)")
    export.add_argument(
        "--format", choices=("vllm",), default="vllm", help="the file format (default: vllm)"
    )
    export.add_argument(
        "-o", "--output", type=Path, help="the file to write (default: standard output)"
    )
    export.set_defaults(func=run_export)
    history_command.add_actions(actions)
    history.set_defaults(func=lambda _args: _usage(history))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _err(message: str) -> None:
    print(f"error: {printable_lines(redact(message))}", file=sys.stderr)


def _line(outcome: ImportOutcome) -> str:
    what = f"{outcome.requests} requests" if outcome.requests else "aggregates only"
    state = "imported" if outcome.added else "already in the history"
    model = outcome.model or "model not given"
    return f"{outcome.path.name}: {outcome.tool} run {outcome.run_id} ({model}, {what}): {state}"


def run_import(args: argparse.Namespace) -> int:
    try:
        with RunStore() as store:
            outcomes = import_files(store, args.paths)
    except StoreError as exc:
        _err(str(exc))
        return 2
    if args.json:
        doc = [
            {
                "file": str(o.path),
                "run_id": o.run_id,
                "tool": o.tool,
                "model": o.model,
                "requests": o.requests,
                "aggregates": o.aggregates,
                "added": o.added,
                "error": o.error,
            }
            for o in outcomes
        ]
        print(json.dumps(redact_values(doc), indent=2, ensure_ascii=False))
    for outcome in outcomes:
        if outcome.error:
            _err(outcome.error)
        elif not args.json:
            print(printable_lines(redact(_line(outcome))))
    return 2 if any(o.error for o in outcomes) else 0


def _vllm_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The run settings an imported vLLM file gave, under vLLM's names."""
    source = config.get("imported") or {}
    settings = source.get("settings") if isinstance(source, dict) else None
    if not isinstance(source, dict) or source.get("tool") != "vllm":
        settings = None  # another tool's settings have no field in vLLM's file
    targets = config.get("targets") or [{}]
    rate = config.get("request_rate")
    return {
        **(settings if isinstance(settings, dict) else {}),
        "model_id": targets[0].get("model") if isinstance(targets[0], dict) else None,
        "request_rate": "inf" if rate is None else rate,
        "max_concurrency": config.get("concurrency"),
    }


def run_export(args: argparse.Namespace) -> int:
    try:
        with RunStore(recover=False) as store:
            run_id = one_run(store, args.run)
            if run_id is None:
                return 2
            info = store.run(run_id)
            results = store.results(run_id)
            aggregates = store.aggregates(run_id)
    except StoreError as exc:
        _err(str(exc))
        return 2
    source = info.config.get("imported")
    # an imported run goes out with the figures its file stated, under vLLM's names
    own = vllm.export_aggregates(reported(aggregates)[0])
    settings = _vllm_settings(info.config) if isinstance(source, dict) else {}
    if any(not r.warmup for r in results):
        doc = {**vllm.export(results, info.config), **settings, **own}
    elif own:
        doc = {**settings, **own}
    else:
        _err(
            f"run {info.run_id} has neither per-request rows nor figures in vLLM's terms (an "
            "empty run): there is nothing to export"
        )
        return 2
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    if args.output is None:
        print(text)
        return 0
    try:
        args.output.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        _err(f"cannot write {args.output} ({exc.strerror or exc}): pick a writable path")
        return 2
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
