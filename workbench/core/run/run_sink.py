"""Where a run's finished requests go, and how a failing store is retried before the run
fails: every row is written before its event is emitted, so a view may lag but no data is lost."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from workbench.core.foundation.redaction import redact_and_cut
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import StoreError

# A store that keeps failing (locked, busy) is retried for this long before the run fails.
STORE_RETRY_S = 10.0
MESSAGE_CHARS = 500  # an internal error's message is cut here, after redaction


class ResultSink(Protocol):
    """Where finished requests go. `record` may raise; an exception whose `transient`
    attribute is true (a locked database) is retried for `STORE_RETRY_S` before the run fails."""

    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str: ...
    def record(self, result: RequestResult) -> None: ...
    def finish_run(self, run_id: str, status: str) -> None: ...


def describe_exception(exc: BaseException) -> str:
    """`Type: message` of the innermost first exception of a group, redacted, then cut."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc)
    return redact_and_cut(
        f"{type(exc).__name__}: {text}" if text else type(exc).__name__, MESSAGE_CHARS
    )


async def store_call(call: Callable[[], object], patience: float) -> str | None:
    """Run one store call; a transient error (a lock) is retried with back-off for `patience`
    seconds. None on success, else the problem in words."""
    deadline = time.monotonic() + patience
    delay = 0.05
    while True:
        try:
            call()
            return None
        except Exception as exc:
            transient = bool(getattr(exc, "transient", False))
            if not transient or time.monotonic() + delay > deadline:
                waited = f" (still failing after {patience:g} s)" if transient and patience else ""
                return f"{_store_problem(exc)}{waited}"
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


def _store_problem(exc: BaseException) -> str:
    """A StoreError's own message (it names the file and the fix), else the exception."""
    if isinstance(exc, StoreError):
        return redact_and_cut(str(exc), MESSAGE_CHARS)
    return f"the history store failed: {describe_exception(exc)}"


def run_stopped(why: str) -> str:
    """A cancelled row's message when the run itself was stopped, for a cause not the user's."""
    return f"cancelled: the run stopped ({why})"[:MESSAGE_CHARS]
