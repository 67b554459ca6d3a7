"""Rules every request's row follows, whatever sent it: a bug of ours becomes the row's error,
garbled usage is dropped from the figures, and when a 429/503 is retried.

The Runner applies them to each request it sends; the coordinator of a run over several
processes derives the rows its workers send back with the same `metrics_of`.
"""

from __future__ import annotations

import time

from workbench.core.foundation.metrics import RequestMetrics, derive
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.run.run_sink import describe_exception


def mark_internal(result: RequestResult, exc: BaseException) -> None:
    """A bug of ours while handling one request becomes that request's row, never a gap."""
    result.error_class = ErrorClass.INTERNAL
    result.error_message = f"internal error, please report: {describe_exception(exc)}"


def metrics_of(result: RequestResult) -> RequestMetrics:
    """The row's figures; usage a server garbled is dropped (and the row says why)."""
    try:
        return derive(result)
    except Exception as exc:
        mark_internal(result, exc)
        result.prompt_tokens = result.completion_tokens = result.cached_tokens = None
        return derive(result)


def retry_wait(result: RequestResult, deadline: float) -> float | None:
    """Seconds to wait before a retry of a 429/503 (by its Retry-After, within the run's retry
    budget ending at `deadline`, time.monotonic()), or None when no retry is due."""
    if result.error_class not in (ErrorClass.RATE_LIMIT, ErrorClass.SERVER):
        return None
    if result.http_status not in (429, 503) or result.retry_after_s is None:
        return None
    if time.monotonic() + result.retry_after_s > deadline:
        return None
    return result.retry_after_s
