"""A capacity step that has already missed its SLO ends there, instead of waiting for its queue.

Far above a model's capacity every request of a step queues behind the others: a 50-request step
at 10x the knee of a 32K-prompt model took over five minutes to drain, for an answer (missed)
known after a few seconds. `StepWatch` follows one step's requests and says when its outcome is
decided: for some objective, the requests already known to miss are so many that even if every
other planned request came within the limit, the step would be shown missed (core/load/
capacity.py's rule: the Wilson upper bound of the share within at the search's confidence
below the objective's percentile). A step that could still end undecided runs on: the search
may confirm it. A request is known to miss when it finished outside the limit (or
failed), or when it is still waiting past a TTFT or e2e limit: those figures only grow. The
runner then cancels the rest of the step; their rows say why (docs/metrics.md, "Capacity").
Pure: no I/O; times are the caller's perf_counter_ns readings.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.foundation.metrics import RequestMetrics
from workbench.core.foundation.results import RequestResult
from workbench.core.load.capacity import wilson
from workbench.core.load.send_lead import MAX_LEAD_NS
from workbench.core.load.slo import Objective

# figures a request still waiting can already be known to exceed: they only grow while it waits
_GROWING = frozenset({"ttft", "e2e"})


def decided_note(load: str, objective: str) -> str:
    """The message of a request the watch cancelled (a 'cancelled' row, not a failure)."""
    return (
        f"not needed: the step at {load} had already missed {objective}, so the search moved on "
        "(a step is ended once its outcome is decided)"
    )


class StepWatch:
    """One step's requests against its objectives; `decided()` names a term that cannot hold."""

    def __init__(self, objectives: Sequence[Objective], planned: int) -> None:
        self.objectives = tuple(objectives)
        self.planned = planned
        self._waiting: dict[str, int] = {}  # measured request id -> when it started (ns)
        self._answering: set[str] = set()  # of those, the ones whose first token has come
        self._missed = dict.fromkeys((o.name for o in self.objectives), 0)

    def started(self, request_id: str, t_ns: int) -> None:
        self._waiting[request_id] = t_ns

    def answered(self, request_id: str) -> None:
        """The request's first token (or text) arrived: its TTFT is no longer growing."""
        if request_id in self._waiting:
            self._answering.add(request_id)

    def finished(self, result: RequestResult, metrics: RequestMetrics) -> None:
        self._waiting.pop(result.request_id, None)
        self._answering.discard(result.request_id)
        for o in self.objectives:
            value = o.value(metrics) if result.ok else None
            if value is None and result.ok and o.figure in ("tpot", "itl"):
                continue  # a one-token answer is not held to TPOT (core/load/slo.py)
            if value is None or value > o.limit_ms:
                self._missed[o.name] += 1

    def known_misses(self, objective: Objective, now_ns: int) -> int:
        missed = self._missed[objective.name]
        if objective.figure not in _GROWING:
            return missed
        limit_ns = objective.limit_ms * 1e6
        for request_id, t_ns in self._waiting.items():
            if objective.figure == "ttft" and request_id in self._answering:
                continue
            # from the start, less the most it can precede its due moment (built ahead)
            if now_ns - t_ns - MAX_LEAD_NS > limit_ns:
                missed += 1
        return missed

    def decided(self, now_ns: int) -> str | None:
        """The name of an objective the step can no longer show anything but missed, or None
        while it still can."""
        if self.planned <= 0:
            return None
        for o in self.objectives:
            misses = min(self.known_misses(o, now_ns), self.planned)
            best = wilson(self.planned - misses, self.planned)[1]  # every other one within
            if best < o.quantile / 100:
                return o.name
        return None
