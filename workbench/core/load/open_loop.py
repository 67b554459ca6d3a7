"""One open-loop cell: each request sent when its schedule says, whatever came back before.

The schedule (core/load/arrivals.py) is fixed before the cell starts. A request is due at the cell's
start plus its offset, and that moment is its `t_intended`: a request sent late (the client was
busy, or every `--max-concurrency` slot was taken) still counts its TTFT and e2e "from
scheduled" from then, and the lateness shows as `dispatch_ms` (docs/metrics.md).

Each request is built a lead before its due moment (send_lead.py: measured on the cell's
earlier requests): its prompt, then in its own task the SDK's and the transport's request,
while it is not yet due; the transport then holds its bytes until the due moment
(`held_until_due`, core/transport/send_stamp.py). Builds are placed between the held requests'
due moments, so that none falls due while the loop is busy building.
`dispatch_ms` is then only the client's real lateness: a build that outlasted the lead, a busy
loop at the due moment, or a `--max-concurrency` slot still taken.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.prompts import BuiltPrompt
from workbench.core.load.send_lead import SendLead, held_until_due
from workbench.core.system.steady_interpreter import steady_interpreter
from workbench.core.system.wake import sleep_until_ns

_CHECK_S = 0.25  # a long wait between arrivals still notices a Stop this often


async def wait_until(due_ns: int, halted: Callable[[], bool]) -> None:
    """Until perf_counter_ns() reaches `due_ns` (core/system/wake.py: on time, where asyncio's own
    timers are up to ~2 ms late), or `halted()` turns true."""
    while not halted():
        left = (due_ns - time.perf_counter_ns()) / 1e9
        if left <= 0:
            return
        if left > _CHECK_S:
            await asyncio.sleep(_CHECK_S)
        else:
            await sleep_until_ns(due_ns)
            return


# what the runner hands a cell's schedule: is the cell halted (Stop, a failed run)? the
# prompt of request `index`; send request (index, concurrency, due_ns, offset_s, prompt)
Halted = Callable[[], bool]
BuildPrompt = Callable[[int], BuiltPrompt]
Send = Callable[[int, int, int, float, BuiltPrompt | None], Awaitable[object]]


async def run_schedule(spec: ArrivalSpec, halted: Halted, build: BuildPrompt, send: Send) -> None:
    """This worker's share of the cell's schedule, each request in its own task, built the lead
    ahead of its due moment and written at it; the interpreter held steady meanwhile (no long
    collector pause, a short GIL switch interval: core/system/steady_interpreter.py)."""
    with steady_interpreter():
        await _run_schedule(spec, halted, build, send)


async def _run_schedule(spec: ArrivalSpec, halted: Halted, build: BuildPrompt, send: Send) -> None:
    cap = spec.share_cap()
    slots = asyncio.Semaphore(cap) if cap is not None else None
    concurrency = spec.max_concurrency or 0  # a row's `concurrency`: the cap, 0 for none
    lead = SendLead()
    held_dues: deque[int] = deque()  # the due moments of requests built and not yet due

    async def held(index: int, offset_s: float, due_ns: int, ahead: _Ahead) -> None:
        started = time.perf_counter_ns()  # after any wait for a slot: that is no build
        measured = False

        def ready(at_ns: int) -> None:  # a retry is ready again: only the first build counts
            nonlocal measured
            if not measured:
                measured = True
                lead.built(ahead.took_ns + at_ns - started)

        with held_until_due(ready):
            await send(index, concurrency, due_ns, offset_s, ahead.prompt)

    async def due(index: int, offset_s: float, due_ns: int, ahead: _Ahead) -> None:
        if slots is None:
            await held(index, offset_s, due_ns, ahead)
            return
        async with slots:  # waiting for a slot is the client's queue: it counts from due_ns
            if not halted():
                await held(index, offset_s, due_ns, ahead)

    # the first request is built ahead too: the cell starts one lead from now
    start_ns = time.perf_counter_ns() + lead.ns
    async with asyncio.TaskGroup() as group:
        for index, offset_s in spec.own():
            due_ns = start_ns + round(offset_s * 1e9)
            await wait_until(due_ns - lead.ns, halted)
            await _between_dues(held_dues, lead.long_build_ns, due_ns, halted)
            if halted():
                return
            ahead = _prompt_ahead(build, index)
            group.create_task(due(index, offset_s, due_ns, ahead))
            held_dues.append(due_ns)


def peak_in_flight(spec: ArrivalSpec, lasting_s: float) -> int:
    """The most of this share's requests in flight at once if each lasts `lasting_s` (from its
    build, a lead before it is due, to its end), within its cap: the connections it will use.
    Opened before the schedule (Runner), no connection's TCP setup takes the loop during it."""
    offsets = [offset for _, offset in spec.own()]
    peak = oldest = 0
    for newest, offset in enumerate(offsets):
        while offsets[oldest] <= offset - lasting_s:
            oldest += 1
        peak = max(peak, newest - oldest + 1)
    cap = spec.share_cap()
    return peak if cap is None else min(peak, cap)


async def _between_dues(held_dues: deque[int], build_ns: int, due_ns: int, halted: Halted) -> None:
    """Start the next build where it ends before the next held request falls due. A build is
    one stretch of CPU on the loop, and a held request due inside it would leave that much late;
    after that due moment the build comes next (its wake is queued behind the held one's). When
    waiting would make the request itself late, it is built at once."""
    while held_dues:
        now = time.perf_counter_ns()
        while held_dues and held_dues[0] <= now:
            held_dues.popleft()
        if not held_dues or held_dues[0] > now + build_ns or held_dues[0] + build_ns > due_ns:
            return
        await wait_until(held_dues[0], halted)
        if halted():
            return


class _Ahead:
    """A request's prompt built ahead (None: the request builds it and its row says what
    failed), and how long building it took (part of the request's build, for the lead)."""

    __slots__ = ("prompt", "took_ns")

    def __init__(self, prompt: BuiltPrompt | None, took_ns: int) -> None:
        self.prompt = prompt
        self.took_ns = took_ns


def _prompt_ahead(build: BuildPrompt, index: int) -> _Ahead:
    """The request's prompt, built while it is not yet due (not in its dispatch_ms)."""
    began = time.perf_counter_ns()
    try:
        prompt: BuiltPrompt | None = build(index)
    except Exception:
        prompt = None
    return _Ahead(prompt, time.perf_counter_ns() - began)
