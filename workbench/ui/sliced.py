"""Work over many rows (summaries, table rows) done in slices between the GUI's events.

Small work runs at once, as before, so a view is filled when the call returns. Work over
`LARGE` rows or more runs as a generator stepped in slices of about `SLICE_S` on the GUI thread,
the event loop painting in between; only the newest work of a view is finished, a result that a
later call made stale is dropped.

Why not a worker thread: this work is pure Python, and a thread running it kept the GIL from
the GUI thread, whose paints give the GIL up at every Qt call and waited up to the 5 ms switch
interval to take it back each time (benchmarks/import_fill.py: paints of 0.8 s after a 20,000
row import). Qt-free.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Generator, Iterable
from typing import Generic, TypeVar

from workbench.core.foundation.results import RequestResult
from workbench.core.history.summary import CellSummary, Summarizer

T = TypeVar("T")
Steps = Generator[None, None, T]  # yields between small steps, returns the result
LARGE = 4000  # rows: ~10 µs of Python each; fewer fit in one frame and are done at once
SLICE_S = 0.020
STEP_ROWS = 100  # rows between two yields of a generator


class Latest(Generic[T]):
    """One view's sliced work: `run` replaces whatever is pending."""

    def __init__(self) -> None:
        self._generation = 0
        self.task: asyncio.Future[None] | None = None  # the work in flight, for tests to await

    def run(self, work: Callable[[], Steps[T]], size: int, done: Callable[[T], None]) -> None:
        """`done(result of work)` now when `size` is small, else once its slices have run."""
        self._generation += 1
        if size < LARGE:
            self.task = None
            done(finish(work()))
            return
        generation = self._generation

        async def sliced() -> None:
            steps = work()
            while True:
                await asyncio.sleep(0)  # the window's events and paints go first
                if generation != self._generation:  # something newer was asked for
                    steps.close()
                    return
                deadline = time.perf_counter() + SLICE_S
                try:
                    while time.perf_counter() < deadline:
                        next(steps)
                except StopIteration as finished:
                    done(finished.value)
                    return

        self.task = asyncio.ensure_future(sliced())
        self.task.add_done_callback(_report_failure)

    def cancel(self) -> None:
        """Drop the work in flight (it stops at its next slice)."""
        self._generation += 1
        self.task = None

    @property
    def pending(self) -> bool:
        return self.task is not None and not self.task.done()


def finish(steps: Steps[T]) -> T:
    """Run sliced work to its end at once."""
    while True:
        try:
            next(steps)
        except StopIteration as finished:
            return finished.value


def in_steps(
    function: Callable[[RequestResult], T], rows: Iterable[RequestResult]
) -> Steps[list[T]]:
    """`[function(r) for r in rows]`, yielding every STEP_ROWS rows."""
    out: list[T] = []
    for i, row in enumerate(rows, 1):
        out.append(function(row))
        if i % STEP_ROWS == 0:
            yield
    return out


def summarize_in_steps(rows: Iterable[RequestResult]) -> Steps[list[CellSummary]]:
    """`core.summary.summarize`, yielding every STEP_ROWS rows."""
    summarizer = Summarizer()
    yield from in_steps(summarizer.add, rows)
    return summarizer.cells()


def _report_failure(task: asyncio.Future[None]) -> None:
    """A failure in the work reaches the loop's exception handler (the window's error sink)."""
    if not task.cancelled() and task.exception() is not None:
        task.get_loop().call_exception_handler(
            {"message": "background work failed", "exception": task.exception(), "future": task}
        )
