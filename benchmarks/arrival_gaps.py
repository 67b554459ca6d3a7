"""What a server's arrival log says about a client's schedule, when the schedule itself is unknown.

`serve-local` stamps each request's arrival (`GET /v1/_emit_log/_arrivals/{model}`). From those
stamps alone, for a client asked for R requests/s (benchmarks/arrival_peers.py):

- the achieved rate, (n - 1) / (last - first), and its error against R;
- the gaps' coefficient of variation (stdev / mean): 0 for a constant schedule kept exactly, 1
  for a Poisson one;
- constant schedules only: how far each gap is from 1/R, and each arrival's lateness against an
  ideal schedule at exactly R (`first + i/R`), moved so that no arrival is early. A client that
  drifts behind R shows it there, as a lateness that grows.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from workbench.core.foundation.metrics import percentile


@dataclass(frozen=True)
class GapStats:
    requests: int
    achieved_rate: float | None  # requests/s between the first and the last arrival
    rate_error_pct: float | None  # achieved / asked - 1, in %
    gap_cv: float | None  # stdev / mean of the gaps
    gap_error_p50_ms: float | None  # constant only: |gap - 1/R|
    gap_error_p99_ms: float | None
    lateness_p50_ms: float | None  # constant only: against first + i/R, none early
    lateness_p99_ms: float | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def in_window(arrivals_ns: Sequence[int], start_ns: int, end_ns: int) -> list[int]:
    """The arrivals from start to end (one client's run on a server others used before), sorted."""
    return sorted(t for t in arrivals_ns if start_ns <= t <= end_ns)


def gap_stats(arrivals_ns: Sequence[int], rate: float, process: str) -> GapStats:
    """Figures of sorted arrival stamps (ns) against the asked `rate` and `process` (constant or
    poisson); None where there are too few arrivals to tell."""
    if rate <= 0:
        raise ValueError(f"rate must be positive, got {rate}")
    if process not in ("constant", "poisson"):
        raise ValueError(f"process must be constant or poisson, got {process!r}")
    n = len(arrivals_ns)
    gaps = [(b - a) / 1e6 for a, b in itertools.pairwise(arrivals_ns)]
    if not gaps or sum(gaps) <= 0:
        return GapStats(n, None, None, None, None, None, None, None)
    achieved = len(gaps) / (sum(gaps) / 1000)
    mean = statistics.fmean(gaps)
    cv = statistics.pstdev(gaps) / mean if len(gaps) > 1 else None
    gap_error: list[float] = []
    lateness: list[float] = []
    if process == "constant":
        period_ms = 1000 / rate
        gap_error = [abs(g - period_ms) for g in gaps]
        offsets = [(t - arrivals_ns[0]) / 1e6 - i * period_ms for i, t in enumerate(arrivals_ns)]
        earliest = min(offsets)
        lateness = [o - earliest for o in offsets]
    return GapStats(
        requests=n,
        achieved_rate=achieved,
        rate_error_pct=(achieved / rate - 1) * 100,
        gap_cv=cv,
        gap_error_p50_ms=percentile(gap_error, 50),
        gap_error_p99_ms=percentile(gap_error, 99),
        lateness_p50_ms=percentile(lateness, 50),
        lateness_p99_ms=percentile(lateness, 99),
    )
