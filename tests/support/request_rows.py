"""Measured rows made by hand, with the times a capacity step judges (TTFT, tokens), or failed."""

from __future__ import annotations

from workbench.core.foundation.results import ErrorClass, RequestResult

MS = 1_000_000


def measured_row(i: int, ttft_ms: float, tokens: int = 8, ok: bool = True) -> RequestResult:
    """Request `i`: its first token `ttft_ms` after it was sent, then a token every 10 ms; or,
    not ok, a server error after 1 ms."""
    result = RequestResult(request_id=f"r{i}", provider="p", model="m", base_url="http://x/v1")
    result.phase = "measured"
    result.t_intended = result.t_send = 1_000 * MS
    if ok:
        result.t_first_token = result.t_send + int(ttft_ms * MS)
        result.event_times = [result.t_first_token + k * 10 * MS for k in range(tokens)]
        result.t_last_token = result.t_done = result.event_times[-1]
        result.completion_tokens = tokens
    else:
        result.error_class = ErrorClass.SERVER
        result.t_done = result.t_send + MS
    return result


def cancelled_row(i: int) -> RequestResult:
    """Request `i` cut while in flight (a step ended early, or Stop)."""
    result = measured_row(i, 0.0, ok=False)
    result.error_class = ErrorClass.CANCELLED
    return result
