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
    errors: int
    elapsed_s: float


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    status: Literal["finished", "cancelled", "failed"]
    results: tuple[RequestResult, ...]
    message: str = ""


RunEvent = RunStarted | RequestStarted | TextDelta | RequestFinished | Progress | RunFinished
