"""The run's progress on stderr: a bar with a weighted ETA on a terminal, plain lines elsewhere.

`-q` shows nothing but errors and the final table; `-v` adds one line per request (model,
prompt size, TTFT, decode rate). When stderr is not a terminal (CI logs, a pipe) each request
is one plain line, ``  3/8 done, 0 failed, 41 %, ETA 12 s``, that a log keeps readable. The
share done and the ETA are `core.progress_estimate`'s, the same figures the window shows.
"""

from __future__ import annotations

import argparse
import sys
import time
from types import TracebackType
from typing import Any, Literal

from workbench.core.foundation.terminal import printable
from workbench.core.load.capacity_report import UNITS, step_json, step_words
from workbench.core.planning.progress_estimate import ProgressEstimate, ProgressReading
from workbench.core.planning.run_events import Progress, RequestFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.capacity_run import CapacityEvent, CapacityStep

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


BAR_REFRESH_S = 0.25  # the bar moves during a long prefill, a few times a second


def _eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "ETA --"
    minutes, secs = divmod(round(seconds), 60)
    return f"ETA {minutes}:{secs:02d}" if minutes else f"ETA {secs} s"


class ProgressDisplay:
    """Takes the run's events; a context manager so the bar is always closed."""

    def __init__(self, plan: RunPlan, level: Verbosity, tty: bool | None = None) -> None:
        self.level = level
        self.estimate = ProgressEstimate.for_plan(plan, time.perf_counter())
        self.unit = UNITS[plan.capacity.by] if plan.capacity is not None else ""
        self._drawn_at = 0.0
        self._failed = 0
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
            TextColumn("{task.fields[failed]} failed, {task.fields[share]}, {task.fields[eta]}"),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self._task = self._bar.add_task(
            "requests", total=total, failed=0, share="0 %", eta="ETA --"
        )
        self._bar.start()

    def __enter__(self) -> ProgressDisplay:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def event(self, event: CapacityEvent) -> None:
        """Every event of the run: the estimate takes each; the bar redraws a few times a
        second, so it moves while a request is still in prefill."""
        self.estimate.feed(event, time.perf_counter())
        if isinstance(event, RequestFinished):
            self.finished(event)
        elif isinstance(event, Progress):
            self.progress(event)
        elif isinstance(event, CapacityStep) and self.level != "quiet":
            said = step_words(step_json(event.step), self.unit)  # a search's step, as it ends
            print(printable(f"  {event.model}: {said}"), file=sys.stderr)
        elif self._bar is not None and time.perf_counter() - self._drawn_at >= BAR_REFRESH_S:
            self._draw(self.estimate.read(time.perf_counter()))

    def finished(self, event: RequestFinished) -> None:
        result, metrics = event.result, event.metrics
        if result.phase == "calibration":
            return  # not in the plan's count
        if self.level == "verbose" and result.ok:
            ttft = f"{metrics.ttft_ms:.0f} ms" if metrics.ttft_ms is not None else "-"
            rate = f"{metrics.decode_tps:.1f} tok/s" if metrics.decode_tps is not None else "-"
            line = (
                f"  {result.phase} {event.target.model} {result.prompt_tokens_target} tok: "
                f"TTFT {ttft}, decode {rate}"
            )
            print(printable(line), file=sys.stderr)

    def _draw(self, reading: ProgressReading) -> None:
        self._drawn_at = time.perf_counter()
        self._bar.update(
            self._task,
            completed=reading.done,
            failed=self._failed,
            share=f"{reading.percent} %",
            eta=_eta_text(reading.eta_s),
        )

    def progress(self, event: Progress) -> None:
        self._failed = event.errors
        reading = self.estimate.read(time.perf_counter())
        if self._bar is not None:
            self._draw(reading)
        elif self.level != "quiet":
            line = (
                f"  {event.done}/{event.total} done, {event.errors} failed, {reading.percent} %, "
            )
            print(line + _eta_text(reading.eta_s), file=sys.stderr)
