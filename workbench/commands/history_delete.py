"""`workbench history delete RUN`: remove a run, its requests and aggregates from the history,
after a confirmation (or `--yes`)."""

from __future__ import annotations

import argparse
import sys

from workbench.commands.run_pick import one_run
from workbench.core.foundation.redaction import redact
from workbench.core.foundation.terminal import printable, printable_lines
from workbench.core.history.run_history import RunStore, StoreError


def add_action(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    delete = actions.add_parser(
        "delete",
        help="remove a run and its requests from the history",
        description="Delete one run from the run history, with its requests and aggregates. "
        "Asks first; --yes skips the question (needed when the input is not a terminal). "
        "An imported run can be imported again afterwards.",
        epilog="examples:\n  workbench history delete 3f2a\n  workbench history delete 3f2a --yes",
    )
    delete.add_argument("run", metavar="RUN", help="a run id (or its first characters)")
    delete.add_argument("-y", "--yes", action="store_true", help="delete without asking")
    delete.set_defaults(func=run_delete)


def _err(message: str) -> None:
    print(f"error: {printable_lines(redact(message))}", file=sys.stderr)


def _confirmed(question: str) -> bool | None:
    """The user's answer; None when there is no terminal to ask on."""
    if not sys.stdin.isatty():
        return None
    try:
        answer = input(printable(redact(question)) + " [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def run_delete(args: argparse.Namespace) -> int:
    try:
        with RunStore() as store:  # a run whose process is gone is marked interrupted first
            run_id = one_run(store, args.run)
            if run_id is None:
                return 2
            info = store.run(run_id)
            what = f"run {run_id} ({info.kind}, {info.status}, {info.requests} requests)"
            store.check_deletable(run_id)  # refused before the question, not after it
            if not args.yes:
                answer = _confirmed(f"Delete {what} from {store.path}?")
                if answer is None:
                    _err(f"not deleting {what} without a confirmation: add --yes")
                    return 2
                if not answer:
                    print("Nothing deleted.", file=sys.stderr)
                    return 0
            store.delete_run(run_id)
    except StoreError as exc:
        _err(str(exc))
        return 2
    print(printable(redact(f"deleted {what}")))
    return 0
