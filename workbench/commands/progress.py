"""The run's progress on stderr: a bar with a weighted ETA on a terminal, plain lines elsewhere.

`-q` shows nothing but errors and the final table; `-v` adds one line per request (model,
prompt size, TTFT, decode rate). When stderr is not a terminal (CI logs, a pipe) each request
is one plain line, ``  3/8 done, 0 failed, 41 %, ETA 12 s``, that a log keeps readable; a
capacity search, whose steps have their own lines and whose total is its worst case, prints
one after each step and at each tenth of that total instead. The words of the counts are
`counts_words`' alone: failed (an error), stopped (cancelled: by the user, or a capacity step
that had already missed) and missed the SLO are three things. The share done and the ETA are
`core.progress_estimate`'s, the same figures the window shows. A search shows neither: both would
count its worst case, which most searches never reach; it says the requests done of at most its
worst case and the time elapsed (``  6 of at most 1510 done, 0 failed, 0:31 elapsed``).
"""

from __future__ import annotations

import argparse
import sys
import time
from types import TracebackType
from typing import Any, Literal

from workbench.core.foundation.terminal import printable
from workbench.core.load.capacity_lines import floor_line, step_words, sweep_words
from workbench.core.load.capacity_report import UNITS, step_json
from workbench.core.planning.progress_estimate import ProgressEstimate, ProgressReading
from workbench.core.planning.run_events import Progress, RequestFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.capacity_run import CapacityEvent, CapacityFloor, CapacityStep

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
SEARCH_LINES = 10  # a capacity search's plain lines: one per tenth of its worst case


def counts_words(event: Progress) -> str:
    """`3 failed`, and the stopped and the SLO misses when there are any."""
    words = f"{event.errors} failed"
    if event.stopped:
        words += f", {event.stopped} stopped"
    if event.missed:
        words += f", {event.missed} missed the SLO"
    return words


def _clock_text(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}" if minutes else f"{secs} s"


def _eta_text(seconds: float | None) -> str:
    return "ETA --" if seconds is None else "ETA " + _clock_text(seconds)


class ProgressDisplay:
    """Takes the run's events; a context manager so the bar is always closed."""

    def __init__(self, plan: RunPlan, level: Verbosity, tty: bool | None = None) -> None:
        self.level = level
        self.plan = plan
        self.estimate = ProgressEstimate.for_plan(plan, time.perf_counter())
        self.unit = UNITS[plan.capacity.by] if plan.capacity is not None else ""
        self._drawn_at = 0.0
        self._counts = "0 failed"
        self.search = plan.capacity is not None
        self._said: Progress | None = None  # the last plain line's counts (a search)
        self._tenth = 0
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
            TextColumn("{task.fields[counts]}, {task.fields[share]}, {task.fields[eta]}"),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self._task = self._bar.add_task(
            "requests", total=total, counts="0 failed", share="0 %", eta="ETA --"
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
            self._search_line(force=True)
        elif isinstance(event, CapacityFloor) and self.level != "quiet":
            said = floor_line(event.floor)
            if event.start is not None and self.plan.capacity is not None:
                said += f"; {sweep_words(self.plan.capacity, self.plan.slo, event.start)}"
            print(printable(f"  {event.model}: {said}"), file=sys.stderr)
            self._search_line(force=True)
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
            counts=self._counts,
            share=f"{reading.percent} %" if not self.search else f"at most {reading.total}",
            eta=_eta_text(reading.eta_s)
            if not self.search
            else _clock_text(reading.elapsed_s) + " elapsed",
        )

    def progress(self, event: Progress) -> None:
        self._counts = counts_words(event)
        if self._bar is not None:
            self._draw(self.estimate.read(time.perf_counter()))
        elif self.level == "quiet":
            return
        elif self.search:
            self._said = event
            self._search_line()
        else:
            self._line(event)

    def _search_line(self, force: bool = False) -> None:
        """A search's plain line: after each step, and at each tenth of its worst case."""
        event = self._said
        if event is None or self._bar is not None:
            return
        tenth = event.done * SEARCH_LINES // max(1, event.total)
        if force or tenth > self._tenth:
            self._tenth = tenth
            self._line(event)
            self._said = None

    def _line(self, event: Progress) -> None:
        reading = self.estimate.read(time.perf_counter())
        if self.search:  # its total is a worst case: a share or an ETA of it would mislead
            line = f"  {event.done} of at most {event.total} done, {counts_words(event)}, "
            print(line + _clock_text(reading.elapsed_s) + " elapsed", file=sys.stderr)
            return
        line = f"  {event.done}/{event.total} done, {counts_words(event)}, {reading.percent} %, "
        print(line + _eta_text(reading.eta_s), file=sys.stderr)
