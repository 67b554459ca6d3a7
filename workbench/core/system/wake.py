"""Waits that end on time: `sleep_until` wakes a coroutine at a perf_counter moment to within
tens of microseconds, where asyncio's own timers end up to ~2 ms late.

asyncio waits for its next timer in epoll with a timeout rounded up to a whole millisecond, and
uvloop's timers tick in milliseconds, so `asyncio.sleep(0.0097)` lands at 8 or 10 ms. That is
a fifth of a simulated token's gap, and most of an open-loop arrival's lateness budget
(docs/scale.md). Here the loop's timer sleeps to a little before the moment, then one alarm
thread, which sleeps on a condition with a nanosecond timeout, hands the last stretch back to
the loop with `call_soon_threadsafe` (its self-pipe wakes epoll at once).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time

# asyncio's own timer covers the wait up to this much before the moment: past its ~2 ms error
COARSE_MARGIN_S = 0.004


class _Alarm:
    """One thread for every loop: a heap of (moment, order, loop, future)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def at(self, moment: float) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._changed:
            heapq.heappush(self._heap, (moment, next(self._order), loop, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="wake-alarm", daemon=True)
                self._thread.start()
            self._changed.notify()
        return future

    def _run(self) -> None:
        with self._changed:
            while True:
                if not self._heap:
                    self._changed.wait()
                    continue
                left = self._heap[0][0] - time.perf_counter()
                if left > 0:
                    self._changed.wait(left)
                    continue
                _, _, loop, future = heapq.heappop(self._heap)
                try:
                    loop.call_soon_threadsafe(_ring, future)
                except RuntimeError:
                    pass  # its loop is closed: nobody waits any more


def _ring(future: asyncio.Future[None]) -> None:
    if not future.done():  # a cancelled wait stays cancelled
        future.set_result(None)


_ALARM = _Alarm()


async def sleep_until(moment: float) -> None:
    """Return at perf_counter() == `moment` (at once, after one yield, when it has passed)."""
    left = moment - time.perf_counter()
    if left <= 0:
        await asyncio.sleep(0)  # behind schedule still lets the other tasks run
        return
    if left > COARSE_MARGIN_S:
        await asyncio.sleep(left - COARSE_MARGIN_S)
        if moment - time.perf_counter() <= 0:
            return
    await _ALARM.at(moment)


async def sleep_until_ns(moment_ns: int) -> None:
    """`sleep_until` for a perf_counter_ns() moment."""
    await sleep_until(moment_ns / 1e9)
