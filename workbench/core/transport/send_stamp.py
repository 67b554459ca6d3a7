"""`t_send`: the moment a request's bytes are written, reported by the transport itself.

`stream_chat` marks the request it is about to send with `sending(result)`, a context variable;
the transports' trace hooks run in the sending task (or in a task it starts, which inherits the
context) and stamp that request's `t_send` and `started_at`:

- aiohttp (the default transport): `on_request_headers_sent` fires when aiohttp buffers the head,
  and `on_request_chunk_sent` right before it writes the first body chunk together with that
  head (one write); so the first chunk's signal is when the request leaves, and a request
  without a body leaves with its head;
- httpx: httpcore's `trace` extension, at `send_request_headers.started`, right before the head
  is serialised and written to the socket (at `.complete` a server on another thread may
  already have read it).

Nothing is stamped for a request sent outside `sending` (the network baseline, the doctor), so
the hooks cost one context-variable read there.

**Written at due.** An open-loop request (core/load/open_loop.py) is built ahead of its
scheduled moment and sent inside `held_until_due` (core/load/send_lead.py): the same hooks,
awaited right before the write, then wait (core/system/wake.py) until the request's
`t_intended` before they stamp, so the bytes leave at the due moment and not when the request
happened to be ready. aiohttp holds at the first body chunk, where its head leaves too (every
chat request has a body); httpx at the head. A request sent outside `held_until_due` (a closed
loop, the doctor, a baseline), a retry (due when its wait ends) or one already late is never
held. A cancelled hold writes nothing: the request fails as cancelled, as one cancelled while
connecting does.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from workbench.core.load.send_lead import held_listener
from workbench.core.system.wake import sleep_until_ns

if TYPE_CHECKING:
    import aiohttp

    from workbench.core.foundation.results import RequestResult


class _Sending:
    """The request being sent from this context, and whether its body has started."""

    __slots__ = ("body_started", "result")

    def __init__(self, result: RequestResult) -> None:
        self.result = result
        self.body_started = False

    def stamp(self) -> None:
        self.result.t_send = time.perf_counter_ns()
        self.result.started_at = time.time()


_SENDING: ContextVar[_Sending | None] = ContextVar("workbench_sending", default=None)


@contextmanager
def sending(result: RequestResult) -> Iterator[None]:
    """While inside, a write reported by the transport stamps `result.t_send`."""
    token = _SENDING.set(_Sending(result))
    try:
        yield
    finally:
        _SENDING.reset(token)


async def _write_when_due(marker: _Sending) -> None:
    """Hold the write until the request is due (inside `held_until_due` only), then stamp."""
    ready = held_listener()
    if ready is not None:
        now = time.perf_counter_ns()
        ready(now)
        due = marker.result.t_intended
        if due is not None and due > now:
            await sleep_until_ns(due)
    marker.stamp()


async def _on_headers_sent(_session: Any, _ctx: Any, _params: Any) -> None:
    marker = _SENDING.get()
    if marker is not None:
        marker.body_started = False  # a new request head (after a proxy's CONNECT, say)
        marker.stamp()


async def _on_chunk_sent(_session: Any, _ctx: Any, _params: Any) -> None:
    marker = _SENDING.get()
    if marker is not None and not marker.body_started:
        marker.body_started = True
        await _write_when_due(marker)  # the head is buffered: it leaves with this chunk


def aiohttp_trace_config() -> aiohttp.TraceConfig:
    """A TraceConfig for one aiohttp session (a session freezes the configs it is given)."""
    import aiohttp

    config = aiohttp.TraceConfig()
    config.on_request_headers_sent.append(_on_headers_sent)
    config.on_request_chunk_sent.append(_on_chunk_sent)
    return config


async def httpcore_trace(event: str, _info: dict[str, Any]) -> None:
    """httpcore's `trace` request extension: stamps as the head is written."""
    if event.endswith("send_request_headers.started"):
        marker = _SENDING.get()
        if marker is not None:
            await _write_when_due(marker)
