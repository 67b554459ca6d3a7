"""Gateway overhead: one model measured direct and through a gateway, compared per concurrency.

Rows come from a `--compare-route` run: each carries `route` ("direct" or "gateway") and the
concurrency it ran at. Per (level, route) the successful, measured rows give the median and p90
of TTFT and end-to-end time and the median decode speed; the comparison is the gateway's figure
minus the direct one's. Differences are taken between the per-route statistics (gateway median
minus direct median, gateway p90 minus direct p90), never per request: the two routes' requests
are independent samples, not pairs. Qt-free; the CLI prints it, the chart draws it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from workbench.core.foundation.metrics import derive, percentile
from workbench.core.foundation.results import RequestResult

RouteName = Literal["direct", "gateway"]
ROUTES: tuple[RouteName, ...] = ("direct", "gateway")
ROUTE_SCHEMA = "workbench.route_compare/1"


@dataclass
class _Samples:
    ttft_ms: list[float] = field(default_factory=list)
    e2e_ms: list[float] = field(default_factory=list)
    decode_tps: list[float] = field(default_factory=list)
    errors: int = 0


@dataclass(frozen=True)
class RouteFigures:
    """One route at one concurrency level: n successful requests, and their figures."""

    n: int
    errors: int
    ttft_median_ms: float | None
    ttft_p90_ms: float | None
    e2e_median_ms: float | None
    e2e_p90_ms: float | None
    decode_tps_median: float | None


@dataclass(frozen=True)
class LevelComparison:
    """The gateway against the direct route at one concurrency level (gateway minus direct)."""

    concurrency: int
    direct: RouteFigures
    gateway: RouteFigures

    @property
    def added_ttft_median_ms(self) -> float | None:
        return _minus(self.gateway.ttft_median_ms, self.direct.ttft_median_ms)

    @property
    def added_ttft_p90_ms(self) -> float | None:
        return _minus(self.gateway.ttft_p90_ms, self.direct.ttft_p90_ms)

    @property
    def added_e2e_median_ms(self) -> float | None:
        return _minus(self.gateway.e2e_median_ms, self.direct.e2e_median_ms)

    @property
    def added_e2e_p90_ms(self) -> float | None:
        return _minus(self.gateway.e2e_p90_ms, self.direct.e2e_p90_ms)

    @property
    def decode_tps_change(self) -> float | None:
        return _minus(self.gateway.decode_tps_median, self.direct.decode_tps_median)

    @property
    def decode_tps_change_pct(self) -> float | None:
        change, direct = self.decode_tps_change, self.direct.decode_tps_median
        return None if change is None or not direct else 100.0 * change / direct


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


class RouteComparison:
    """Accumulates rows as they finish (memory: three floats per request), then compares."""

    def __init__(self) -> None:
        self._samples: dict[tuple[int, str], _Samples] = defaultdict(_Samples)

    def add(self, result: RequestResult) -> None:
        """Take one row; warm-ups and rows of no route are left out."""
        if result.warmup or result.route not in ROUTES:
            return
        samples = self._samples[(result.concurrency, result.route)]
        if not result.ok:
            samples.errors += 1
            return
        m = derive(result)
        for values, value in (
            (samples.ttft_ms, m.ttft_ms),
            (samples.e2e_ms, m.e2e_ms),
            (samples.decode_tps, m.decode_tps),
        ):
            if value is not None:
                values.append(value)

    def levels(self) -> list[LevelComparison]:
        """One comparison per concurrency level that has rows, lowest level first."""
        concurrencies = sorted({level for level, _ in self._samples})
        return [
            LevelComparison(c, self._figures(c, "direct"), self._figures(c, "gateway"))
            for c in concurrencies
        ]

    def _figures(self, concurrency: int, route: str) -> RouteFigures:
        s = self._samples.get((concurrency, route), _Samples())
        return RouteFigures(
            n=len(s.e2e_ms),
            errors=s.errors,
            ttft_median_ms=percentile(s.ttft_ms, 50),
            ttft_p90_ms=percentile(s.ttft_ms, 90),
            e2e_median_ms=percentile(s.e2e_ms, 50),
            e2e_p90_ms=percentile(s.e2e_ms, 90),
            decode_tps_median=percentile(s.decode_tps, 50),
        )


def compare_routes(results: Iterable[RequestResult]) -> list[LevelComparison]:
    """The comparison of a finished run's rows (from the history, say)."""
    comparison = RouteComparison()
    for result in results:
        comparison.add(result)
    return comparison.levels()


def levels_json(levels: Iterable[LevelComparison]) -> list[dict[str, Any]]:
    """The comparison as `bench --json --compare-route` prints it (docs/json.md): per
    level, each route's figures and the gateway's addition, as the text table shows them."""
    return [
        {
            "concurrency": level.concurrency,
            "direct": asdict(level.direct),
            "gateway": asdict(level.gateway),
            "added": {
                "ttft_median_ms": level.added_ttft_median_ms,
                "ttft_p90_ms": level.added_ttft_p90_ms,
                "e2e_median_ms": level.added_e2e_median_ms,
                "e2e_p90_ms": level.added_e2e_p90_ms,
                "decode_tps": level.decode_tps_change,
                "decode_tps_pct": level.decode_tps_change_pct,
            },
        }
        for level in levels
    ]
