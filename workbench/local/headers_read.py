"""When each request's headers were read off its connection, before its handler runs.

aiohttp parses a request in the connection's `data_received` and starts its handler as a task a
loop pass (or more, on a loop busy writing other streams) later. A stamp taken in the handler
counts that wait as the client's lateness; a stamp taken here does not. Each connection's
protocol is wrapped (`wrap`), and the stamps of the requests parsed from one read are queued for
that connection, taken in order as their handlers start (`take`): aiohttp handles a
connection's requests one after another, in the order they came.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any

# aiohttp's RequestHandler counts the requests it has parsed (a private field: without it no
# stamps are taken, and handlers fall back to their own start; tests/test_headers_read.py fails)
_COUNT = "_request_count"


class HeadersRead:
    """The stamps (time.perf_counter_ns()) of requests parsed but not yet handled, per
    connection."""

    def __init__(self) -> None:
        self._queued: dict[asyncio.BaseTransport, deque[int]] = {}

    def wrap(self, make: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """A protocol factory for loop.create_server: `make`'s protocols, stamped."""
        return lambda: _Stamping(make(), self)

    def take(self, transport: Any) -> int | None:
        """The stamp of the request whose handler starts now on this connection (None: not
        stamped, e.g. aiohttp no longer counts its requests)."""
        queued = self._queued.get(transport)
        return queued.popleft() if queued else None

    def _add(self, transport: asyncio.BaseTransport, t_ns: int, requests: int) -> None:
        self._queued.setdefault(transport, deque()).extend([t_ns] * requests)

    def _forget(self, transport: asyncio.BaseTransport) -> None:
        self._queued.pop(transport, None)

    def __len__(self) -> int:
        """Connections with a stamp still queued."""
        return sum(1 for q in self._queued.values() if q)


class _Stamping(asyncio.Protocol):
    """aiohttp's protocol for one connection, stamping each read that completes a request."""

    def __init__(self, inner: asyncio.Protocol, stamps: HeadersRead) -> None:
        self._inner = inner
        self._stamps = stamps
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        t_ns = time.perf_counter_ns()
        before = getattr(self._inner, _COUNT, None)
        self._inner.data_received(data)
        if before is None or self._transport is None:
            return
        parsed = getattr(self._inner, _COUNT) - before
        if parsed > 0:
            self._stamps._add(self._transport, t_ns, parsed)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._transport is not None:
            self._stamps._forget(self._transport)
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()
