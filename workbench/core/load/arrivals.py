"""Open-loop arrivals: when each request of a cell is due, computed up front and seeded.

A schedule is a list of offsets in seconds from the cell's start, drawn once from the spec
(rate, process, seed, ramp-up, stop conditions), so every model of a run, every worker's share
and every rerun with the same seed sees the same arrivals. Gaps are drawn in units of the
expected count (gamma with shape K and mean 1; K = 1 is Poisson, as vLLM's `--burstiness`;
constant: exactly 1) and mapped to time through the cumulative rate, which makes a linear
ramp-up exact for every process. Pure: no I/O, no clock.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from dataclasses import dataclass, replace
from typing import Literal

Process = Literal["constant", "poisson", "gamma"]
PROCESSES: tuple[str, ...] = ("constant", "poisson", "gamma")
MAX_RATE = 10_000.0  # requests/s per model: beyond it no single client keeps a schedule
MAX_SHAPE = 1_000.0  # gamma shape K: past it the gaps are as regular as `constant`
MAX_SCHEDULE = 100_000  # requests per cell, as --repeats
MAX_SCHEDULE_S = 86_400.0  # one day of arrivals


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


@dataclass(frozen=True)
class ArrivalSpec:
    """An open-loop schedule per (model, prompt length) cell, and this worker's share of it.

    `max_concurrency` caps the cell's requests in flight (vLLM's `--max-concurrency`): a request
    due while every slot is busy waits for one, and its latency still counts from when it was
    due. `share_index` of `share_count`: a worker's share is every `share_count`-th request,
    so the shares' union is the schedule."""

    rate: float  # requests per second once ramped up
    process: Process = "poisson"
    shape: float = 1.0  # gamma's K; 1 for poisson (unused by constant)
    seed: int = 0
    duration_s: float | None = None  # requests due before this many seconds
    max_requests: int | None = None  # at most this many requests
    ramp_up_s: float = 0.0  # the rate grows linearly from 0 to `rate` over these seconds
    max_concurrency: int | None = None  # the cell's cap on requests in flight; None: none
    share_index: int = 0
    share_count: int = 1
    # a trace's own schedule (core/datasets/), seconds from the cell's start, in order: it
    # replaces the drawn one, and the rate and the process are then unused
    offsets: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise ValueError(problem)

    def _problem(self) -> str | None:
        if self.offsets is not None:
            return self._trace_problem()
        if not (_finite(self.rate) and 0 < self.rate <= MAX_RATE):
            return f"the rate must be more than 0 and at most {MAX_RATE:g} requests/s"
        if self.process not in PROCESSES:
            return f"arrivals must be one of {', '.join(PROCESSES)}, got {self.process!r}"
        if not (_finite(self.shape) and 0 < self.shape <= MAX_SHAPE):
            return f"the gamma shape must be more than 0 and at most {MAX_SHAPE:g}"
        if self.duration_s is None and self.max_requests is None:
            return "an open-loop run needs a stop: --duration S or --max-requests N (or both)"
        if self.duration_s is not None and not (
            _finite(self.duration_s) and 0 < self.duration_s <= MAX_SCHEDULE_S
        ):
            return f"the duration must be more than 0 and at most {MAX_SCHEDULE_S:g} s"
        if self.max_requests is not None and not 1 <= self.max_requests <= MAX_SCHEDULE:
            return f"max requests must be 1..{MAX_SCHEDULE:,}"
        if not (_finite(self.ramp_up_s) and 0 <= self.ramp_up_s <= MAX_SCHEDULE_S):
            return f"the ramp-up must be 0..{MAX_SCHEDULE_S:g} s"
        if self.max_concurrency is not None and self.max_concurrency < 1:
            return "max concurrency must be at least 1"
        if not 0 <= self.share_index < self.share_count:
            return f"share {self.share_index} of {self.share_count} does not exist"
        if self.max_requests is None and self._count_bound() > MAX_SCHEDULE:
            return (
                f"{self.rate:g} requests/s for {self.duration_s:g} s is over "
                f"{MAX_SCHEDULE:,} requests per cell; lower --rate or --duration, or add "
                "--max-requests"
            )
        return None

    def _trace_problem(self) -> str | None:
        offsets = self.offsets or ()
        if not 1 <= len(offsets) <= MAX_SCHEDULE:
            return f"a trace must hold 1..{MAX_SCHEDULE:,} requests, got {len(offsets):,}"
        if not all(_finite(t) and 0 <= t <= MAX_SCHEDULE_S for t in offsets):
            return (
                f"a trace's times must be 0..{MAX_SCHEDULE_S:g} s from its start; replay it "
                "faster (--trace-speed X) or keep its start (--duration S)"
            )
        if any(b < a for a, b in itertools.pairwise(offsets)):
            return "a trace's times must be in order"
        if self.max_concurrency is not None and self.max_concurrency < 1:
            return "max concurrency must be at least 1"
        if not 0 <= self.share_index < self.share_count:
            return f"share {self.share_index} of {self.share_count} does not exist"
        return None

    def _count_bound(self) -> float:
        """About how many arrivals the duration holds (the ramp's half-rate counted)."""
        assert self.duration_s is not None
        ramp = min(self.ramp_up_s, self.duration_s)
        return self.rate * (self.duration_s - ramp / 2)

    def schedule(self) -> tuple[float, ...]:
        """Every arrival of the cell, seconds from its start, in order (all shares)."""
        return _schedule(replace(self, share_index=0, share_count=1, max_concurrency=None))

    def own(self) -> tuple[tuple[int, float], ...]:
        """This share's arrivals: (index in the whole schedule, offset in seconds)."""
        return _own(self)

    def share(self, index: int, count: int) -> ArrivalSpec:
        """Worker `index` of `count`: every count-th arrival, and its part of the cap."""
        return replace(self, share_index=index, share_count=count)

    def share_cap(self) -> int | None:
        """This share's cap on requests in flight (the cap split into near-equal parts)."""
        if self.max_concurrency is None:
            return None
        whole, rest = divmod(self.max_concurrency, self.share_count)
        return max(1, whole + (1 if self.share_index < rest else 0))

    @property
    def expected_requests(self) -> int:
        """Requests this share sends per cell (the schedule is exact, not an estimate)."""
        return len(self.own())

    @property
    def expected_duration_s(self) -> float:
        """Seconds from the cell's start to its last arrival (the sending part of a cell)."""
        offsets = self.schedule()
        return offsets[-1] if offsets else 0.0


def _gaps(spec: ArrivalSpec, rng: random.Random) -> float:
    """One gap in units of expected arrivals (mean 1)."""
    if spec.process == "constant":
        return 1.0
    if spec.process == "poisson":
        return rng.expovariate(1.0)
    return rng.gammavariate(spec.shape, 1.0 / spec.shape)


def _time_at(spec: ArrivalSpec, expected: float) -> float:
    """The moment the cumulative rate reaches `expected` arrivals: rate·t²/(2·ramp) during a
    linear ramp from 0, then rate per second."""
    ramp, rate = spec.ramp_up_s, spec.rate
    ramp_count = rate * ramp / 2
    if ramp > 0 and expected <= ramp_count:
        return math.sqrt(2 * ramp * expected / rate)
    return ramp + (expected - ramp_count) / rate


@functools.lru_cache(maxsize=32)
def _schedule(spec: ArrivalSpec) -> tuple[float, ...]:
    limit = spec.max_requests or MAX_SCHEDULE
    if spec.offsets is not None:  # a trace: its own times, within the stop conditions
        end = spec.duration_s if spec.duration_s is not None else math.inf
        return tuple(t for t in spec.offsets[:limit] if t < end)
    rng = random.Random(spec.seed)
    offsets: list[float] = []
    expected = 0.0  # the first request is due at the cell's start
    while len(offsets) < limit:
        moment = _time_at(spec, expected)
        if spec.duration_s is not None and moment >= spec.duration_s:
            break
        offsets.append(moment)
        expected += _gaps(spec, rng)
    return tuple(offsets)


@functools.lru_cache(maxsize=32)
def _own(spec: ArrivalSpec) -> tuple[tuple[int, float], ...]:
    step, first = spec.share_count, spec.share_index
    return tuple((i, t) for i, t in enumerate(spec.schedule()) if i % step == first)


def parse_arrivals(text: str) -> tuple[Process, float]:
    """`constant`, `poisson` or `gamma:K` -> (process, shape). ValueError naming the fix."""
    word, _, shape_text = text.strip().lower().partition(":")
    if word in ("constant", "poisson") and not shape_text:
        return ("constant" if word == "constant" else "poisson"), 1.0
    if word == "gamma":
        try:
            shape = float(shape_text)
        except ValueError:
            shape = math.nan
        if not (_finite(shape) and 0 < shape <= MAX_SHAPE):
            raise ValueError(
                f"'{text}': gamma needs its shape K (0 < K <= {MAX_SHAPE:g}), e.g. gamma:0.5 "
                "(burstier than Poisson) or gamma:4 (more regular); gamma:1 is Poisson"
            )
        return "gamma", shape
    raise ValueError(f"'{text}' is not an arrival process; use constant, poisson or gamma:K")
