"""core/system/wake.py: waits that end on time, where asyncio's timers end up to ~2 ms late."""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

from workbench.core.system.wake import sleep_until


async def _lateness_ms(waits: int, gap_s: float) -> list[float]:
    start = time.perf_counter()
    late = []
    for i in range(1, waits + 1):
        moment = start + i * gap_s
        await sleep_until(moment)
        late.append((time.perf_counter() - moment) * 1000)
    return late


async def test_a_wait_ends_at_its_moment_not_before_and_well_within_a_millisecond() -> None:
    late = await _lateness_ms(60, 0.0097)  # a simulated token's gap, not a whole millisecond
    assert min(late) >= 0, "woke before the moment"
    assert statistics.median(late) < 0.5, late


async def test_many_waiters_each_wake_at_their_own_moment() -> None:
    results = await asyncio.gather(*(_lateness_ms(20, 0.003 + k * 0.0007) for k in range(10)))
    medians = [statistics.median(r) for r in results]
    assert max(medians) < 1.0, medians


async def test_a_cancelled_wait_stays_cancelled_and_the_next_one_still_wakes() -> None:
    task = asyncio.ensure_future(sleep_until(time.perf_counter() + 0.002))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    late = await _lateness_ms(5, 0.003)
    assert statistics.median(late) < 1.0, late


def test_a_closed_loop_with_a_pending_wait_does_not_stop_the_waits_of_the_next() -> None:
    loop = asyncio.new_event_loop()
    loop.run_until_complete(asyncio.sleep(0))
    pending = loop.create_task(sleep_until(time.perf_counter() + 0.001))
    loop.run_until_complete(asyncio.sleep(0))  # the wait is in the alarm's heap
    pending.cancel()
    loop.run_until_complete(asyncio.gather(pending, return_exceptions=True))
    loop.close()
    time.sleep(0.005)  # the alarm rings a closed loop meanwhile
    late = asyncio.run(_lateness_ms(5, 0.003))
    assert statistics.median(late) < 1.0, late


async def test_a_moment_already_passed_returns_after_one_yield() -> None:
    began = time.perf_counter()
    await sleep_until(began - 1.0)
    assert time.perf_counter() - began < 0.01
