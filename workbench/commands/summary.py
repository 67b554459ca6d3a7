"""`workbench summary`: the stakeholder page of a recorded run, as PDF or PNG.

The page is the app's own Summary tab (workbench/ui/summary_page.py), drawn from the history:
scripts and CI make the same page a presenter would export. Qt is only imported through
workbench.ui, with the offscreen platform when there is no display.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from workbench.commands.common import fail
from workbench.core.history.run_facts import run_facts
from workbench.core.history.run_history import RunStore, StoreError, default_db_path


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "summary",
        help="write a recorded run's stakeholder summary as PDF or PNG",
        description="Write the one-page stakeholder summary (title, charts, a row per model, "
        "the conclusion) of a run from the history, exactly as the app's Summary tab shows it.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--run", metavar="RUN_ID", help="a run id (or its first characters)")
    which.add_argument("--last", action="store_true", help="the newest run in the history")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--pdf", metavar="PATH", help="write a PDF, one page per page")
    out.add_argument("--png", metavar="PATH", help="write a PNG of every page")
    p.add_argument(
        "--paper", choices=("A4", "Letter"), default="A4", help="page size (default: A4)"
    )
    p.add_argument(
        "--baseline", metavar="MODEL", help="compare every model with this one (default: the first)"
    )
    p.set_defaults(func=run)


def _find_run(store: RunStore, wanted: str | None) -> str | None:
    runs = store.runs(limit=-1)
    if wanted is None:
        return runs[0].run_id if runs else None
    matches = [r.run_id for r in runs if r.run_id.startswith(wanted)]
    return matches[0] if len(matches) == 1 else None


def run(args: argparse.Namespace) -> int:
    path = Path(args.pdf or args.png)
    db = default_db_path()
    if not db.exists():
        fail(f"no run history at {db}: run `workbench bench` first (or set WORKBENCH_DATA_DIR)")
        return 2
    try:
        with RunStore(db, recover=False) as store:
            run_id = _find_run(store, None if args.last else args.run)
            if run_id is None:
                what = (
                    "the history has no runs"
                    if args.last
                    else f"no single run matches {args.run!r}"
                )
                fail(f"{what} in {db}: list runs in the app's History tab, or use --last")
                return 2
            info = store.run(run_id)
            results = store.results(run_id)
            facts = run_facts(store, [run_id])  # an imported file's own figures and date
    except StoreError as exc:
        fail(str(exc))
        return 2
    if not any(not r.warmup for r in results):
        fail(f"run {run_id} recorded no measured requests: nothing to summarise")
        return 2
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from workbench.ui.summary_export import write_summary
    except ImportError as exc:
        fail(
            f"Qt cannot load ({exc}): the page is drawn with Qt; reinstall attention-workbench, "
            "and on Linux install libegl1, libxkbcommon0, libfontconfig1 and libdbus-1-3"
        )
        return 2
    try:
        order = [str(t.get("model")) for t in info.config.get("targets", ()) if isinstance(t, dict)]
        pages = write_summary(
            results, info.kind, path, args.paper, args.baseline, order, runs=facts
        )
    except (OSError, ValueError) as exc:
        fail(f"{exc}: choose a writable path ending in .pdf or .png")
        return 2
    print(f"wrote {path} ({pages} page{'s' if pages != 1 else ''}, run {run_id[:12]})")
    return 0
