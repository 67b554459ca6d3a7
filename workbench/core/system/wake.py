"""Waits that end on time: `sleep_until` wakes a coroutine at a perf_counter moment to within
tens of microseconds, where asyncio's own timers end up to ~2 ms late.

asyncio waits for its next timer in epoll with a timeout rounded up to a whole millisecond, and
uvloop's timers tick in milliseconds, so `asyncio.sleep(0.0097)` lands at 8 or 10 ms. That is
a fifth of a simulated token's gap, and most of an open-loop arrival's lateness budget
(docs/scale.md). Here the loop's timer sleeps to a little before the moment, then one alarm
thread, which sleeps on a condition with a nanosecond timeout, hands the last stretch back to
the loop with `call_soon_threadsafe` (its self-pipe wakes epoll at once).

**In the order of their moments.** A loop busy past several moments wakes their waits in the
order of the moments, not in the order their timers happened to fire: every wake-up (the
alarm's, or a coarse timer that found its moment passed) releases all of that loop's waits now
due, earliest first, from one callback, so the earliest runs first. An open-loop request due
first is written first (core/transport/send_stamp.py), however late the loop is.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
import weakref

# asyncio's own timer covers the wait up to this much before the moment: past its ~2 ms error
COARSE_MARGIN_S = 0.004


class _Waits:
    """One loop's waits not yet released: a heap of (moment, order, future)."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, asyncio.Future[None]]] = []


_WAITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Waits] = weakref.WeakKeyDictionary()
_ORDER = itertools.count()


def _release_due(loop: asyncio.AbstractEventLoop) -> None:
    """Release every wait of `loop` whose moment has come, earliest first (a cancelled one is
    dropped): their tasks run in that order, after the callbacks already queued."""
    waits = _WAITS.get(loop)
    if waits is None:
        return
    now = time.perf_counter()
    heap = waits.heap
    while heap and heap[0][0] <= now:
        future = heapq.heappop(heap)[2]
        if not future.done():  # a cancelled wait stays cancelled
            future.set_result(None)


class _Alarm:
    """One thread for every loop: a heap of (moment, order, loop) to wake at each moment."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, asyncio.AbstractEventLoop]] = []
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def at(self, loop: asyncio.AbstractEventLoop, moment: float) -> None:
        with self._changed:
            heapq.heappush(self._heap, (moment, next(_ORDER), loop))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="wake-alarm", daemon=True)
                self._thread.start()
            self._changed.notify()

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
                loop = heapq.heappop(self._heap)[2]
                try:
                    loop.call_soon_threadsafe(_release_due, loop)
                except RuntimeError:
                    pass  # its loop is closed: nobody waits any more


_ALARM = _Alarm()


def _near(loop: asyncio.AbstractEventLoop, moment: float, future: asyncio.Future[None]) -> None:
    """The loop's own timer, a little before `moment`: the alarm takes the last stretch, or, when
    the timer came late, everything due is released now (in order)."""
    if future.done():
        return
    if time.perf_counter() >= moment:
        _release_due(loop)
    else:
        _ALARM.at(loop, moment)


async def sleep_until(moment: float) -> None:
    """Return at perf_counter() == `moment` (at once, after one yield, when it has passed), after
    every wait of this loop due before it."""
    left = moment - time.perf_counter()
    if left <= 0:
        await asyncio.sleep(0)  # behind schedule still lets the other tasks run
        return
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()
    waits = _WAITS.get(loop)
    if waits is None:
        waits = _WAITS[loop] = _Waits()
    heapq.heappush(waits.heap, (moment, next(_ORDER), future))
    # the task itself only ever wakes on its future, set in the order of the moments
    timer = None
    if left > COARSE_MARGIN_S:
        timer = loop.call_later(left - COARSE_MARGIN_S, _near, loop, moment, future)
    else:
        _ALARM.at(loop, moment)
    try:
        await future
    finally:
        future.cancel()  # a wait cancelled early is dropped when its moment comes
        if timer is not None:
            timer.cancel()


async def sleep_until_ns(moment_ns: int) -> None:
    """`sleep_until` for a perf_counter_ns() moment."""
    await sleep_until(moment_ns / 1e9)
