"""Reading a streamed response body with as few layers as the transport allows.

Through the SDK's aiohttp transport every read of a body goes through five async iterators
(httpx's `aiter_bytes`, `aiter_raw` and bound stream, the vendored transport's stream, aiohttp's
`iter_chunked`), about a fifth of the client's CPU per streamed token at 64 streams
(benchmarks/results/stream_profile.md). When the body is aiohttp's and carries no content
encoding, `read` is aiohttp's own `read` instead: the same pieces (at most the transport's 16 KiB
each, so the caps of sse.py see what they saw before) in the same order, aiohttp's errors mapped
to httpx's exactly as the transport maps them. Anything else (the httpx transport,
a compressed body, a wrapped stream) is read through httpx as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx2

# what is read of a body after its stream's last event ([DONE]) to keep its connection
DRAIN_S = 0.05
DRAIN_BYTES = 64 * 1024


def _aiohttp_content(response: httpx2.Response) -> Any:
    """The aiohttp body (a StreamReader) behind `response`, or None when it must go through
    httpx: not the vendored transport's stream, or a content encoding httpx would decode."""
    if response.headers.get("content-encoding", "identity").strip().lower() not in (
        "",
        "identity",
    ):
        return None
    from openai._vendor.httpx_aiohttp.transport import AiohttpResponseStream

    inner = getattr(response.stream, "_stream", None)  # httpx's bound stream wraps the transport's
    if type(inner) is not AiohttpResponseStream:
        return None
    return inner._aiohttp_response.content


class BodyReader:
    """`await reader.read()`: the next bytes of the body, b"" at its end; reads inside
    `with reader.errors():`, which raises aiohttp's errors as the httpx errors the transport
    would raise (errors.py classifies those); `aclose` when done."""

    def __init__(self, response: httpx2.Response) -> None:
        content = _aiohttp_content(response)
        self._iterator: AsyncIterator[bytes] | None = None
        self._direct = content is not None
        if content is not None:
            from openai._vendor.httpx_aiohttp.transport import AiohttpResponseStream

            # aiohttp's own read, as the transport makes it (at most 16 KiB), with no wrapper
            # of ours around it: one await level less at every token
            self.read: Callable[[], Awaitable[bytes]] = functools.partial(
                content.read, AiohttpResponseStream.CHUNK_SIZE
            )
        else:
            self._iterator = response.aiter_bytes()
            self.read = self._next

    def errors(self) -> contextlib.AbstractContextManager[None]:
        if not self._direct:
            return contextlib.nullcontext()  # httpx raises its own errors
        from openai._vendor.httpx_aiohttp.transport import map_aiohttp_exceptions

        return map_aiohttp_exceptions()  # only aiohttp's errors: any other passes unchanged

    async def _next(self) -> bytes:
        assert self._iterator is not None
        try:
            return await self._iterator.__anext__()
        except StopAsyncIteration:
            return b""

    async def aclose(self) -> None:
        if self._iterator is not None:
            await self._iterator.aclose()  # type: ignore[attr-defined]


async def drain(response: httpx2.Response) -> None:
    """Read the rest of an aiohttp body whose stream already ended (its [DONE] came) up to the
    body's end (chunked encoding's last chunk), briefly and boundedly. aiohttp closes a
    connection released before its body's end instead of keeping it: the next request then paid
    a new TCP connection (seen: a connection in ten requests of an open-loop run at 50 req/s,
    each ~1-2 ms of the loop taken from requests due). A body that does not end within
    `DRAIN_S` or `DRAIN_BYTES` is closed as before."""
    content = _aiohttp_content(response)
    if content is None or content.at_eof():
        return
    left = DRAIN_BYTES
    with contextlib.suppress(Exception):  # only a kept connection is at stake
        async with asyncio.timeout(DRAIN_S):
            while left > 0 and not content.at_eof():
                piece = await content.read(left)
                if not piece:
                    return
                left -= len(piece)
