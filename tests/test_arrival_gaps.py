"""benchmarks/arrival_gaps.py: what a server's arrival stamps say about a client's schedule."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from arrival_gaps import gap_stats, in_window

MS = 1_000_000  # ns


def test_a_constant_schedule_kept_exactly_has_no_error() -> None:
    arrivals = [5 * MS + i * 20 * MS for i in range(51)]  # 50 req/s for 1 s
    stats = gap_stats(arrivals, 50, "constant")
    assert stats.requests == 51
    assert stats.achieved_rate == pytest.approx(50)
    assert stats.rate_error_pct == pytest.approx(0, abs=1e-9)
    assert stats.gap_cv == pytest.approx(0, abs=1e-9)
    assert stats.gap_error_p99_ms == pytest.approx(0, abs=1e-9)
    assert stats.lateness_p99_ms == pytest.approx(0, abs=1e-9)


def test_late_arrivals_show_in_lateness_and_in_their_two_gaps() -> None:
    arrivals = [i * 10 * MS for i in range(101)]  # 100 req/s
    for i in (20, 50, 80):  # three requests 4 ms late, their neighbours on time
        arrivals[i] += 4 * MS
    stats = gap_stats(arrivals, 100, "constant")
    assert stats.lateness_p50_ms == pytest.approx(0)
    assert stats.lateness_p99_ms == pytest.approx(4)
    assert stats.gap_error_p50_ms == pytest.approx(0)
    assert stats.gap_error_p99_ms == pytest.approx(4)
    assert stats.rate_error_pct == pytest.approx(0)


def test_a_client_that_drifts_behind_is_ever_later() -> None:
    # it waits 1/R after each send instead of keeping the schedule: 0.5 ms lost per request
    arrivals = [round(i * 20.5 * MS) for i in range(201)]
    stats = gap_stats(arrivals, 50, "constant")
    assert stats.rate_error_pct == pytest.approx(20 / 20.5 * 100 - 100)
    assert stats.gap_error_p99_ms == pytest.approx(0.5)
    assert stats.lateness_p50_ms == pytest.approx(50, rel=0.01)  # half of 200 x 0.5 ms
    assert stats.lateness_p99_ms == pytest.approx(99, rel=0.01)


def test_poisson_gaps_have_cv_near_one_and_no_constant_figures() -> None:
    rng = random.Random(29)
    t, arrivals = 0.0, []
    for _ in range(5000):
        t += rng.expovariate(200)
        arrivals.append(round(t * 1e9))
    stats = gap_stats(arrivals, 200, "poisson")
    assert stats.gap_cv == pytest.approx(1, abs=0.05)
    assert stats.rate_error_pct == pytest.approx(0, abs=4)
    assert stats.gap_error_p50_ms is None and stats.lateness_p99_ms is None


def test_too_few_arrivals_give_none_and_bad_input_is_refused() -> None:
    assert gap_stats([7 * MS], 50, "constant").achieved_rate is None
    assert gap_stats([], 50, "poisson").requests == 0
    with pytest.raises(ValueError, match="rate must be positive"):
        gap_stats([0, MS], 0, "constant")
    with pytest.raises(ValueError, match="constant or poisson"):
        gap_stats([0, MS], 50, "gamma")


def test_in_window_keeps_one_runs_arrivals_in_order() -> None:
    assert in_window([9, 3, 5, 1, 7], 3, 7) == [3, 5, 7]
