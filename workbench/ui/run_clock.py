"""Elapsed time, progress and ETA of a run that keep moving while requests wait in prefill.

The runner reports progress when a request finishes; a 30 s prefill would freeze both in
between. Here an in-flight request counts as the share of a typical request's duration (the
median of the successful ones so far) it has already spent, capped below one, so progress and
ETA move with the clock; before any request has succeeded the progress is unknown, not zero.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

IN_FLIGHT_CAP = 0.95  # an in-flight request never counts as done


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

    def fraction(self, now: float, in_flight_since: Iterable[float]) -> float | None:
        """Share of the run done, counting in-flight requests by their age; None when unknown."""
        if not self.total or not self.durations:
            return None
        typical = statistics.median(self.durations)
        partial = sum(min(IN_FLIGHT_CAP, max(0.0, now - t) / typical) for t in in_flight_since)
        return min(1.0, (self.done + partial) / self.total)

    def eta(self, now: float, in_flight_since: Iterable[float]) -> float | None:
        share = self.fraction(now, in_flight_since)
        if share is None or share <= 0:
            return None
        return self.elapsed(now) * (1 - share) / share
