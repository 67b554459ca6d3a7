"""The run's progress on stderr: a bar with a weighted ETA on a terminal, plain lines elsewhere.

`-q` shows nothing but errors and the final table; `-v` adds one line per request (model,
prompt size, TTFT, decode rate). When stderr is not a terminal (CI logs, a pipe) each request
is one plain line, ``  3/8 done, 0 failed, ETA 12 s``, that a log keeps readable. The ETA is
`core.eta.WeightedEta`: requests weigh by prompt tokens and output budget.
"""

from __future__ import annotations

import argparse
import sys
from types import TracebackType
from typing import Any, Literal

from workbench.core.eta import WeightedEta
from workbench.core.runner import Progress, RequestFinished, RunPlan
from workbench.core.terminal import printable

Verbosity = Literal["quiet", "normal", "verbose"]


def add_verbosity_args(p: argparse.ArgumentParser) -> None:
    loud = p.add_mutually_exclusive_group()
    loud.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress: only errors and the final table",
    )
    loud.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="one line per request (model, prompt size, TTFT, decode rate) besides the progress",
    )


def verbosity(args: argparse.Namespace) -> Verbosity:
    return "quiet" if args.quiet else "verbose" if args.verbose else "normal"


def planned_requests(plan: RunPlan) -> list[tuple[int, int]]:
    """Every request the plan counts in its progress, as (prompt tokens, output budget)."""
    per_length = sum(plan.requests_at(c) + plan.warmup for c in plan.levels)
    return [
        (length, plan.max_tokens)
        for _ in plan.targets
        for length in plan.prompt_lengths
        for _ in range(per_length)
    ]


def _eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "ETA --"
    minutes, secs = divmod(round(seconds), 60)
    return f"ETA {minutes}:{secs:02d}" if minutes else f"ETA {secs} s"


class ProgressDisplay:
    """Takes the run's events; a context manager so the bar is always closed."""

    def __init__(self, plan: RunPlan, level: Verbosity, tty: bool | None = None) -> None:
        self.level = level
        self.max_tokens = plan.max_tokens
        self.eta = WeightedEta(planned_requests(plan))
        self.tty = sys.stderr.isatty() if tty is None else tty
        self._bar: Any = None
        self._task: Any = None
        if level != "quiet" and self.tty:
            self._start_bar(plan.total_requests)

    def _start_bar(self, total: int) -> None:
        # rich only when there is a terminal to draw on: it is not needed for plain lines
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[failed]} failed, {task.fields[eta]}"),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self._task = self._bar.add_task("requests", total=total, failed=0, eta="ETA --")
        self._bar.start()

    def __enter__(self) -> ProgressDisplay:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def finished(self, event: RequestFinished) -> None:
        result, metrics = event.result, event.metrics
        if result.phase == "calibration":
            return  # not in the plan's count
        seconds = metrics.e2e_ms / 1000 if metrics.e2e_ms is not None else None
        self.eta.finished(result.prompt_tokens_target or 0, self.max_tokens, seconds)
        if self.level == "verbose" and result.ok:
            ttft = f"{metrics.ttft_ms:.0f} ms" if metrics.ttft_ms is not None else "-"
            rate = f"{metrics.decode_tps:.1f} tok/s" if metrics.decode_tps is not None else "-"
            line = (
                f"  {result.phase} {event.target.model} {result.prompt_tokens_target} tok: "
                f"TTFT {ttft}, decode {rate}"
            )
            print(printable(line), file=sys.stderr)

    def progress(self, event: Progress) -> None:
        eta = _eta_text(self.eta.remaining_s(event.elapsed_s))
        if self._bar is not None:
            self._bar.update(self._task, completed=event.done, failed=event.errors, eta=eta)
        elif self.level != "quiet":
            print(
                f"  {event.done}/{event.total} done, {event.errors} failed, {eta}", file=sys.stderr
            )
