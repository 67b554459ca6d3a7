"""A hostile OpenAI-compatible server on 127.0.0.1: every way a server can break the wire.

Raw asyncio sockets, so that it can also break HTTP itself (bad chunked encoding, a reset after
the headers, thousands of headers). The model id of a chat request picks the behaviour: `ok` is
a healthy stream, every other name in MODES is one hostile case, so one server serves a healthy
and a hostile model in the same run. `GET /v1/models` lists them all.

Bounded in time and bytes: every endless mode stops itself after `max_seconds` or `max_bytes`,
whichever comes first, and closes the connection; the caps of the client under test are far
below those bounds. Redirects point at a second listener (another port) that answers any
method with a healthy stream, so following one would look like a success.

`python tests/support/hostile_server.py [--max-seconds S] [--max-mib N] [--everything MODE]`
runs it in the foreground and prints its base URL, for trying a case by hand
(`workbench bench --base-url URL --model ok --model endless`).

Every sleep here is a misbehaviour itself (a pause before a reset, silence on an open
connection), never a test waiting for something to happen.
"""

from __future__ import annotations

import asyncio
import functools
import json
import socket
import struct
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

TOKEN = "tok "
MiB = 1 << 20


def chunk_json(
    content: str | None = None,
    *,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    role: str | None = None,
    cid: Any = "chatcmpl-hostile",
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    body: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "model": "m"}
    body["choices"] = (
        [] if usage is not None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    )
    if usage is not None:
        body["usage"] = usage
    return body


def event(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}\n\n".encode()


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def max_tokens(self) -> int:
        value = self.body.get("max_tokens")
        return value if isinstance(value, int) and 0 < value <= 4096 else 16


class Conn:
    """One client connection: helpers to write an HTTP response in good or bad ways."""

    def __init__(self, writer: asyncio.StreamWriter, server: HostileServer) -> None:
        self.writer = writer
        self.server = server
        self.chunked = False
        self.sent = 0
        self.started = time.monotonic()

    @property
    def exhausted(self) -> bool:
        """An endless mode stops here: a few seconds or a few MB, whichever first."""
        return (
            self.sent >= self.server.max_bytes
            or time.monotonic() - self.started >= self.server.max_seconds
        )

    async def head(
        self,
        status: int = 200,
        reason: str = "OK",
        headers: dict[str, str] | None = None,
        *,
        content_type: str = "text/event-stream",
        chunked: bool = True,
        raw: bytes = b"",
    ) -> None:
        lines = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}"]
        lines.append("Connection: close")
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write("\r\n".join(lines).encode() + b"\r\n\r\n" + raw)
        self.chunked = chunked
        await self.writer.drain()

    async def body(self, data: bytes) -> None:
        if self.chunked:
            data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
        self.sent += len(data)
        self.writer.write(data)
        await self.writer.drain()

    async def end(self) -> None:
        if self.chunked:
            self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()
        self.writer.close()

    def reset(self) -> None:
        """Close with a TCP RST (SO_LINGER 0) instead of an orderly FIN."""
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()

    async def json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        extra = {"Content-Length": str(len(data)), **(headers or {})}
        await self.head(
            status, "X", extra, content_type="application/json", chunked=False, raw=data
        )
        self.writer.close()


Mode = Callable[[Conn, Request], Awaitable[None]]
USAGE = {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}


async def healthy(conn: Conn, req: Request, *, chunked: bool = True, delay: float = 0.0) -> None:
    """A correct stream: role chunk, max_tokens tokens, finish_reason, usage, [DONE]."""
    await conn.head(chunked=chunked)
    await conn.body(event(chunk_json("", role="assistant")))
    n = req.max_tokens
    for i in range(n):
        if delay:
            await asyncio.sleep(delay)
        await conn.body(event(chunk_json(TOKEN, finish="length" if i == n - 1 else None)))
    usage = {"prompt_tokens": 20, "completion_tokens": n, "total_tokens": 20 + n}
    await conn.body(event(chunk_json(usage=usage)) + event("[DONE]"))
    await conn.end()


async def _tokens_then(conn: Conn, n: int, *, chunked: bool) -> None:
    await conn.head(chunked=chunked)
    await conn.body(event(chunk_json("", role="assistant")))
    for _ in range(n):
        await conn.body(event(chunk_json(TOKEN)))


async def truncated(conn: Conn, req: Request) -> None:
    """Three tokens, then the connection closes cleanly: no finish_reason, no [DONE]."""
    await _tokens_then(conn, 3, chunked=False)
    await conn.end()


async def truncated_chunked(conn: Conn, req: Request) -> None:
    """Three tokens and a proper end of the chunked body, but no finish_reason or [DONE]."""
    await _tokens_then(conn, 3, chunked=True)
    await conn.end()


async def _cut_mid_event(conn: Conn, req: Request, *, chunked: bool) -> None:
    """Three tokens, then half of a fourth chunk's JSON, and the body ends (a proxy's cut)."""
    await _tokens_then(conn, 3, chunked=chunked)
    await conn.body(event(chunk_json(TOKEN))[:40])
    await conn.end()


async def cut_mid_event(conn: Conn, req: Request) -> None:
    await _cut_mid_event(conn, req, chunked=False)


async def cut_mid_event_chunked(conn: Conn, req: Request) -> None:
    await _cut_mid_event(conn, req, chunked=True)


async def finish_without_done(conn: Conn, req: Request) -> None:
    """A finish_reason but no [DONE] (some servers do this): complete, not truncated."""
    await _tokens_then(conn, 3, chunked=True)
    await conn.body(event(chunk_json("", finish="stop")) + event(chunk_json(usage=USAGE)))
    await conn.end()


async def endless(conn: Conn, req: Request, *, delay: float = 0.0) -> None:
    """Tokens forever (until the server's own bound), never finishing."""
    await conn.head()
    await conn.body(event(chunk_json("", role="assistant")))
    batch = event(chunk_json(TOKEN)) * (1 if delay else 64)
    while not conn.exhausted:
        await conn.body(batch)
        await asyncio.sleep(delay)
    await conn.end()


async def endless_slow(conn: Conn, req: Request) -> None:
    await endless(conn, req, delay=0.25)


async def empty_deltas(conn: Conn, req: Request) -> None:
    """One token, then empty deltas as fast as the socket takes them: bytes but no text."""
    await _tokens_then(conn, 1, chunked=True)
    batch = event(chunk_json("")) * 256
    while not conn.exhausted:
        await conn.body(batch)
        await asyncio.sleep(0)
    await conn.end()


async def long_line(conn: Conn, req: Request) -> None:
    """One `data:` line that never ends (the 400 MB line, up to the server's own bound)."""
    await conn.head()
    await conn.body(b"data: " + b"x" * (64 * 1024))
    while not conn.exhausted:
        await conn.body(b"x" * (64 * 1024))
    await conn.end()


async def big_event(conn: Conn, req: Request) -> None:
    """One event of endless `data:` lines, each short (256 KiB), never a blank line."""
    await conn.head()
    line = b"data: " + b"y" * (256 * 1024) + b"\n"
    while not conn.exhausted:
        await conn.body(line)
    await conn.end()


async def fat_tokens(conn: Conn, req: Request) -> None:
    """Few events, each 128 KiB of text: the body outgrows max_tokens long before the count."""
    await conn.head()
    fat = event(chunk_json("z" * (128 * 1024)))
    for _ in range(64):
        if conn.exhausted:
            break
        await conn.body(fat)
    await conn.end()


def _bad_usage(value: Any) -> Mode:
    async def mode(conn: Conn, req: Request) -> None:
        await _tokens_then(conn, 3, chunked=True)
        usage = {"prompt_tokens": 20, "completion_tokens": value, "total_tokens": 23}
        await conn.body(event(chunk_json("", finish="stop")) + event(chunk_json(usage=usage)))
        await conn.body(event("[DONE]"))
        await conn.end()

    return mode


def _bad_chunk(payload: dict[str, Any]) -> Mode:
    async def mode(conn: Conn, req: Request) -> None:
        await _tokens_then(conn, 1, chunked=True)
        await conn.body(event(payload) + event(chunk_json("", finish="stop")) + event("[DONE]"))
        await conn.end()

    return mode


async def reset_after_headers(conn: Conn, req: Request) -> None:
    await conn.head()
    await asyncio.sleep(0.05)
    conn.reset()


async def reset_close_delimited(conn: Conn, req: Request) -> None:
    """Headers of a close-delimited body, then a reset: aiohttp reads that as a clean end."""
    await conn.head(chunked=False)
    await asyncio.sleep(0.05)
    conn.reset()


async def keepalive_then_end(conn: Conn, req: Request) -> None:
    """Keep-alive comments during a long prefill, then the body ends: cut before any event."""
    await conn.head()
    for _ in range(3):
        await conn.body(b": keep-alive\n\n")
    await conn.end()


async def json_body(conn: Conn, req: Request) -> None:
    """A whole non-streamed completion, as a server that ignores `stream: true` sends it."""
    message = {"role": "assistant", "content": "not a stream"}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    await conn.json(200, {"id": "x", "object": "chat.completion", "choices": [choice]})


async def reset_mid_stream(conn: Conn, req: Request) -> None:
    await _tokens_then(conn, 2, chunked=True)
    await asyncio.sleep(0.05)
    conn.reset()


async def bad_chunked(conn: Conn, req: Request) -> None:
    """A chunk size that is not hexadecimal, in a read of its own after the first event (the
    case aiohttp once left waiting), then silence (the connection stays open)."""
    await conn.head()
    await conn.body(event(chunk_json("", role="assistant")))
    await asyncio.sleep(0.05)
    conn.writer.write(b"zz-not-hex\r\nhello\r\n")
    await conn.writer.drain()
    await asyncio.sleep(min(3.0, conn.server.max_seconds))
    conn.writer.close()


async def bad_chunked_at_once(conn: Conn, req: Request) -> None:
    """The headers, a first event and a bad chunk size in one write."""
    role = event(chunk_json("", role="assistant"))
    body = f"{len(role):x}\r\n".encode() + role + b"\r\nzz-not-hex\r\n"
    await conn.head(raw=body)
    await asyncio.sleep(min(3.0, conn.server.max_seconds))
    conn.writer.close()


async def too_many_headers(conn: Conn, req: Request) -> None:
    await conn.head(headers={f"X-Filler-{i}": "v" for i in range(8000)})
    await asyncio.sleep(min(3.0, conn.server.max_seconds))
    conn.writer.close()


async def long_header(conn: Conn, req: Request) -> None:
    await conn.head(headers={"X-Long": "v" * (512 * 1024)})
    await asyncio.sleep(min(3.0, conn.server.max_seconds))
    conn.writer.close()


def _redirect(status: int) -> Mode:
    async def mode(conn: Conn, req: Request) -> None:
        location = f"{conn.server.elsewhere_url}/chat/completions"
        await conn.head(
            status, "Moved", {"Location": location, "Content-Length": "0"}, chunked=False
        )
        conn.writer.close()

    return mode


async def rate_limited(conn: Conn, req: Request) -> None:
    await conn.json(429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "1"})


async def huge_error(conn: Conn, req: Request) -> None:
    """A 500 whose body never ends (until the server's bound)."""
    await conn.head(500, "Oops", content_type="application/json")
    await conn.body(b'{"error": {"message": "boom ' + b"!" * 1000)
    while not conn.exhausted:
        await conn.body(b"!" * (64 * 1024))
    await conn.end()


GZIP_BOMB_BYTES = 200 * 1024 * 1024  # what the gzip bomb inflates to


@functools.cache
def gzip_bomb() -> bytes:
    """GZIP_BOMB_BYTES of spaces after a JSON error's start, gzipped to about 200 KB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    parts = [packer.compress(b'{"error": {"message": "boom')]
    block = b" " * (1024 * 1024)
    parts += [packer.compress(block) for _ in range(GZIP_BOMB_BYTES // len(block))]
    return b"".join(parts) + packer.flush()


async def gzip_bomb_500(conn: Conn, req: Request) -> None:
    """A 500 whose gzip body inflates to 200 MB (sent whole, with its length)."""
    data = gzip_bomb()
    headers = {"Content-Encoding": "gzip", "Content-Length": str(len(data))}
    await conn.head(500, "Oops", headers, content_type="application/json", chunked=False)
    await conn.body(data)
    await conn.end()


async def html_endless(conn: Conn, req: Request) -> None:
    """A 200 with an HTML page that never ends (a captive portal gone wrong)."""
    await conn.head(content_type="text/html")
    await conn.body(b"<!DOCTYPE html><html><body>")
    while not conn.exhausted:
        await conn.body(b"<p>login</p>" * 4096)
    await conn.end()


async def raw_body(conn: Conn, req: Request) -> None:
    """Whatever `server.raw_pieces` holds, written piece by piece as one body (the property
    test's arbitrary bytes); chunked or close-delimited as `server.raw_chunked` says."""
    await conn.head(chunked=conn.server.raw_chunked)
    for piece in conn.server.raw_pieces:
        if piece:
            await conn.body(piece)
    await conn.end()


async def _ok(conn: Conn, req: Request) -> None:
    await healthy(conn, req)


async def _ok_close_delimited(conn: Conn, req: Request) -> None:
    await healthy(conn, req, chunked=False)


MODES: dict[str, Mode] = {
    "ok": _ok,
    "ok-close-delimited": _ok_close_delimited,
    "finish-without-done": finish_without_done,
    "truncated": truncated,
    "truncated-chunked": truncated_chunked,
    "cut-mid-event": cut_mid_event,
    "cut-mid-event-chunked": cut_mid_event_chunked,
    "endless": endless,
    "endless-slow": endless_slow,
    "empty-deltas": empty_deltas,
    "long-line": long_line,
    "big-event": big_event,
    "fat-tokens": fat_tokens,
    "usage-string": _bad_usage("5"),
    "usage-huge": _bad_usage(2**70),
    "usage-negative": _bad_usage(-3),
    "usage-float": _bad_usage(4.5),
    "usage-bool": _bad_usage(True),
    "usage-overrun": _bad_usage(100_000),
    "id-object": _bad_chunk(chunk_json(TOKEN, cid={"nested": 1})),
    "choices-null": _bad_chunk({"id": "x", "choices": [None]}),
    "delta-string": _bad_chunk({"id": "x", "choices": [{"index": 0, "delta": "hi"}]}),
    "content-number": _bad_chunk({"id": "x", "choices": [{"index": 0, "delta": {"content": 7}}]}),
    "reset-after-headers": reset_after_headers,
    "reset-close-delimited": reset_close_delimited,
    "json-body": json_body,
    "keepalive-then-end": keepalive_then_end,
    "reset-mid-stream": reset_mid_stream,
    "bad-chunked": bad_chunked,
    "bad-chunked-at-once": bad_chunked_at_once,
    "too-many-headers": too_many_headers,
    "long-header": long_header,
    "redirect-301": _redirect(301),
    "redirect-302": _redirect(302),
    "redirect-307": _redirect(307),
    "redirect-308": _redirect(308),
    "rate-limited": rate_limited,
    "huge-error": huge_error,
    "gzip-bomb-500": gzip_bomb_500,
    "html-endless": html_endless,
    "raw-body": raw_body,
}


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    length = min(int(headers.get("content-length", "0") or 0), MiB)
    raw = await reader.readexactly(length) if length else b""
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        body = {}
    return Request(method, path, headers, body if isinstance(body, dict) else {})


@dataclass(frozen=True)
class Served:
    model: str
    sent: int
    seconds: float


@dataclass
class HostileServer:
    """Both listeners on 127.0.0.1; `requests` records (listener, method, path, model), and
    `served` each answered chat request: model, body bytes written, seconds until it ended.

    `everything`: a mode that answers every request, whatever its method, path or model (a
    server that streams forever even to `GET /models`, as the doctor must survive).
    """

    everything: str | None = None
    raw_pieces: list[bytes] = field(default_factory=list)
    raw_chunked: bool = True
    max_seconds: float = 4.0
    max_bytes: int = 24 * MiB
    port: int = 0
    elsewhere_port: int = 0
    requests: list[tuple[str, str, str, str]] = field(default_factory=list)
    served: list[Served] = field(default_factory=list)
    bytes_sent: int = 0  # body bytes written on every connection that has ended
    _servers: list[asyncio.Server] = field(default_factory=list)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def elsewhere_url(self) -> str:
        return f"http://127.0.0.1:{self.elsewhere_port}/v1"

    async def _handle(self, listener: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        served: tuple[str, Conn] | None = None
        try:
            req = await _read_request(reader)
            if req is None:
                return
            self.requests.append((listener, req.method, req.path, req.model))
            conn = Conn(writer, self)
            served = (req.model, conn)
            if listener == "elsewhere":
                await healthy(conn, req)
            elif self.everything is not None:
                await MODES[self.everything](conn, req)
            elif req.method == "GET" and req.path.endswith("/models"):
                ids = [{"id": m, "object": "model", "owned_by": "hostile"} for m in MODES]
                await conn.json(200, {"object": "list", "data": ids})
            elif req.method == "POST" and req.path == "/v1/chat/completions":
                mode = MODES.get(req.model)
                if mode is None:
                    await conn.json(404, {"error": {"message": f"model {req.model} not found"}})
                else:
                    await mode(conn, req)
            else:
                await conn.json(404, {"error": {"message": "Not Found"}})
        except (ConnectionError, OSError):
            pass  # the client gave up on us: exactly what most modes are for
        except asyncio.CancelledError:
            pass  # stop() ends every connection still open
        finally:
            self._tasks.discard(task)
            writer.close()
            if served is not None:
                model, conn = served
                self.bytes_sent += conn.sent
                if listener == "main" and model:
                    self.served.append(Served(model, conn.sent, time.monotonic() - conn.started))

    async def start(self) -> HostileServer:
        for name in ("main", "elsewhere"):
            server = await asyncio.start_server(
                lambda r, w, n=name: self._handle(n, r, w), "127.0.0.1", 0
            )
            self._servers.append(server)
        self.port = self._servers[0].sockets[0].getsockname()[1]
        self.elsewhere_port = self._servers[1].sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for server in self._servers:
            try:
                await asyncio.wait_for(server.wait_closed(), 2)
            except TimeoutError:
                pass
        self._servers.clear()

    async def __aenter__(self) -> HostileServer:
        return await self.start()

    async def __aexit__(self, *_exc: object) -> None:
        await self.stop()


@contextmanager
def hostile_server_thread(**kwargs: Any) -> Iterator[HostileServer]:
    """The server on its own loop in a thread, for code that runs `asyncio.run` itself (the
    CLI called in-process)."""
    loop = asyncio.new_event_loop()
    server = HostileServer(**kwargs)
    ready = threading.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(server.stop())
        loop.close()

    thread = threading.Thread(target=serve, name="hostile-server", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the hostile server did not start")
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def _main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="the hostile server on 127.0.0.1, by hand")
    parser.add_argument("--max-seconds", type=float, default=10.0, help="bound of endless modes")
    parser.add_argument("--max-mib", type=int, default=24, help="bound of endless modes, MiB")
    parser.add_argument("--everything", choices=sorted(MODES), help="one mode for every request")
    args = parser.parse_args()

    async def serve() -> None:
        server = HostileServer(args.everything, args.max_seconds, args.max_mib * MiB)
        async with server:
            print(server.base_url, flush=True)
            await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    _main()
