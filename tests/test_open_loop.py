"""`workbench bench --rate R`: open-loop arrivals on a seeded schedule (issue 29, item 1).

The schedule's own properties are checked on the pure module; the rest through real
`workbench bench` subprocesses against a real `workbench serve-local` subprocess.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import statistics
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.core.foundation.results import Target
from workbench.core.history.csv_export import COLUMNS
from workbench.core.load.arrivals import ArrivalSpec, parse_arrivals
from workbench.core.load.open_loop import peak_in_flight
from workbench.core.run.plan import Choices, build_plan
from workbench.core.scale.shards import planned, split

WORKBENCH = [sys.executable, "-m", "workbench"]
MODEL = "sim-70b-gqa"
STDIN = ("--exit-with-stdin",)  # the server ends with the test


def ks_exponential(samples: Sequence[float], rate: float) -> tuple[float, float]:
    """Kolmogorov-Smirnov statistic of `samples` against Exp(rate), and its asymptotic p-value
    (Kolmogorov's series, with Stephens' small-sample correction of the statistic)."""
    xs = sorted(samples)
    n = len(xs)
    d = 0.0
    for i, x in enumerate(xs):
        cdf = 1 - math.exp(-rate * x)
        d = max(d, (i + 1) / n - cdf, cdf - i / n)
    t = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def gaps(times: Sequence[float]) -> list[float]:
    ordered = sorted(times)
    return [b - a for a, b in itertools.pairwise(ordered)]


# ---- the schedule itself ----


def test_the_ks_helper_tells_exponential_from_uniform_gaps() -> None:
    spec = ArrivalSpec(rate=10, max_requests=2000, seed=3)
    assert ks_exponential(gaps(spec.schedule()), 10)[1] > 0.01
    constant = ArrivalSpec(rate=10, process="constant", max_requests=2000)
    assert ks_exponential(gaps(constant.schedule()), 10)[1] < 1e-6


def test_poisson_gamma_and_constant_gaps_have_the_asked_mean_and_spread() -> None:
    for process, shape, cv2 in (("poisson", 1.0, 1.0), ("gamma", 0.25, 4.0), ("gamma", 4, 0.25)):
        spec = ArrivalSpec(rate=50, process=process, shape=shape, max_requests=20_000, seed=1)
        spread = gaps(spec.schedule())
        mean = statistics.fmean(spread)
        assert mean == pytest.approx(1 / 50, rel=0.05), process
        assert statistics.pvariance(spread) / mean**2 == pytest.approx(cv2, rel=0.1), shape
    constant = ArrivalSpec(rate=4, process="constant", duration_s=2.0).schedule()
    assert constant == pytest.approx((0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75))


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another() -> None:
    one = ArrivalSpec(rate=20, duration_s=3, seed=7).schedule()
    assert one == ArrivalSpec(rate=20, duration_s=3, seed=7).schedule()
    assert one != ArrivalSpec(rate=20, duration_s=3, seed=8).schedule()


def test_ramp_up_raises_the_rate_linearly_from_zero() -> None:
    spec = ArrivalSpec(rate=100, process="constant", duration_s=4.0, ramp_up_s=2.0)
    times = spec.schedule()
    # half the full rate's arrivals during the ramp (100 of 200), then 100 per second
    assert sum(1 for t in times if t < 2.0) == 100
    assert sum(1 for t in times if 2.0 <= t < 4.0) == 200
    # the first second of the ramp holds a quarter of its arrivals: rate·t²/(2·ramp)
    assert sum(1 for t in times if t < 1.0) == 25


def test_the_stop_conditions_hold_and_a_run_without_one_is_refused() -> None:
    assert len(ArrivalSpec(rate=1000, duration_s=10, max_requests=7).schedule()) == 7
    assert max(ArrivalSpec(rate=20, duration_s=1.5, seed=2).schedule()) < 1.5
    with pytest.raises(ValueError, match="--duration S or --max-requests N"):
        ArrivalSpec(rate=5)
    with pytest.raises(ValueError, match="lower --rate or --duration"):
        ArrivalSpec(rate=10_000, duration_s=3600)
    with pytest.raises(ValueError, match=r"gamma:0\.5"):
        parse_arrivals("gamma")
    with pytest.raises(ValueError, match="constant, poisson or gamma:K"):
        parse_arrivals("bursty")


def test_the_shares_of_two_and_three_workers_are_the_single_process_schedule() -> None:
    target = Target("local", "http://127.0.0.1:1/v1", MODEL)
    spec = ArrivalSpec(rate=40, duration_s=5, seed=11, max_concurrency=5)
    plan = build_plan([target], Choices(prompt_lengths=(1024,), arrivals=spec))
    whole = list(enumerate(spec.schedule()))
    for workers in (2, 3):
        shards = split(plan, workers)
        assert len(shards) == workers
        assert all(s.plan.arrivals is not None for s in shards)
        union = sorted(p for s in shards for p in s.plan.arrivals.own())  # type: ignore[union-attr]
        assert union == whole
        assert sum(s.plan.total_requests for s in shards) == plan.total_requests == len(whole)
        assert sum(s.plan.arrivals.share_cap() or 0 for s in shards) == 5  # type: ignore[union-attr]
        owed = sorted(key[4] for s in shards for key in planned(s) if key[3] == "measured")
        assert owed == [i for i, _ in whole]


def test_the_connections_opened_ahead_are_the_peak_of_requests_in_flight() -> None:
    """Constant 100 req/s: each request lasting 35 ms overlaps the next three (4 at once);
    lasting 5 ms, none (1); the cap bounds it; a worker's share counts its own requests."""
    spec = ArrivalSpec(rate=100, process="constant", max_requests=50)
    assert peak_in_flight(spec, 0.035) == 4
    assert peak_in_flight(spec, 0.005) == 1
    assert peak_in_flight(replace(spec, max_concurrency=2), 0.035) == 2
    assert peak_in_flight(spec.share(0, 2), 0.035) == 2  # its arrivals are 20 ms apart
    bursty = ArrivalSpec(rate=100, process="gamma", shape=0.2, max_requests=400, seed=5)
    assert peak_in_flight(bursty, 0.035) > 4  # bursts: more at once than the mean rate gives


# ---- real runs: workbench bench against workbench serve-local ----


def serve_local(time_scale: float) -> Iterator[str]:
    """A real `workbench serve-local` process; yields its base URL."""
    proc = subprocess.Popen(
        [*WORKBENCH, "serve-local", "--port", "0", "--time-scale", str(time_scale), *STDIN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening at " in line, line
        yield line.split("listening at ", 1)[1].strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


@pytest.fixture
def fast_server() -> Iterator[str]:
    yield from serve_local(0.01)


@pytest.fixture
def slow_server() -> Iterator[str]:
    yield from serve_local(0.25)  # a 1K prompt and 8 tokens take about 70 ms


def bench(
    url: str, csv_path: Path, env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    args = ["bench", "--base-url", url, "--model", MODEL, "--prompt-tokens", "1K"]
    args += ["--max-tokens", "8", "--csv", str(csv_path), "-q", *extra]
    return subprocess.run([*WORKBENCH, *args], env=env, capture_output=True, text=True, timeout=180)


def measured_rows(path: Path) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))
    rows = [r for r in reader if r["phase"] == "measured"]
    assert tuple(reader.fieldnames or ()) == COLUMNS
    return sorted(rows, key=lambda r: int(r["repeat"]))


def test_a_poisson_run_sends_on_its_schedule_and_shows_its_lateness(
    tmp_path: Path, env: dict[str, str], fast_server: str
) -> None:
    out = tmp_path / "rows.csv"
    done = bench(fast_server, out, env, "--rate", "40", "--arrivals", "poisson", "--duration", "5")
    done.check_returncode()
    rows = measured_rows(out)
    schedule = ArrivalSpec(rate=40, duration_s=5).schedule()  # the default seed, 0
    assert [float(r["scheduled_s"]) for r in rows] == pytest.approx(schedule, abs=1e-6)
    assert all(r["error_class"] == "" for r in rows)
    # the schedule, and the moments the requests really left, are Poisson at 40/s
    assert ks_exponential(gaps(schedule), 40)[1] > 0.01
    sent = [float(r["scheduled_s"]) + float(r["dispatch_ms"]) / 1000 for r in rows]
    assert ks_exponential(gaps(sent), 40)[1] > 0.01
    lateness = sorted(float(r["dispatch_ms"]) for r in rows)
    # below the 25 ms mean gap even on a loaded 2-core machine (measured lateness:
    # benchmarks/results/arrival_fidelity.md)
    assert statistics.median(lateness) < 25, lateness
    for r in rows:  # from scheduled = lateness + TTFT from the send
        late_ttft = float(r["dispatch_ms"]) + float(r["ttft_ms"])
        assert float(r["ttft_from_scheduled_ms"]) == pytest.approx(late_ttft, abs=0.01)


def test_the_table_of_a_run_at_a_rate_names_its_rate_and_a_closed_loop_one_has_none(
    tmp_path: Path, env: dict[str, str], fast_server: str
) -> None:
    """The printed table has a row per offered rate (as per concurrency): it says which."""
    flags = ["--rate", "12.5", "--arrivals", "constant", "--max-requests", "8"]
    done = bench(fast_server, tmp_path / "rate.csv", env, *flags)
    done.check_returncode()
    header, _rule, row = (re.split(r"\s{2,}", line) for line in done.stdout.splitlines()[:3])
    assert header[:5] == ["model", "attn", "prompt", "req/s", "n"], done.stdout
    assert row[:5] == [MODEL, row[1], "1K", "12.5", "8"], done.stdout
    closed = bench(fast_server, tmp_path / "closed.csv", env, "--repeats", "2")
    closed.check_returncode()
    assert "req/s" not in closed.stdout.splitlines()[0], closed.stdout


def test_a_cap_of_one_above_capacity_shows_queueing_from_scheduled_time_only(
    tmp_path: Path, env: dict[str, str], slow_server: str
) -> None:
    out = tmp_path / "rows.csv"
    flags = ["--rate", "40", "--arrivals", "constant", "--max-requests", "16"]
    bench(slow_server, out, env, *flags, "--max-concurrency", "1").check_returncode()
    rows = measured_rows(out)
    assert len(rows) == 16 and all(r["concurrency"] == "1" for r in rows)
    scheduled = [float(r["ttft_from_scheduled_ms"]) for r in rows]
    sent = [float(r["ttft_ms"]) for r in rows]
    # each request waits for the one before: the wait grows by ~70 - 25 ms per request
    assert statistics.median(scheduled[-4:]) > statistics.median(scheduled[:4]) + 300
    assert all(b > a for a, b in itertools.pairwise(scheduled[2:]))
    # the server saw one request at a time: TTFT from the send does not grow
    assert statistics.median(sent[-4:]) < 1.5 * statistics.median(sent[:4])
    assert float(rows[-1]["dispatch_ms"]) > 300


def test_two_workers_send_the_single_process_schedule(
    tmp_path: Path, env: dict[str, str], fast_server: str
) -> None:
    out = tmp_path / "rows.csv"
    flags = ["--rate", "30", "--duration", "1.5", "--seed", "5", "--workers", "2"]
    done = bench(fast_server, out, env, *flags)
    done.check_returncode()
    assert "2 worker processes" in done.stderr
    rows = measured_rows(out)
    got = [(int(r["repeat"]), float(r["scheduled_s"])) for r in rows]
    schedule = ArrivalSpec(rate=30, duration_s=1.5, seed=5).schedule()
    assert [i for i, _ in got] == list(range(len(schedule)))
    assert [t for _, t in got] == pytest.approx(schedule, abs=1e-6)


def test_rate_only_flags_without_a_rate_and_a_rate_without_a_stop_are_refused(
    tmp_path: Path, env: dict[str, str]
) -> None:
    out = tmp_path / "rows.csv"
    done = bench("http://127.0.0.1:9/v1", out, env, "--duration", "5")
    assert done.returncode == 2 and "--duration shape an open-loop run: add --rate R" in done.stderr
    done = bench("http://127.0.0.1:9/v1", out, env, "--rate", "5")
    assert done.returncode == 2 and "--duration S or --max-requests N" in done.stderr
    done = bench(
        "http://127.0.0.1:9/v1",
        out,
        env,
        "--rate",
        "5",
        "--max-requests",
        "3",
        "--concurrency",
        "4",
    )
    assert done.returncode == 2 and "--max-concurrency N" in done.stderr
    done = bench("http://127.0.0.1:9/v1", out, env, "--rate", "5", "--arrivals", "gamma:-1")
    assert done.returncode == 2 and "gamma needs its shape K" in done.stderr
