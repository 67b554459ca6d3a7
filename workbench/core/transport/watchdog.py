"""A limit that moves with every event, watched by one lazy timer instead of one per event.

A streamed body has a stall limit that restarts at each token. Wrapping every read in its own
`asyncio.timeout` cost ~25 µs per event here (a timer pushed onto the loop's heap and cancelled,
the deadline worked out again), about a fifth of the client's CPU per streamed token
(benchmarks/results/client_fidelity.md). `Watch` arms one timer at the nearest limit; when it
fires it asks for the limit as it stands then, and re-arms if a token has since moved it, or
else cancels the watched task and raises the caller's exception in its place, exactly as
`asyncio.timeout` does (same cancel and uncancel bookkeeping). Each limit keeps its definition
and fires at the same moment; only the bookkeeping per event is gone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from types import TracebackType


class Watch:
    """`async with Watch(deadline_ns, expired):` raises `expired()` when the clock passes
    `deadline_ns()` (perf_counter_ns), a deadline that may move while the block runs: later at
    any time, earlier only followed by `rearm()`."""

    def __init__(self, deadline_ns: Callable[[], int], expired: Callable[[], Exception]) -> None:
        self._deadline_ns = deadline_ns
        self._expired = expired
        self._handle: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[object] | None = None
        self._cancelling = 0
        self._error: Exception | None = None  # set when the limit passed

    async def __aenter__(self) -> Watch:
        self._task = asyncio.current_task()
        if self._task is None:
            raise RuntimeError("Watch must be used inside a task")
        self._cancelling = self._task.cancelling()
        self._arm()
        return self

    def rearm(self) -> None:
        """The deadline may have moved earlier (the timer only notices it moving later)."""
        if self._handle is not None and self._error is None:
            self._handle.cancel()
            self._arm()

    def _arm(self) -> None:
        delay_s = (self._deadline_ns() - time.perf_counter_ns()) / 1e9
        self._handle = asyncio.get_running_loop().call_later(max(0.0, delay_s), self._fire)

    def _fire(self) -> None:
        if time.perf_counter_ns() < self._deadline_ns():
            self._arm()  # an event moved the limit on since the timer was set
            return
        assert self._task is not None
        self._error = self._expired()  # the limit that passed, before any later event moves it
        self._task.cancel()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._handle is not None:
            self._handle.cancel()
        if self._error is not None:
            assert self._task is not None
            if self._task.uncancel() <= self._cancelling and exc_type is asyncio.CancelledError:
                raise self._error from None
