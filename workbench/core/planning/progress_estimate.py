"""How far a run has got and how long it has left: the one estimate the CLI and the window show.

Work. Each planned request weighs the seconds it is expected to take: its prefill (a fixed
latency plus prompt tokens × seconds per prompt token) plus its output budget × seconds per
budget token. Until requests have finished, the rates are priors (`PRIOR_PREFILL_TPS`,
`PRIOR_DECODE_TPS`); then they are fitted to the finished requests' TTFT and decode time, so a
sweep's 128K requests weigh what the measured server makes them weigh, not one request each.

In flight. A request in prefill advances by its age against its expected prefill time. Past
`LINEAR_UNTIL` of that time it is taken to need longer: its expected prefill becomes age /
`LINEAR_UNTIL`, so the request weighs more and a slow prefill keeps moving the bar, ever more
slowly, without completing it early (a 128K prefill no longer sits at "96 %, ETA 1 s"). A
streaming request has its prefill done (as long as it took) and its decode share in proportion
to the tokens that came of its budget, slowing near the end the same way. A finished request,
ok, failed or stopped, counts whole.

The rules the figures keep (docs/metrics.md, "Progress and ETA"):
1. The fraction shown never goes backwards: it is the highest estimate so far (a refit of the
   rates or a weightier request starting can lower the raw one). Every planned request finished
   is 100 %.
2. The ETA is t × (1 − r) / r, with r the current estimate and t the time since the first
   planned request was sent (a server's start and the calibration are no part of the work). r is
   not held up like the fraction shown: a prefill past its expected time lowers it, and the ETA
   then grows where the bar holds. The ETA is None ("estimating…") until a request has finished
   or streamed a token: before that nothing says how fast the server is.
3. Between readings the ETA moves towards the new figure by 1 − exp(−dt / `ETA_SMOOTHING_S`),
   so one request finishing early or late does not make it leap down and back up.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from workbench.core.planning.run_events import RequestFinished, RequestStarted, RunEvent, TextDelta
from workbench.core.planning.run_plan import RunPlan

PRIOR_PREFILL_TPS = 5_000.0  # prompt tokens/s: the prior until a request has finished
PRIOR_DECODE_TPS = 50.0  # output tokens/s
# an in-flight share moves with its clock up to here; past it, a prefill is taken to need a
# third of its age again (the longer it has taken, the longer it will: an ETA that sat at 0 s
# through a slow 128K prefill came of trusting the first guess)
LINEAR_UNTIL = 0.75
ETA_SMOOTHING_S = 2.0


def planned_requests(plan: RunPlan) -> list[tuple[int, int]]:
    """Every request the plan counts in its progress, as (prompt tokens, output budget)."""
    per_length = sum(plan.requests_at(c) + plan.warmup for c in plan.concurrency_levels)
    return [
        (length, plan.max_tokens)
        for _ in plan.targets
        for length in plan.prompt_lengths
        for _ in range(per_length)
    ]


def _creep(x: float) -> float:
    """x up to LINEAR_UNTIL, then towards 1 without reaching it (continuous, same slope)."""
    if x <= LINEAR_UNTIL:
        return max(0.0, x)
    tail = 1.0 - LINEAR_UNTIL
    return LINEAR_UNTIL + tail * (1.0 - math.exp(-(x - LINEAR_UNTIL) / tail))


@dataclass(frozen=True)
class ProgressReading:
    fraction: float  # 0..1, never lower than the reading before
    eta_s: float | None  # None while nothing says how fast the server is
    elapsed_s: float
    done: int  # planned requests finished (ok, failed or stopped)
    total: int

    @property
    def percent(self) -> int:
        """Whole percent, rounded down: 100 only when every planned request has finished."""
        return math.floor(self.fraction * 100)


@dataclass
class _Flight:
    prompt: int
    since: float
    tokens: int = 0
    ttft_s: float | None = None  # known at its first token


class ProgressEstimate:
    """The progress of one run, fed its events; `read(now)` gives the figures to show."""

    def __init__(self, planned: Iterable[tuple[int, int]], started: float) -> None:
        self.started = started
        self._left: Counter[tuple[int, int]] = Counter(planned)
        self._done: Counter[tuple[int, int]] = Counter()
        self.total = sum(self._left.values())
        self._flights: dict[str, tuple[_Flight, int]] = {}  # request id -> flight, budget
        self._prefill: list[tuple[int, float]] = []  # prompt tokens, TTFT s
        self._decode: list[tuple[int, float]] = []  # output budget, decode s
        self._evidence = False
        self._first_sent: float | None = None
        self._shown = 0.0
        self._eta: float | None = None
        self._eta_at = started

    @classmethod
    def for_plan(cls, plan: RunPlan, started: float) -> ProgressEstimate:
        return cls(planned_requests(plan), started)

    # ---- events ----

    def feed(self, event: RunEvent, now: float) -> None:
        """Take one run event; calibration requests (repeat −1) are outside the plan's count."""
        if isinstance(event, TextDelta):
            self.streamed(event.request_id, now=now)
        elif isinstance(event, RequestStarted):
            if event.repeat >= 0:
                self.sent(event.request_id, event.prompt_tokens_target, now)
        elif isinstance(event, RequestFinished):
            result, metrics = event.result, event.metrics
            if result.phase == "calibration":
                self._flights.pop(result.request_id, None)
                return
            ttft = None if metrics.ttft_ms is None else metrics.ttft_ms / 1000
            e2e = None if metrics.e2e_ms is None else metrics.e2e_ms / 1000
            decode = None if ttft is None or e2e is None else max(0.0, e2e - ttft)
            budget = self._budget_of(result.request_id)
            self.finished(result.request_id, result.prompt_tokens_target or 0, budget, ttft, decode)

    def sent(self, request_id: str, prompt_tokens: int, now: float) -> None:
        if self._first_sent is None:
            self._first_sent = now
        self._flights[request_id] = (_Flight(prompt_tokens, now), self._typical_budget())

    def streamed(self, request_id: str, tokens: int = 1, now: float | None = None) -> None:
        """Text came for a request (one delta is about one token)."""
        entry = self._flights.get(request_id)
        if entry is not None:
            flight = entry[0]
            if flight.ttft_s is None and now is not None:
                flight.ttft_s = max(0.0, now - flight.since)
            flight.tokens += tokens
            self._evidence = True

    def finished(
        self,
        request_id: str,
        prompt_tokens: int,
        budget: int,
        ttft_s: float | None = None,
        decode_s: float | None = None,
    ) -> None:
        """A planned request ended; its TTFT and decode time, when it has them, tune the rates."""
        self._flights.pop(request_id, None)
        key = (prompt_tokens, budget)
        if self._left[key] <= 0:
            key = next((k for k, n in self._left.items() if n > 0 and k[0] == prompt_tokens), key)
        if self._left[key] > 0:
            self._left[key] -= 1
            self._done[key] += 1
        if ttft_s is not None and ttft_s > 0:
            self._prefill.append((prompt_tokens, ttft_s))
            self._evidence = True
        if decode_s is not None and budget > 0:
            self._decode.append((budget, decode_s))

    def _typical_budget(self) -> int:
        keys = [k for k, n in self._left.items() if n > 0] or list(self._done)
        return keys[0][1] if keys else 0

    def _budget_of(self, request_id: str) -> int:
        entry = self._flights.get(request_id)
        return entry[1] if entry is not None else self._typical_budget()

    # ---- the model of the server ----

    def _prefill_fit(self) -> tuple[float, float]:
        """(fixed seconds, seconds per prompt token) of a TTFT: least squares over the finished
        requests when two prompt sizes have finished, else their ratio, else the prior."""
        seen = self._prefill
        if not seen:
            return 0.0, 1.0 / PRIOR_PREFILL_TPS
        if len({p for p, _ in seen}) < 2:
            tokens = sum(p for p, _ in seen)
            return (0.0, sum(t for _, t in seen) / tokens) if tokens else (0.0, 0.0)
        n = len(seen)
        mean_p = sum(p for p, _ in seen) / n
        mean_t = sum(t for _, t in seen) / n
        var = sum((p - mean_p) ** 2 for p, _ in seen)
        slope = max(0.0, sum((p - mean_p) * (t - mean_t) for p, t in seen) / var)
        return max(0.0, mean_t - slope * mean_p), slope

    def _decode_rate(self) -> float:
        """Seconds per budget token: what the finished requests took for their budgets."""
        budget = sum(b for b, _ in self._decode)
        if not budget:
            return 1.0 / PRIOR_DECODE_TPS
        return sum(s for _, s in self._decode) / budget

    # ---- the reading ----

    def _raw_fraction(self, now: float) -> float:
        if not self.total:
            return 0.0
        if not any(self._left.values()):
            return 1.0
        fixed, per_prompt = self._prefill_fit()
        per_output = self._decode_rate()

        def cost(prompt: int, budget: int) -> float:
            return fixed + per_prompt * prompt + per_output * budget

        done = sum(cost(p, b) * n for (p, b), n in self._done.items())
        left = sum(cost(p, b) * n for (p, b), n in self._left.items())
        moving = longer = 0.0  # the flights' work done; what they need beyond their weight
        for flight, budget in self._flights.values():
            expected = fixed + per_prompt * flight.prompt
            if flight.tokens == 0:
                age = max(0.0, now - flight.since)
                prefill = max(expected, age / LINEAR_UNTIL)  # overdue: it needs longer
                moving += min(age, LINEAR_UNTIL * prefill)
            else:
                prefill = max(expected, flight.ttft_s or 0.0)
                decode = per_output * budget
                moving += prefill + decode * _creep(flight.tokens / budget if budget else 1.0)
            longer += prefill - expected
        whole = done + left + longer
        return min(1.0, (done + min(moving, left + longer)) / whole) if whole > 0 else 0.0

    def read(self, now: float) -> ProgressReading:
        """The figures to show now, by the rules of the module's docstring."""
        raw = self._raw_fraction(now)
        self._shown = max(self._shown, raw)
        f = self._shown
        elapsed = max(0.0, now - self.started)
        if f >= 1.0:
            self._eta = 0.0
        elif self._evidence and raw > 0:
            working = max(
                0.0, now - (self.started if self._first_sent is None else self._first_sent)
            )
            target = working * (1.0 - raw) / raw
            if self._eta is None:
                self._eta = target
            else:
                dt = max(0.0, now - self._eta_at)
                self._eta += (target - self._eta) * (1 - math.exp(-dt / ETA_SMOOTHING_S))
        self._eta_at = now
        return ProgressReading(f, self._eta, elapsed, sum(self._done.values()), self.total)
