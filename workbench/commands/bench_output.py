"""Where `workbench bench` puts its results: `--csv`, `--output DIR`, `--json`, `--force`.

Nothing is overwritten silently: an explicit `--csv` file with rows in it, or a non-empty
`--output` folder, is refused (exit 2) unless `--force`; the default `results.csv`, when taken,
moves to the next free `results-N.csv` and says so, so the headless default run keeps working.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from workbench.core.foundation.redaction import redact_values
from workbench.core.foundation.terminal import json_text, printable
from workbench.core.history.csv_export import CsvWriter, check_csv_path
from workbench.core.system.private_files import private_dir

DEFAULT_CSV = "results.csv"
RUN_JSON = "run.json"


def add_output_args(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--csv",
        metavar="PATH",
        help="where to write the rows (one per request, appended as each finishes); an existing "
        f"file is refused unless --force (default: {DEFAULT_CSV}, or results-N.csv when taken)",
    )
    where.add_argument(
        "--output",
        metavar="DIR",
        type=Path,
        help=f"a folder for results.csv (row by row) and {RUN_JSON} (configuration and "
        "aggregates); created if missing, refused when not empty unless --force",
    )
    p.add_argument(
        "--force", action="store_true", help="replace an existing --csv file or --output folder"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the run (configuration, aggregates per model, row counts) as JSON on stdout "
        "instead of the table; progress stays on stderr",
    )


def _has_rows(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def _free_default() -> Path:
    path = Path(DEFAULT_CSV)
    number = 1
    while _has_rows(path):
        path = Path(f"results-{number}.csv")
        number += 1
    return path


def choose_csv(args: argparse.Namespace) -> Path:
    """The CSV path to write, checked; ValueError names the cause and the fix."""
    args.output_created = False  # whether this run makes the --output folder (open_csv)
    if args.output is not None:
        folder = args.output.expanduser()
        args.output_created = not folder.exists()
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"--output {folder} is a file; give a folder (it is created)")
        if folder.is_dir() and any(folder.iterdir()) and not args.force:
            raise ValueError(
                f"--output {folder} is not empty; pass --force to replace the results in it, "
                "or give a new folder"
            )
        try:
            private_dir(folder)  # 0700 for the folders we create: the rows hold model output
        except OSError as exc:
            raise ValueError(
                f"cannot create --output {folder}: {exc.strerror or exc}; pick a folder you can "
                "write to"
            ) from None
        return check_csv_path(folder / DEFAULT_CSV)
    if args.csv is None:
        path = _free_default()
        if path.name != DEFAULT_CSV:
            print(f"{DEFAULT_CSV} has rows already: writing {path}", file=sys.stderr)
        return check_csv_path(path)
    path = Path(args.csv).expanduser()
    if _has_rows(path) and not args.force:
        raise ValueError(
            f"{path} exists and has rows; pass --force to replace it, or give a new --csv path"
        )
    return check_csv_path(args.csv)  # the text as given: an empty one is named as such


def output_flag(args: argparse.Namespace) -> str:
    """The flag that chose where the rows go, as the user gave it (for every message)."""
    return "--output" if args.output is not None else "--csv"


def unwritable(path: Path, error: OSError, flag: str) -> str:
    """Why the rows cannot be written to `path`, and the fix, naming the user's own flag."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk holding {path} is full: free space or choose another {flag}"
    return f"cannot write {path} ({error.strerror or error}): choose another {flag}"


def open_csv(path: Path, args: argparse.Namespace) -> CsvWriter:
    """The run's CSV writer; ValueError naming the flag when even the header cannot be written,
    leaving nothing behind: no empty file, and no `--output` folder that this run created.
    Only a regular file this run made is removed (never /dev/full or the user's own file)."""
    existed = path.exists()
    try:
        return CsvWriter(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            if not existed and path.is_file() and path.stat().st_size == 0:
                path.unlink()
                if args.output_created:
                    path.parent.rmdir()
        raise ValueError(unwritable(path, exc, output_flag(args))) from None


def print_json(document: dict[str, Any]) -> None:
    """The run document on stdout; keys never enter a plan, redact is a second guard."""
    print(json_text(redact_values(document)))


def write_run_json(folder: Path, document: dict[str, Any]) -> Path:
    """`run.json` in `folder`, whole or not at all: written to a private temporary file beside
    it, then renamed over it (a full disk left a 0-byte run.json). OSError propagates (the
    caller reports it, exit 1)."""
    path = folder.expanduser() / RUN_JSON
    text = json.dumps(redact_values(document), indent=2, ensure_ascii=False) + "\n"
    fd, temporary = tempfile.mkstemp(prefix=".run.json.", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    print(printable(f"Wrote {path}"), file=sys.stderr)
    return path
