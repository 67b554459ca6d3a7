"""The `workbench` command: one entry point for the app and its headless faces."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from workbench import __version__
from workbench.commands import bench, models, serve


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Attention Workbench: compare LLMs behind OpenAI-compatible APIs and see "
        "why one decodes faster. With no subcommand it runs the default comparison.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    bench.add_parser(sub)
    serve.add_parser(sub)
    models.add_parser(sub)
    return parser


DEFAULT_COMPARISON = [
    "bench",
    "--model",
    "sim-llama-3-70b",
    "--model",
    "sim-deepseek-v3",
    "--prompt-tokens",
    "32K",
    "--csv",
    "results.csv",
]


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list:
        # the headless default: a GQA and an MLA model at a 32K prompt on the built-in provider
        args_list = DEFAULT_COMPARISON
    parser = build_parser()
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
