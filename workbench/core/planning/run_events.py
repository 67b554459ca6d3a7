"""The events of a run: the one stream that the CLI and the GUI both consume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workbench.core.foundation.metrics import RequestMetrics
from workbench.core.foundation.results import RequestResult, Target
from workbench.core.planning.run_plan import RunPlan


@dataclass(frozen=True)
class TextDelta:
    """Text as it arrives, for live views; `t_ns` is the perf_counter_ns of its event, and
    `t_send_ns` the request's send stamp (when its bytes were written), so that a live TTFT
    counts from the send as `metrics.derive` does, not from the request's intended start."""

    request_id: str
    text: str
    reasoning: bool
    t_ns: int
    t_send_ns: int | None = None


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    plan: RunPlan
    total: int


@dataclass(frozen=True)
class RequestStarted:
    request_id: str
    target: Target
    prompt_tokens_target: int
    repeat: int
    warmup: bool
    t_ns: int


@dataclass(frozen=True)
class RequestFinished:
    result: RequestResult
    metrics: RequestMetrics
    target: Target


@dataclass(frozen=True)
class Progress:
    """Counts after each planned request; the share done and the ETA are
    `core.progress_estimate`'s, which weighs requests and sees those in flight."""

    done: int
    total: int
    errors: int  # failed: an error, not a stop (stopped) nor a miss of the SLO (missed)
    elapsed_s: float
    stopped: int = 0  # cancelled: by the user, or a capacity step that had already missed
    missed: int = 0  # answered, outside the SLO (a run with --slo)


@dataclass
class RequestCount:
    """The one count behind every Progress: a finished request is failed, stopped or, when
    answered outside the SLO, missed (docs/metrics.md, "Progress and ETA")."""

    done: int = 0
    errors: int = 0
    stopped: int = 0
    missed: int = 0

    def take(self, result: RequestResult) -> None:
        self.done += 1
        if result.stopped:
            self.stopped += 1
        elif not result.ok:
            self.errors += 1
        elif result.slo_met is False:
            self.missed += 1

    def progress(self, total: int, elapsed_s: float) -> Progress:
        return Progress(self.done, total, self.errors, elapsed_s, self.stopped, self.missed)


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    status: Literal["finished", "cancelled", "failed"]
    results: tuple[RequestResult, ...]
    message: str = ""


RunEvent = RunStarted | RequestStarted | TextDelta | RequestFinished | Progress | RunFinished
