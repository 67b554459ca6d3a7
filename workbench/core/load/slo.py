"""Service-level objectives: `ttft_p90:2s,tpot_p90:50ms,e2e_p99:30s`, per request and per cell.

Each objective is a figure, a percentile and a limit. A request meets the SLO when it succeeded
and every figure is within its limit; TTFT and e2e count from when the request was due, not
when it was sent, so a late client never hides queueing (docs/metrics.md, "SLOs and goodput").
A cell's goodput is its requests that met the SLO per second of the cell (vLLM's
`request_goodput`); the SLO holds for the cell when each figure's percentile is within its
limit. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from workbench.core.foundation.metrics import RequestMetrics, percentile
from workbench.core.foundation.results import RequestResult

# figure name -> the RequestMetrics field it judges
FIGURES: dict[str, str] = {
    "ttft": "ttft_from_scheduled_ms",
    "ttfc": "ttfc_ms",
    "tpot": "tpot_ms",
    "itl": "itl_p99_ms",
    "e2e": "e2e_from_scheduled_ms",
}
ALIASES = {"e2el": "e2e"}  # vLLM's name for end-to-end latency
# figures an answer of one token has none of: such a request is not held to them
_OPTIONAL = frozenset({"tpot", "itl"})
_UNITS_MS = {"ms": 1.0, "s": 1000.0}
MAX_LIMIT_MS = 86_400_000.0  # one day
_PART = re.compile(r"^([a-z0-9]+)_p([0-9]+(?:\.[0-9]+)?)$")
_LIMIT = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s)$")
_EXAMPLE = "e.g. ttft_p90:2s,tpot_p90:50ms,e2e_p99:30s"


@dataclass(frozen=True)
class Objective:
    """One term: `figure`'s `quantile`th percentile at most `limit_ms` (per request: each
    value at most `limit_ms`)."""

    figure: str
    quantile: float
    limit_ms: float

    @property
    def name(self) -> str:
        return f"{self.figure}_p{self.quantile:g}"

    def value(self, metrics: RequestMetrics) -> float | None:
        value: float | None = getattr(metrics, FIGURES[self.figure])
        return value


def parse_slo(text: str) -> tuple[Objective, ...]:
    """`ttft_p90:2s,e2e_p99:30s` -> objectives. ValueError naming the bad part and the fix."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or not all(parts):
        raise ValueError(f"'{text}': give one or more FIGURE_pNN:LIMIT terms, {_EXAMPLE}")
    objectives: list[Objective] = []
    for part in parts:
        head, colon, limit = part.lower().partition(":")
        match = _PART.match(head.strip())
        if not colon or match is None:
            raise ValueError(
                f"'{part}': write FIGURE_pNN:LIMIT, {_EXAMPLE} (figures: {', '.join(FIGURES)})"
            )
        figure = ALIASES.get(match.group(1), match.group(1))
        if figure not in FIGURES:
            raise ValueError(
                f"'{part}': unknown figure '{match.group(1)}'; use one of {', '.join(FIGURES)}"
            )
        quantile = float(match.group(2))
        if not 0 < quantile <= 100:
            raise ValueError(f"'{part}': the percentile must be 0 < p <= 100, e.g. p90 or p99.9")
        found = _LIMIT.match(limit.strip())
        if found is None:
            raise ValueError(
                f"'{part}': the limit needs a number and a unit, ms or s, e.g. 2s or 50ms"
            )
        limit_ms = float(found.group(1)) * _UNITS_MS[found.group(2)]
        if not (math.isfinite(limit_ms) and 0 < limit_ms <= MAX_LIMIT_MS):
            raise ValueError(f"'{part}': the limit must be more than 0 and at most one day")
        if any(o.figure == figure and o.quantile == quantile for o in objectives):
            raise ValueError(f"'{part}': {figure}_p{quantile:g} is given twice; keep one")
        objectives.append(Objective(figure, quantile, limit_ms))
    return tuple(objectives)


def describe(objectives: Sequence[Objective]) -> str:
    """The SLO as the flag writes it, e.g. `ttft_p90:2000ms,e2e_p99:30000ms`."""
    return ",".join(f"{o.name}:{o.limit_ms:g}ms" for o in objectives)


def request_meets(
    result: RequestResult, metrics: RequestMetrics, objectives: Sequence[Objective]
) -> bool | None:
    """Whether one request met every objective; None when the run has no SLO. A failed
    request misses; a figure it cannot have (TPOT of a one-token answer) is not held."""
    if not objectives:
        return None
    if not result.ok:
        return False
    for objective in objectives:
        value = objective.value(metrics)
        if value is None:
            if objective.figure in _OPTIONAL:
                continue
            return False
        if value > objective.limit_ms:
            return False
    return True


@dataclass(frozen=True)
class Goodput:
    """A cell's (or a model's) requests against the SLO."""

    judged: int  # measured requests with a verdict
    met: int
    duration_s: float  # from the first request's due time to the last one's end

    @property
    def request_goodput(self) -> float | None:
        """Requests that met the SLO per second (vLLM's `request_goodput`)."""
        return self.met / self.duration_s if self.duration_s > 0 else None

    @property
    def attainment(self) -> float | None:
        """The share of requests that met the SLO, 0..1."""
        return self.met / self.judged if self.judged else None


class GoodputTally:
    """`goodput` one row at a time: counts and the cell's span, no rows kept."""

    def __init__(self) -> None:
        self.judged = self.met = 0
        self.first: float | None = None
        self.last: float | None = None

    def add(self, result: RequestResult, metrics: RequestMetrics) -> None:
        if result.phase != "measured" or result.slo_met is None:
            return
        self.judged += 1
        self.met += 1 if result.slo_met else 0
        if not result.started_at:  # never sent: no place on the wall clock
            return
        due = result.started_at - (metrics.dispatch_ms or 0.0) / 1000
        end = result.started_at + (metrics.e2e_ms or 0.0) / 1000
        self.first = due if self.first is None else min(self.first, due)
        self.last = end if self.last is None else max(self.last, end)

    def result(self) -> Goodput | None:
        if not self.judged:
            return None
        span = (self.last - self.first) if self.first is not None and self.last is not None else 0
        return Goodput(self.judged, self.met, span)


def goodput(rows: Iterable[tuple[RequestResult, RequestMetrics]]) -> Goodput | None:
    """The rows' goodput; None when none was judged against an SLO."""
    tally = GoodputTally()
    for result, metrics in rows:
        tally.add(result, metrics)
    return tally.result()


def holds(objectives: Sequence[Objective], metrics: Sequence[RequestMetrics]) -> bool:
    """Whether each objective's percentile over the requests is within its limit."""
    for objective in objectives:
        values = [v for m in metrics if (v := objective.value(m)) is not None]
        found = percentile(values, objective.quantile)
        if found is None or found > objective.limit_ms:
            return False
    return True


def clock_refusal(objectives: Sequence[Objective], scale: float, app: bool = False) -> str | None:
    """Why an SLO cannot be judged on the built-in provider at time scale `scale` (None at 1):
    its limits are real milliseconds while the scale rescales only the models' delays. The
    one rule for `bench --slo` and the app's Capacity tab (docs/metrics.md, "SLOs and the
    time scale"); `app`: said with the app's ways out."""
    if not objectives or scale == 1.0:
        return None
    drop = (
        "start the app without --time-scale" if app else "drop --time-scale"
    ) + " to judge the models in their own time"
    said = (
        f"--slo judges real milliseconds, but --time-scale {scale:g} multiplies the built-in "
        "models' delays while the client's and the server's own time stays real, so the SLO "
        "would be judged on rescaled latencies (a capacity in rescaled time, overstated when "
        f"faster); {drop}"
    )
    if app:
        said = said.replace("--slo judges", "An SLO judges", 1)
    if scale == 0:
        return said
    own = describe(tuple(replace(o, limit_ms=o.limit_ms * scale) for o in objectives))
    point = "add it as an OpenAI-compatible provider" if app else "point --base-url at it"
    return (
        f"{said}, or, to measure the simulator's clock on purpose, start `workbench "
        f"serve-local --time-scale {scale:g}`, {point} and write the limits in its clock "
        f"({'' if app else '--slo '}{own})"
    )
