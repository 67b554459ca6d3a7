"""Capacity search: the highest load (requests/s, or requests in flight) at which an SLO holds.

A search starts with its floor: `FLOOR_REQUESTS` requests sent one at a time. When even those
show an objective missed (the Wilson rule below), no load can hold it and the search ends
there (status "floor"); otherwise, for a rule that follows the floor (no range given), the
sweep starts at the lone request's rate (1 / its mean e2e) and may go down to `MIN_RATE`.
Then a coarse geometric sweep from the middle of a range (x2 up while the SLO holds,
/2 down while it does not) until one load holds and the next one up does not, then a
bisection of that bracket (at its geometric middle) until its ends are within the tolerance.
Each step sends `requests` requests at one load. For every objective, the share of its
requests within the limit (a failed request misses) gets one-sided Wilson bounds at
`confidence`: the objective is shown held when the lower bound is at least its percentile
(ttft_p90 ≤ 2 s: at 90 % confidence, at least 90 % of requests are that fast), shown missed
when the upper bound is below it. A step that shows neither (some objective undecided, none
missed) is confirmed: the same load again, judged on both steps' requests together, at most
`CONFIRMATIONS` times per search; a step still undecided then holds when every share is at
least its percentile. So the bracket closes around the rate where the share crosses the
percentile, not below it by the bound's margin. The cost is bounded before anything is sent
(`worst_case`), and `budget` caps the requests per model. Pure: no I/O, no clock
(docs/metrics.md, "Capacity").
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Literal

from workbench.core.foundation.metrics import RequestMetrics, percentile
from workbench.core.foundation.results import RequestResult
from workbench.core.load.slo import Objective

By = Literal["rate", "concurrency"]
BYS: tuple[str, ...] = ("rate", "concurrency")
CONFIDENCE = 0.9  # one-sided, for every objective's Wilson bound
FACTOR = 2.0  # the coarse sweep's step
DEFAULT_RANGE: dict[str, tuple[float, float]] = {"rate": (0.5, 64.0), "concurrency": (1, 256)}
DEFAULT_REQUESTS = 50  # per step, raised to what the strictest percentile needs
DEFAULT_TOLERANCE = 0.10  # stop when the bracket's high end is within 10 % of its low end
MAX_STEP_REQUESTS = 10_000
CONFIRMATIONS = 2  # confirming steps per model's search, at most
FLOOR_REQUESTS = 5  # sent one at a time first: 2 of 5 missing show a p90 missed
MIN_RATE = 0.1  # a floor-led search's lowest rate: a 50-request step there takes 8.3 min
Status = Literal["found", "above", "below", "budget", "stopped", "floor"]


MAX_LOAD = 1e6


def parse_range(text: str) -> tuple[float, float]:
    """`LOW:HIGH` (or LOW..HIGH) -> the loads searched; ValueError naming the fix. The Rule
    checks LOW < HIGH."""
    low, sep, high = text.strip().replace("..", ":").partition(":")
    if not sep:
        raise ValueError(f"'{text}': write the range as LOW:HIGH, e.g. 0.5:64")
    ends = []
    for part in (low, high):
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"'{text}': '{part.strip()}' is not a number; e.g. 0.5:64") from None
        if not (math.isfinite(value) and 0 < value <= MAX_LOAD):
            raise ValueError(f"'{text}': each end must be above 0 and at most {MAX_LOAD:,.0f}")
        ends.append(value)
    return ends[0], ends[1]


def wilson(met: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """One-sided Wilson bounds (low, high) on a share `met` of `n` at `confidence`."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(confidence)
    p = met / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def step_requests(objectives: Sequence[Objective], asked: int = DEFAULT_REQUESTS) -> int:
    """Requests per step: `asked`, or more when the strictest percentile needs them for a step
    with half its allowed misses to hold (a p99 objective cannot be shown by 50 requests)."""
    strictest = max((o.quantile for o in objectives), default=90.0) / 100
    n = max(1, asked)
    while n < MAX_STEP_REQUESTS:
        misses = math.floor(n * (1 - strictest) / 2)
        if wilson(n - misses, n)[0] >= strictest:
            return n
        n += 1
    return n


@dataclass(frozen=True)
class Term:
    """One objective at one step: how many of the requests were within its limit."""

    name: str
    limit_ms: float
    within: int
    judged: int
    observed_ms: float | None  # the percentile of the step's values; None: not all known
    low: float  # Wilson lower bound of within/judged
    quantile: float
    high: float = 1.0  # Wilson upper bound of within/judged

    @property
    def shown(self) -> bool | None:
        """True when the share within is shown at least the percentile, False when shown
        below it, None when the requests cannot tell at the confidence."""
        share = self.quantile / 100
        if self.judged <= 0 or self.high < share:
            return False
        return True if self.low >= share else None

    @property
    def holds(self) -> bool:
        """Shown held, or undecided with a share of at least the percentile."""
        shown = self.shown
        return shown if shown is not None else self.within >= self.judged * self.quantile / 100


@dataclass(frozen=True)
class Step:
    """One load of the search and what its requests showed."""

    load: float
    requests: int
    ok: int
    terms: tuple[Term, ...]
    goodput: float | None  # requests/s that met every objective, over the step's whole span
    cost_usd: float | None  # mean per request; None when any price is unknown
    met: int = 0  # requests that met every objective
    stopped: int = 0  # requests cancelled when the step ended early (not in `requests`)
    ended: str | None = None  # the objective that ended the step early (core/load/step_watch.py)
    errors: tuple[tuple[str, int], ...] = ()  # failed requests by error class, most first

    @property
    def failed(self) -> int:
        return self.requests - self.ok

    @property
    def holds(self) -> bool:
        return bool(self.terms) and all(t.holds for t in self.terms) and self.ended is None

    @property
    def shown(self) -> bool:
        """Whether the verdict is shown at the confidence: the step ended early (its requests
        could no longer show anything but a miss), an objective shown missed, or every one
        shown held."""
        verdicts = [t.shown for t in self.terms]
        if self.ended is not None or any(v is False for v in verdicts):
            return True
        return all(v is True for v in verdicts)


def judge(
    load: float,
    rows: Iterable[tuple[RequestResult, RequestMetrics]],
    objectives: Sequence[Objective],
    span_s: float | None = None,
    ended: str | None = None,
    one_at_a_time: bool = False,
) -> Step:
    """The step at `load` from its measured rows; `ended`: the objective that ended it early,
    whose cancelled rows are counted apart (stopped: neither met nor missed, as in a summary).
    `one_at_a_time`: the floor's requests, where one cut short is no slower than the rest."""
    every = list(rows)
    taken = [(r, m) for r, m in every if not r.stopped]
    terms = []
    for o in objectives:
        values: list[float] = []
        within = 0
        for result, metrics in taken:
            value = o.value(metrics) if result.ok else None
            if value is None and result.ok and o.figure in ("tpot", "itl"):
                within += 1  # a one-token answer has no TPOT: not held to it (core/load/slo.py)
                continue
            if value is not None:
                values.append(value)
            within += 1 if value is not None and value <= o.limit_ms else 0
        low, high = wilson(within, len(taken))
        # a step ended early cut the requests still in flight, under load its slowest (they
        # queued behind the rest): the finished ones' percentile would read low, below the
        # limit for a step that missed
        cut = len(taken) < len(every) and not one_at_a_time
        whole = not cut and len(values) == len(taken)
        found = percentile(values, o.quantile) if whole else None
        terms.append(Term(o.name, o.limit_ms, within, len(taken), found, low, o.quantile, high))
    met = sum(1 for r, _m in taken if r.slo_met)
    costs = [m.cost_usd for _r, m in taken]
    cost = None
    if taken and all(c is not None for c in costs):
        cost = sum(c for c in costs if c is not None) / len(taken)
    goodput = met / span_s if span_s else None
    ok = sum(1 for r, _m in taken if r.ok)
    stopped = len(every) - len(taken)
    errors = Counter(r.error_class or "unknown" for r, _m in taken if not r.ok).most_common()
    return Step(
        load, len(taken), ok, tuple(terms), goodput, cost, met, stopped, ended, tuple(errors)
    )


@dataclass(frozen=True)
class Rule:
    """How a search runs and when it stops."""

    by: By = "rate"
    low: float = DEFAULT_RANGE["rate"][0]
    high: float = DEFAULT_RANGE["rate"][1]
    requests: int = DEFAULT_REQUESTS  # per step
    tolerance: float = DEFAULT_TOLERANCE
    budget: int | None = None  # at most this many requests per model
    follow: bool = False  # the sweep starts at the floor's rate (no range was given)
    begin: float | None = None  # the first step's load, once the floor has set it

    def __post_init__(self) -> None:
        if self.by not in BYS:
            raise ValueError(f"search by rate or concurrency, not {self.by!r}")
        if not (0 < self.low < self.high and math.isfinite(self.high)):
            raise ValueError(f"the range needs 0 < LOW < HIGH, got {self.low:g}..{self.high:g}")
        if self.by == "concurrency" and (self.low != int(self.low) or self.high != int(self.high)):
            raise ValueError("a concurrency range is whole requests in flight, e.g. 1..256")
        if not 0.01 <= self.tolerance <= 1:
            raise ValueError("the tolerance must be 1 % .. 100 %")
        if self.budget is not None and self.budget < self.requests + FLOOR_REQUESTS:
            raise ValueError(
                f"a budget of {self.budget} requests is less than the floor and one step "
                f"({FLOOR_REQUESTS} + {self.requests}); raise the budget or lower the "
                "requests per step"
            )
        if self.follow and self.by != "rate":
            raise ValueError("only a search by rate starts from the floor's rate")

    @property
    def start(self) -> float:
        return self._snap(self.begin or math.sqrt(self.low * self.high))

    def _snap(self, load: float) -> float:
        # rounded, then kept in the range: the ends stay reachable as given (8:1024's top,
        # rounded after, was 1020 for ever, and a search above it never ended)
        rounded = float(round(load)) if self.by == "concurrency" else float(f"{load:.3g}")
        return min(self.high, max(self.low, rounded))

    def narrow(self, low: float, high: float) -> bool:
        """Whether a bracket is as tight as the rule asks."""
        if self.by == "concurrency" and high - low <= 1:
            return True
        return high <= low * (1 + self.tolerance)

    def between(self, low: float, high: float) -> float:
        mid = self._snap(math.sqrt(low * high))
        if self.by == "concurrency" and not low < mid < high:
            mid = float(math.floor((low + high) / 2))
        return mid


@dataclass
class Search:
    """One model's search: ask `next_load()`, run a step there, give it to `take()`."""

    rule: Rule
    steps: list[Step] = field(default_factory=list)
    status: Status | None = None  # set once the search ends
    confirmations: int = 0
    confirmed: float | None = None  # the load of the last confirmed step
    floor: Step | None = None  # the requests sent one at a time first (`take_floor`)
    lone_e2e_s: float | None = None  # their mean e2e, the lone request's time

    @property
    def held(self) -> float | None:
        return max((s.load for s in self.steps if s.holds), default=None)

    @property
    def missed(self) -> float | None:
        held = self.held
        above = [s.load for s in self.steps if not s.holds and (held is None or s.load > held)]
        return min(above, default=None)

    @property
    def used(self) -> int:
        """Requests sent so far, the ones a step's early end cancelled included."""
        lone = self.floor.requests + self.floor.stopped if self.floor is not None else 0
        return lone + sum(s.requests + s.stopped for s in self.steps)

    def take_floor(self, step: Step, lone_e2e_s: float | None) -> None:
        """The floor's requests, sent one at a time: an objective they show missed (or a
        floor ended early) ends the search; else a rule that follows the floor starts its
        sweep at the lone request's rate."""
        self.floor, self.lone_e2e_s = step, lone_e2e_s
        if floor_misses(step):
            self.status = "floor"
        elif self.rule.follow and lone_e2e_s:
            self.rule = replace(self.rule, begin=1 / lone_e2e_s)

    def next_load(self) -> float | None:
        """The next step's load; None once the search has ended (`status` says how)."""
        if self.status is not None:
            return None
        load = self._next()
        if load is None:
            return None
        budget = self.rule.budget
        if budget is not None and self.used + self.rule.requests > budget:
            self.status = "budget"
            return None
        return load

    def _next(self) -> float | None:
        rule, held, missed = self.rule, self.held, self.missed
        if not self.steps:
            return rule.start
        last = self.steps[-1]
        if not last.shown and last.load != self.confirmed:
            if self.confirmations < CONFIRMATIONS:
                return last.load  # a confirming step
        if missed is None:  # everything tried held: up
            if held is not None and held >= rule.high:
                self.status = "above"
                return None
            return rule._snap((held or rule.low) * FACTOR)
        if held is None:  # everything tried missed: down
            if missed <= rule.low:
                self.status = "below"
                return None
            return rule._snap(missed / FACTOR)
        middle = rule.between(held, missed)
        if rule.narrow(held, missed) or not held < middle < missed:  # nothing left between
            self.status = "found"
            return None
        return middle

    def take(self, step: Step) -> None:
        """The step at `next_load()`; at the last step's load (a confirming step), judged on
        both steps' requests together, and it takes the last one's place."""
        if self.steps and self.steps[-1].load == step.load:
            self.steps[-1] = step
            self.confirmations += 1
            self.confirmed = step.load
        else:
            self.steps.append(step)

    def stop(self) -> None:
        """The run was stopped: the answer is the bracket so far."""
        self.status = self.status or "stopped"


def floor_misses(step: Step) -> bool:
    """Whether requests sent one at a time already miss: some objective shown missed."""
    return step.ended is not None or any(t.shown is False for t in step.terms)


def step_seconds(rule: Rule, load: float) -> float:
    """A rate step's schedule time (a concurrency step's depends on the server: 0)."""
    return rule.requests / load if rule.by == "rate" else 0.0


FOLLOW_STARTS = 16  # where a floor-led sweep may start, for the worst case: spread over the range


@functools.cache
def worst_case(rule: Rule, objectives: tuple[Objective, ...] = ()) -> tuple[int, int, float]:
    """The most steps, requests and seconds one model's search can take: its floor (one step
    of `FLOOR_REQUESTS`), then the search run against knees spread over the range (and beyond
    both ends), from every start the floor may give it (a rule that follows the floor), each
    with its `CONFIRMATIONS` confirming steps at its longest steps. Seconds: each step's
    schedule plus the SLO's longest limit for its last requests to finish; the floor's
    requests each within that limit."""
    drain = max((o.limit_ms for o in objectives), default=0.0) / 1000
    worst = (0, 0, 0.0)
    span = math.log(rule.high / rule.low)
    starts = [None] if not rule.follow else [
        rule.low * math.exp(span * j / FOLLOW_STARTS) for j in range(FOLLOW_STARTS + 1)
    ]  # fmt: skip
    room = None if rule.budget is None else rule.budget - FLOOR_REQUESTS
    most = math.inf if room is None else room // rule.requests
    for begin in starts:
        started = replace(rule, follow=False, begin=begin)
        for i in range(-2, 83):
            knee = rule.low * math.exp(span * i / 80)
            search = Search(started)
            taken: list[float] = []
            while (load := search.next_load()) is not None:
                taken.append(step_seconds(rule, load) + drain)
                shown = 1.0 if load <= knee else 0.0
                fake = Term("", 0, 1, 1, None, shown, 50, shown)
                search.take(Step(load, rule.requests, rule.requests, (fake,), None, None))
            steps = int(min(len(taken) + CONFIRMATIONS, most))
            seconds = sum(sorted(taken, reverse=True)[: steps - len(taken)]) + sum(taken)
            found = (steps, steps * rule.requests, seconds)
            worst = (max(worst[0], found[0]), max(worst[1], found[1]), max(worst[2], found[2]))
    return worst[0] + 1, worst[1] + FLOOR_REQUESTS, worst[2] + FLOOR_REQUESTS * drain
