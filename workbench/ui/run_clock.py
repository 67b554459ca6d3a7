"""Elapsed time, progress and ETA of a run that keep moving while requests wait in prefill.

The runner reports progress when a request finishes, so a 30 s prefill froze both in between,
and its ETA (elapsed / done × remaining) said "0 s" once a quick failure had finished first.
Here each request in flight has its own estimate: a streaming one its tokens still to come at
its own decode rate, a waiting one a typical request's duration (the median of the successful
ones so far) less its age. Requests not started yet cost a typical duration each, shared by
the requests that run side by side. Where nothing is known yet, the estimate is None, not 0.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.ui.panes_model import PaneModel

MIN_SHARE_LEFT = 0.1  # a request past the typical duration still has a little to go


@dataclass(frozen=True)
class Flight:
    """A request in flight: seconds since it was sent, and its own estimate of what is left."""

    age_s: float
    left_s: float | None = None  # known for a streaming request (tokens to come / its rate)


class RunClock:
    def __init__(self) -> None:
        self.started: float | None = None
        self.total = 0
        self.done = 0
        self.durations: list[float] = []

    def start(self, now: float, total: int = 0) -> None:
        self.started, self.total, self.done = now, total, 0
        self.durations = []

    def finished(self, ok: bool, duration_s: float | None) -> None:
        """A measured request ended (its duration counts only when it succeeded)."""
        if ok and duration_s and duration_s > 0:
            self.durations.append(duration_s)

    def elapsed(self, now: float) -> float:
        return 0.0 if self.started is None else max(0.0, now - self.started)

    def _left(self, flight: Flight, typical: float | None) -> float | None:
        if flight.left_s is not None:
            return max(0.0, flight.left_s)
        if typical is None:
            return None
        return max(typical - flight.age_s, MIN_SHARE_LEFT * typical)

    def estimate(self, flights: list[Flight]) -> tuple[float | None, float | None]:
        """(share of the run done, seconds left); either is None while it cannot be known."""
        if not self.total:
            return None, None
        typical = statistics.median(self.durations) if self.durations else None
        lefts = [self._left(f, typical) for f in flights]
        if any(left is None for left in lefts):
            return None, None
        known = [left for left in lefts if left is not None]
        waiting = max(0, self.total - self.done - len(flights))
        if waiting and typical is None:
            return None, None
        queue = waiting * (typical or 0.0) / max(1, len(flights))
        eta = max(known, default=0.0) + queue
        shares = sum(f.age_s / (f.age_s + left) if f.age_s + left > 0 else 0.0
                     for f, left in zip(flights, known, strict=True))  # fmt: skip
        return min(1.0, (self.done + shares) / self.total), eta


def flights(panes: Sequence[PaneModel], max_tokens: int, now: float) -> list[Flight]:
    """The panes' requests in flight; a streaming one knows its own time left."""
    out = []
    for p in panes:
        if p.t_send_ns is None or p.result is not None or p.request_id is None:
            continue
        rate = p.decode_tps()
        left = (max_tokens - p.tokens) / rate if rate else None
        out.append(Flight(now - p.t_send_ns / 1e9, left))
    return out
