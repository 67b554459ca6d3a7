"""An open-loop schedule holds the interpreter steady while it runs (no full collection, a
short GIL switch interval), and puts it back after (core/system/steady_interpreter.py); its
held requests leave in schedule order.

The schedules here run the real `run_schedule` (core/load/open_loop.py) with a `send` that notes
what it saw; the release order goes through the real transport hold against the built-in
provider on its own thread.
"""

from __future__ import annotations

import asyncio
import gc
import random
import sys
import time
from collections.abc import Iterator

import pytest

from tests.support.loopback import ThreadedLoop
from workbench.core.foundation.results import RequestResult
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.open_loop import run_schedule
from workbench.core.load.prompts import BuiltPrompt
from workbench.core.load.send_lead import held_until_due
from workbench.core.system.steady_interpreter import NO_FULL_COLLECTION, SWITCH_INTERVAL_S
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

MODEL = "sim-70b-gqa"
DEFAULT_SWITCH_S = 0.005
DEFAULT_THRESHOLDS = (700, 10, 10)


@pytest.fixture(autouse=True)
def python_defaults() -> Iterator[None]:
    """Every test starts from Python's defaults (and leaves them so, whatever it did)."""
    sys.setswitchinterval(DEFAULT_SWITCH_S)
    gc.set_threshold(*DEFAULT_THRESHOLDS)
    yield
    sys.setswitchinterval(DEFAULT_SWITCH_S)
    gc.set_threshold(*DEFAULT_THRESHOLDS)


def _no_prompt(_index: int) -> BuiltPrompt:
    raise RuntimeError("not built: this send needs no prompt")


class _Seen:
    """What each request's `send` saw of the interpreter (switch interval, the collector's
    thresholds); each keeps `keep` new objects alive, as rows kept by a consumer are."""

    def __init__(self, fail_at: int | None = None, keep: int = 0) -> None:
        self.switch_s: list[float] = []
        self.thresholds: list[tuple[int, ...]] = []
        self.fail_at = fail_at
        self.keep = keep
        self.kept: list[list[int]] = []

    async def send(self, index: int, *_rest: object) -> None:
        self.switch_s.append(sys.getswitchinterval())
        self.thresholds.append(gc.get_threshold())
        self.kept += [[i] for i in range(self.keep)]
        if index == self.fail_at:
            raise ValueError("a send that fails")


def _spec(requests: int = 5) -> ArrivalSpec:
    return ArrivalSpec(rate=500, process="constant", max_requests=requests)


def _steady(seen: _Seen) -> bool:
    return all(s <= SWITCH_INTERVAL_S for s in seen.switch_s) and all(
        t == (DEFAULT_THRESHOLDS[0], DEFAULT_THRESHOLDS[1], NO_FULL_COLLECTION)
        for t in seen.thresholds
    )


def _as_before() -> bool:
    return sys.getswitchinterval() == DEFAULT_SWITCH_S and gc.get_threshold() == DEFAULT_THRESHOLDS


async def test_a_schedule_makes_no_full_collection_even_as_it_keeps_many_objects() -> None:
    """Each request keeps 40,000 new objects (400,000 in all, as a consumer keeping rows
    would): the young generations are collected as usual, the full collection waits until
    the schedule has ended. Without the steady interpreter the same schedule made several."""
    full: list[float] = []
    young: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            (full.append(time.perf_counter()) if info["generation"] == 2 else young.append(1))

    seen = _Seen(keep=40_000)
    gc.callbacks.append(note)
    try:
        await run_schedule(_spec(10), lambda: False, _no_prompt, seen.send)
    finally:
        gc.callbacks.remove(note)
    assert len(seen.switch_s) == 10 and _steady(seen)
    assert young, "the young generations were not collected at all"
    assert full == [], f"{len(full)} full collections during the schedule"
    assert _as_before()


async def test_a_schedule_that_fails_still_puts_the_interpreter_back() -> None:
    seen = _Seen(fail_at=2)
    with pytest.raises(ExceptionGroup):
        await run_schedule(_spec(), lambda: False, _no_prompt, seen.send)
    assert seen.switch_s and _steady(seen)
    assert _as_before()


async def test_two_schedules_at_once_keep_it_steady_until_the_last_one_ends() -> None:
    short, long = _Seen(), _Seen()
    await asyncio.gather(
        run_schedule(_spec(2), lambda: False, _no_prompt, short.send),
        run_schedule(_spec(20), lambda: False, _no_prompt, long.send),
    )
    # the long one's later requests came after the short one had ended: still steady
    assert len(long.switch_s) == 20 and _steady(long)
    assert _as_before()


async def test_a_shorter_switch_interval_and_other_thresholds_are_put_back_as_they_were() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL_S / 4)  # already shorter than ours: not lengthened
    shorter = sys.getswitchinterval()  # as Python keeps it (whole microseconds)
    gc.set_threshold(2000, 20, 30)
    seen = _Seen()
    await run_schedule(_spec(), lambda: False, _no_prompt, seen.send)
    assert seen.switch_s == [shorter] * 5
    assert seen.thresholds == [(2000, 20, NO_FULL_COLLECTION)] * 5
    assert sys.getswitchinterval() == shorter
    assert gc.get_threshold() == (2000, 20, 30)


async def test_held_requests_leave_in_the_order_they_are_due() -> None:
    """Requests made ready together, due in a shuffled order 3 ms apart, are written (stamped)
    in due order, none before its moment, and the server sees each after its moment, also when
    the loop was too busy to write several of them on time."""
    with ThreadedLoop() as background:
        server = LocalServer(settings=SimSettings(time_scale=0.05))
        background.run(server.start())
        client = make_client(server.base_url, None, "aiohttp")
        try:
            spec = RequestSpec(messages=[{"role": "user", "content": "Hi"}], max_tokens=2)
            start = time.perf_counter_ns() + 500_000_000  # time to build all of them first
            slots = list(range(8))
            random.Random(4).shuffle(slots)
            results = [
                RequestResult(model=MODEL, t_intended=start + slot * 3_000_000) for slot in slots
            ]

            ready: dict[str, int] = {}

            async def held(result: RequestResult) -> None:
                with held_until_due(lambda at: ready.setdefault(result.request_id, at)):
                    await stream_chat(client, result, spec)

            # the loop is busy (a long callback) from 1.5 ms before the first due moment until
            # after the seventh: those leave late, but still in due order (the first one's wait
            # was handed to the alarm before; the next ones' timers fire when the loop is free)
            busy_at = (start - time.perf_counter_ns()) / 1e9 - 0.0015
            asyncio.get_running_loop().call_later(busy_at, time.sleep, 0.02)
            await asyncio.gather(*(held(r) for r in results))
        finally:
            await client.close()
            background.run(server.stop())
    assert all(r.ok for r in results), [r.error_message for r in results]
    # each was ready to be written before it was due (else it leaves when ready, not held)
    assert all(ready[r.request_id] < (r.t_intended or 0) for r in results)
    by_due = sorted(results, key=lambda r: r.t_intended or 0)
    by_send = sorted(results, key=lambda r: r.t_send or 0)
    assert [r.t_intended for r in by_send] == [r.t_intended for r in by_due]
    for r in results:
        record = server.emit_log.get(r.response_id or "")
        assert record is not None
        assert (r.t_intended or 0) <= (r.t_send or 0) <= record.t_received_ns
