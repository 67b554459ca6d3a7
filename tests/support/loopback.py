"""Loopback helpers for tests that run the real CLI in a subprocess while a server of the test's
own answers on 127.0.0.1: an event loop in a background thread, and a tiny HTTP proxy that
demands a Proxy-Authorization password (forward requests for http://, CONNECT for https://).

Everything is bounded: request heads are read with a size limit, every connection has a time
limit, and the thread's loop stops when the `with` block ends.
"""

from __future__ import annotations

import asyncio
import base64
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

from aiohttp import web

T = TypeVar("T")

_HEAD_LIMIT = 64 * 1024
_CONNECTION_LIMIT_S = 30.0


class ThreadedLoop:
    """An asyncio loop on a daemon thread; `run` executes a coroutine there and waits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> ThreadedLoop:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)


@asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[str]:
    """`app` on 127.0.0.1 at a free port, on the running loop; yields its `/v1` base URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        await runner.cleanup()


@contextmanager
def serving_in_thread(app: web.Application) -> Iterator[str]:
    """The same on a loop of its own thread, for tests that run the CLI as a subprocess."""
    with ThreadedLoop() as background:
        served = serving(app)
        base_url = background.run(served.__aenter__())
        try:
            yield base_url
        finally:
            background.run(served.__aexit__(None, None, None))


class AuthProxy:
    """An HTTP proxy on 127.0.0.1 that answers 407 unless Proxy-Authorization carries
    Basic base64(user:password); counts what it let through and what it refused."""

    def __init__(self, user: str, password: str) -> None:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.expected = f"Basic {token}"
        self.allowed = 0
        self.refused = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> AuthProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_HEAD_LIMIT)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(_CONNECTION_LIMIT_S):
                await self._one(reader, writer)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *lines = head.split("\r\n")
        method, target, _version = request_line.split(" ", 2)
        headers = [line for line in lines if line]
        auth = next(
            (v.strip() for k, _, v in (h.partition(":") for h in headers)
             if k.strip().lower() == "proxy-authorization"),
            None,
        )  # fmt: skip
        if auth != self.expected:
            self.refused += 1
            writer.write(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'Proxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n'
                b"Connection: close\r\n\r\n"
            )
            await writer.drain()
            return
        self.allowed += 1
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            parts = urlsplit(target)
            up_reader, up_writer = await asyncio.open_connection(parts.hostname, parts.port)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            keep = [h for h in headers if not h.lower().startswith(("proxy-", "connection"))]
            forwarded = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{h}\r\n" for h in keep)
            up_writer.write((forwarded + "Connection: close\r\n\r\n").encode("latin-1"))
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()
