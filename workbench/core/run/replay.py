"""Replay recorded requests as the runner's events, with their original timing.

For offline demos: the panes receive the same event types as a live run, at the same offsets
from the start of the recorded run (scaled by `speed`), text cut exactly as it arrived.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import AsyncIterator, Sequence
from itertools import count
from typing import cast

from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import RequestResult, Target
from workbench.core.planning.run_events import (
    RequestFinished,
    RequestStarted,
    RunEvent,
    RunFinished,
    TextDelta,
)
from workbench.core.system.wake import sleep_until_ns


def _target(result: RequestResult) -> Target:
    return Target(result.provider, result.base_url, result.model, result.attention, result.prices)


def _schedule(results: Sequence[RequestResult]) -> list[tuple[int, int, str, object]]:
    """(offset_ns, tiebreak, kind, payload) for every event of every recorded request."""
    timed = [r for r in results if r.t_send is not None and not r.warmup]
    if not timed:
        return []
    base = min(r.t_send for r in timed if r.t_send is not None)
    order = count()
    heap: list[tuple[int, int, str, object]] = []
    for r in timed:
        assert r.t_send is not None
        heapq.heappush(heap, (r.t_send - base, next(order), "start", r))
        offset = 0
        reasoning_offset = 0
        chars = r.event_chars or [0] * len(r.event_times)
        reasoning = r.event_reasoning_chars or [0] * len(r.event_times)
        for t, n, m in zip(r.event_times, chars, reasoning, strict=False):
            if m:
                piece = r.reasoning_text[reasoning_offset : reasoning_offset + m]
                reasoning_offset += m
                heapq.heappush(heap, (t - base, next(order), "reasoning", (r, piece)))
            if n or not m:
                piece = r.text[offset : offset + n]
                offset += n
                heapq.heappush(heap, (t - base, next(order), "text", (r, piece)))
        end = (
            r.t_done if r.t_done is not None else (r.event_times[-1] if r.event_times else r.t_send)
        )
        heapq.heappush(heap, (end - base, next(order), "finish", r))
    return [heapq.heappop(heap) for _ in range(len(heap))]


async def replay_events(
    results: Sequence[RequestResult], speed: float = 1.0, run_id: str = "replay"
) -> AsyncIterator[RunEvent]:
    """Yield start, text and finish events at the recorded offsets, then RunFinished."""
    if speed <= 0:
        raise ValueError("replay speed must be positive")
    start = time.perf_counter_ns()
    for offset, _, kind, payload in _schedule(results):
        due = start + int(offset / speed)
        if due > time.perf_counter_ns():
            await sleep_until_ns(due)
        now = time.perf_counter_ns()
        if kind == "start":
            assert isinstance(payload, RequestResult)
            yield RequestStarted(
                payload.request_id,
                _target(payload),
                payload.prompt_tokens_target or 0,
                payload.repeat,
                False,
                now,
            )
        elif kind in ("text", "reasoning"):
            result, piece = cast("tuple[RequestResult, str]", payload)
            yield TextDelta(result.request_id, piece, kind == "reasoning", now)
        else:
            assert isinstance(payload, RequestResult)
            yield RequestFinished(payload, derive(payload), _target(payload))
    yield RunFinished(run_id, "finished", tuple(r for r in results if not r.warmup))
