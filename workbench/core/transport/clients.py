"""One AsyncOpenAI client per (base URL, key, transport, connection options) on the running loop.

The SDK's own retries are switched off (`max_retries=0`): a re-sent request would hide a failure
and skew timing. Read timeouts are ours (first-token and stall watchdogs in streaming.py); the
SDK keeps only a connect timeout.

Connection options per provider (`ClientOptions`, made from a saved provider by
`provider_connection.connect`, the one path for both faces): extra headers, a proxy choice and
TLS verification. Proxy choice:
- `system`: the environment's HTTP(S)_PROXY / ALL_PROXY / NO_PROXY, except that a loopback base
  URL always goes direct: a global proxy must not break a local server;
- `none`: direct, whatever the environment says;
- `url`: that proxy, for this provider only.
The decision is `proxy_route.route_for`'s, the one the doctor reports; the client applies it by
mounting one proxy transport for `all://` (httpx's public `mounts=`), with `trust_env` off so
that neither httpx nor aiohttp reads the environment on its own.

Redirects are never followed: a 301/302 would turn the POST into a GET (and a 307/308 would
send the key to another address); the answer becomes a classified `redirect` error that names
the new address. Bodies that are not a stream are capped (`bound_body`): an error answer is read
up to MAX_ERROR_BODY_BYTES (the rest is dropped unread), a successful GET (a model list) up to
MAX_BODY_BYTES (beyond that the request fails as `oversized`). A key or header value HTTP
cannot carry (a line break, a non-ASCII character) is refused before anything is sent.

Transports: the vendored aiohttp transport (`openai._vendor.httpx_aiohttp`) is an
`httpx2.AsyncClient` subclass; a proxied client mounts an `AiohttpTransport(proxy=...)` (or, for
httpx, an `AsyncHTTPTransport(proxy=...)`) wrapped so that a dead proxy is named. aiohttp's own
session never reads the environment. It cannot speak SOCKS: for a SOCKS proxy (explicit, or from
the environment under `system`) this client falls back to the httpx transport, which needs the
optional `socksio` package.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
import statistics
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

import httpx2

from workbench.core.access.keys import NO_KEY
from workbench.core.access.providers import ProxyChoice, mask_url_password
from workbench.core.access.proxy_route import route_for
from workbench.core.foundation.errors import Oversized, UnsendableHeader
from workbench.core.transport.send_stamp import aiohttp_trace_config, httpcore_trace

if TYPE_CHECKING:
    import aiohttp
    import openai
    from openai._vendor.httpx_aiohttp import AiohttpTransport


Transport = Literal["httpx", "aiohttp"]

CONNECT_TIMEOUT_S = 10.0
MAX_ERROR_BODY_BYTES = 64 << 10  # of an error answer (status >= 300): the rest is not read
MAX_BODY_BYTES = 8 << 20  # of a successful GET (a /models list: ~1 MB for 400 models)
BASELINE_TIMEOUT_S = 10.0  # one GET /models round trip of the network baseline, in all
MAX_WARM_CONNECTIONS = 256  # connections opened ahead of a run, per client
WARM_CONNECTIONS_TIMEOUT_S = 10.0  # opening them, in all


_DIRECT_OR_SYSTEM = ProxyChoice()


class ProxyUnsupported(ValueError):
    """The proxy asked for cannot be used here (a SOCKS proxy without `socksio`)."""


@dataclass(frozen=True)
class ClientOptions:
    """How to reach one provider; hashable so the pool can key clients by it."""

    headers: tuple[tuple[str, str], ...] = ()
    proxy: ProxyChoice = _DIRECT_OR_SYSTEM
    verify_tls: bool = True
    connect_timeout_s: float = CONNECT_TIMEOUT_S

    @classmethod
    def create(
        cls,
        headers: dict[str, str] | None = None,
        proxy: ProxyChoice | None = None,
        verify_tls: bool = True,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> ClientOptions:
        return cls(
            tuple(sorted((headers or {}).items())),
            proxy or ProxyChoice(),
            verify_tls,
            connect_timeout_s,
        )


@dataclass(frozen=True)
class Route:
    """What `make_client` decided for one base URL: the transport, and the proxy it connects
    through (None: direct) with the words of `proxy_route.route_for`, which the doctor shows."""

    transport: Transport
    proxy_url: str | None  # the proxy the client mounts for every request, or None
    note: str

    def describe(self) -> str:
        return self.note


def plan_route(base_url: str, proxy: ProxyChoice | None, transport: Transport) -> Route:
    """How a client for `base_url` connects under `proxy`, without creating it."""
    proxy = proxy or ProxyChoice()
    if proxy.mode == "url" and not proxy.url.strip():
        raise ProxyUnsupported("proxy mode 'url' needs a proxy URL like http://proxy:3128")
    decided = route_for(base_url, proxy)
    chosen: Transport = "httpx" if decided.socks else transport  # aiohttp cannot speak SOCKS
    return Route(chosen, decided.proxy, decided.reason)


def _proxy_transport(route: Route, verify: ssl.SSLContext) -> httpx2.AsyncBaseTransport:
    """The transport that carries every request of a client through `route.proxy_url`, built as
    the SDK's client would build it for `proxy=` (same limits), so it can be wrapped to name the
    proxy before it is mounted."""
    import openai
    from openai._vendor.httpx_aiohttp import AiohttpTransport

    assert route.proxy_url is not None
    limits = openai.DEFAULT_CONNECTION_LIMITS
    if route.transport == "httpx":
        return httpx2.AsyncHTTPTransport(verify=verify, limits=limits, proxy=route.proxy_url)
    inner = AiohttpTransport(
        verify=verify, limits=limits, proxy=httpx2.Proxy(route.proxy_url), trust_env=False
    )
    inner.client = functools.partial(_traced_session, inner)  # as _trace_sends does
    return inner


class _NamedProxyTransport(httpx2.AsyncBaseTransport):
    """Wraps a proxy's transport so that failing to reach the proxy says so, naming it.

    Without this a refused proxy reads as "cannot connect to 127.0.0.1:3128" (or, through the
    aiohttp transport, as a timeout), and the user looks at the wrong server. The original
    exception stays in `__context__`; `from None` keeps the proxy message as the root cause that
    errors.classify_exception reports.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport, proxy_url: str) -> None:
        self.inner = inner
        self.proxy_url = mask_url_password(proxy_url)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return await self.inner.handle_async_request(request)
        except (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.ProxyError) as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise httpx2.ProxyError(
                f"cannot reach or use the proxy {self.proxy_url} for "
                f"{request.url.scheme}://{request.url.netloc.decode()} ({detail})",
                request=request,
            ) from None

    async def aclose(self) -> None:
        await self.inner.aclose()


def check_headers(api_key: str | None, headers: dict[str, str] | None = None) -> None:
    """Raise UnsendableHeader when the key or a header value cannot go into an HTTP header.

    The message names the header and the kind of character, never the value itself.
    """
    values = [("the API key", api_key or "")]
    values += [(f"the header {name!r}", value) for name, value in (headers or {}).items()]
    for what, value in values:
        if any(c in value for c in "\r\n\0"):
            problem = "a line break or NUL character"
        elif not value.isascii():
            problem = "a non-ASCII character (a full-width space, a curly quote, CJK text?)"
        else:
            continue
        raise UnsendableHeader(f"{what} contains {problem}")


class _CappedBody(httpx2.AsyncByteStream):
    """A response body read no further than `cap` bytes: cut short quietly (an error answer,
    of which only the start is shown) or failing with Oversized (anything else)."""

    def __init__(self, inner: httpx2.AsyncByteStream, cap: int, quiet: bool) -> None:
        self.inner = inner
        self.cap = cap
        self.quiet = quiet

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for piece in self.inner:
            if seen + len(piece) > self.cap:
                if not self.quiet:
                    raise Oversized(
                        f"the response body passed {self.cap} bytes, the cap for an answer "
                        "that is not a stream; stopped reading"
                    )
                yield piece[: self.cap - seen]
                return
            seen += len(piece)
            yield piece

    async def aclose(self) -> None:
        await self.inner.aclose()


_INFLATED = ("gzip", "x-gzip", "deflate")


class _Inflated(httpx2.AsyncByteStream):
    """A gzip or deflate error body inflated no further than `cap` bytes, a read at a time.

    httpx inflates each read whole: 200 KB of a gzip bomb in one read became 190 MB before the
    cap on what is kept could apply. A body that is not what its encoding says ends quietly:
    only the start of an error answer is ever shown."""

    def __init__(self, inner: httpx2.AsyncByteStream, cap: int, encoding: str) -> None:
        self.inner = inner
        self.cap = cap
        self.encoding = encoding

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # gzip's header, or zlib's; a bare deflate stream (no header) is tried if zlib's fails
        inflater = zlib.decompressobj(31 if "gzip" in self.encoding else 15)
        left, started = self.cap, False
        async for piece in self.inner:
            data = piece
            while data and left > 0:
                try:
                    out = inflater.decompress(data, left)
                except zlib.error:
                    if started or "gzip" in self.encoding:
                        return
                    inflater, started = zlib.decompressobj(-15), True
                    continue
                started = True
                left -= len(out)
                data = inflater.unconsumed_tail
                if out:
                    yield out
            if left <= 0 or inflater.eof:
                return

    async def aclose(self) -> None:
        await self.inner.aclose()


def _watch_aiohttp_body(response: httpx2.Response) -> None:
    """Make a broken chunk reach the body that waits for it (aiohttp transport only).

    aiohttp (3.14) hands a chunked-encoding error that arrives after the headers to the
    connection, not to the body: the body then waits for data forever, and a bad chunk reads as
    a stall. When the connection closes while the body is still open, this gives the body the
    connection's error (or a dropped connection). Reaching the aiohttp response goes through
    two private attributes (httpx's bound stream, the vendored transport's stream); where they
    are missing (the httpx transport) nothing is done.
    """
    import aiohttp

    aio = getattr(getattr(response.stream, "_stream", None), "_aiohttp_response", None)
    connection = getattr(aio, "connection", None)
    protocol = getattr(connection, "protocol", None)
    closed = getattr(protocol, "closed", None)
    if aio is None or connection is None or protocol is None or closed is None:
        return
    content = aio.content

    def on_close(future: asyncio.Future[None]) -> None:
        if not future.cancelled():
            future.exception()  # retrieved: no "never retrieved" warning
        if content.is_eof() or content.exception() is not None:
            return
        error = protocol.exception() or aiohttp.ClientPayloadError(
            "the connection closed before the body ended"
        )
        content.set_exception(error)

    closed.add_done_callback(on_close)
    connection.add_callback(lambda: closed.remove_done_callback(on_close))


async def bound_body(response: httpx2.Response) -> None:
    """httpx response hook: cap every body but a successful POST, the stream that
    streaming.py caps by max_tokens; watch the connection under every successful body."""
    if response.status_code < 300:
        _watch_aiohttp_body(response)
    if response.status_code >= 300:
        body = _async_body(response)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding in _INFLATED:  # inflated here within the cap, so httpx must not inflate it
            del response.headers["content-encoding"]
            body = _Inflated(body, MAX_ERROR_BODY_BYTES, encoding)
        response.stream = _CappedBody(body, MAX_ERROR_BODY_BYTES, quiet=True)
    elif response.request.method != "POST":  # GET /models, whatever its content type
        response.stream = _CappedBody(_async_body(response), MAX_BODY_BYTES, quiet=False)


def _async_body(response: httpx2.Response) -> httpx2.AsyncByteStream:
    # an AsyncClient's response body is always the async kind; httpx types it as either
    return cast(httpx2.AsyncByteStream, response.stream)


@functools.cache
def _ssl_context(verify_tls: bool) -> ssl.SSLContext:
    """One TLS context per setting (loading the CA bundle takes ~0.1 s); trust_env so that
    SSL_CERT_FILE / SSL_CERT_DIR apply even when trust_env is off for proxies."""
    return httpx2.create_ssl_context(verify=verify_tls, trust_env=True)


def warm_up() -> None:
    """Pay the one-off costs of the first request ahead of time, e.g. on a worker thread:
    importing the SDK (~1 s), its chat resources, and the default TLS context."""
    import openai.resources.chat.completions.completions  # noqa: F401

    _ssl_context(True)


def warm_client(client: openai.AsyncOpenAI) -> None:
    """Touch the SDK's lazy parts that the first request would otherwise pay for: the chat
    and models resources and `with_streaming_response` import ~20 ms of modules on first use,
    which used to land inside the first measured request of a run."""
    _ = client.chat.completions.with_streaming_response.create
    _ = client.models.list


async def open_connections(
    client: openai.AsyncOpenAI, count: int, timeout_s: float = WARM_CONNECTIONS_TIMEOUT_S
) -> int:
    """Open up to `count` keep-alive connections ahead of a run (at most MAX_WARM_CONNECTIONS),
    with that many `GET /models` at once; returns how many answered.

    A burst of requests then finds its connections open instead of paying TCP (and TLS) setup
    while the streams already running wait for the loop. Each GET keeps its response (and so its
    connection) until all have answered: a server that answers at once would otherwise hand the
    first connection back before the next GET, and fewer would be opened. Any failure only means
    fewer connections: the run's own requests report what is wrong.
    """
    count = max(0, min(count, MAX_WARM_CONNECTIONS))
    answered = 0
    all_answered = asyncio.Event()

    def one_more() -> None:
        nonlocal answered
        answered += 1
        if answered >= count:
            all_answered.set()

    # a GET that never answers does not cost the others their connections: they stop holding
    # theirs at half the time allowed, and read their answers (kept) before the end
    hold_until = asyncio.get_running_loop().time() + timeout_s / 2

    async def one() -> bool:
        counted = False
        try:
            async with client.models.with_streaming_response.list() as response:
                counted = True
                one_more()
                with contextlib.suppress(TimeoutError):  # taken until all are open
                    async with asyncio.timeout_at(hold_until):
                        await all_answered.wait()
                await response.read()
        except Exception:  # an error answer still leaves its connection open when read
            if not counted:
                one_more()
            return False
        return True

    tasks: list[asyncio.Task[bool]] = []
    try:
        async with asyncio.timeout(timeout_s):
            for _ in range(count):
                tasks.append(asyncio.create_task(one()))
                await asyncio.sleep(0)  # one request prepared per turn of the loop, as in a run
            await asyncio.gather(*tasks)
    except TimeoutError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return sum(t.result() for t in tasks if t.done() and not t.cancelled())


def _traced_session(transport: AiohttpTransport) -> aiohttp.ClientSession:
    """The session the vendored aiohttp transport would make, plus the trace that stamps the
    moment each request is written (send_stamp.py)."""
    import aiohttp

    limits = transport.limits
    connector = aiohttp.TCPConnector(
        keepalive_timeout=limits.keepalive_expiry,
        ssl=transport.ssl_context,
        limit=limits.max_connections or 0,  # 0: no limit, as httpx's None
    )
    return aiohttp.ClientSession(connector=connector, trace_configs=[aiohttp_trace_config()])


def _trace_sends(http_client: httpx2.AsyncClient) -> None:
    """Give every aiohttp transport of the client (direct and proxied) a traced session."""
    from openai._vendor.httpx_aiohttp import AiohttpTransport

    mounts = getattr(http_client, "_mounts", None)
    transports = [getattr(http_client, "_transport", None)]
    transports += list(mounts.values()) if isinstance(mounts, dict) else []
    for transport in transports:
        if isinstance(transport, AiohttpTransport) and transport.client is None:
            transport.client = functools.partial(_traced_session, transport)


async def _trace_request(request: httpx2.Request) -> None:
    """httpx request hook: httpcore reports the head's write through this extension."""
    request.extensions["trace"] = httpcore_trace


def make_client(
    base_url: str,
    api_key: str | None,
    transport: Transport = "aiohttp",
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
    *,
    headers: dict[str, str] | None = None,
    proxy: ProxyChoice | None = None,
    verify_tls: bool = True,
) -> openai.AsyncOpenAI:
    """An SDK client for one endpoint; see the module docstring for proxy and TLS choices.

    TLS verification is off only when `verify_tls=False` is asked for explicitly. Raises
    UnsendableHeader for a key or header that HTTP cannot carry.
    """
    import openai

    check_headers(api_key, headers)
    timeout = httpx2.Timeout(None, connect=connect_timeout_s)
    route = plan_route(base_url, proxy, transport)
    kwargs: dict[str, Any] = {
        "timeout": timeout,
        "trust_env": False,  # the proxy is route's decision, never httpx's own reading
        "verify": _ssl_context(verify_tls),
        "follow_redirects": False,
        "event_hooks": {"response": [bound_body]},
    }
    if route.transport == "httpx":
        kwargs["event_hooks"] = {"request": [_trace_request], "response": [bound_body]}
    try:
        if route.proxy_url:
            proxied = _proxy_transport(route, _ssl_context(verify_tls))
            kwargs["mounts"] = {"all://": _NamedProxyTransport(proxied, route.proxy_url)}
        if route.transport == "aiohttp":
            http_client: httpx2.AsyncClient = openai.DefaultAioHttpClient(**kwargs)
        else:
            http_client = openai.DefaultAsyncHttpxClient(**kwargs)
        _trace_sends(http_client)
    except ImportError as exc:  # httpx's SOCKS support is an optional extra
        raise ProxyUnsupported(
            f"a SOCKS proxy needs the 'socksio' package ({exc}); install it, "
            f"or use an HTTP proxy URL"
        ) from None
    return openai.AsyncOpenAI(
        base_url=base_url,
        api_key=api_key or NO_KEY,
        max_retries=0,
        timeout=timeout,
        http_client=http_client,
        default_headers=dict(headers) if headers else None,
    )


class _Refuse(httpx2.AsyncBaseTransport):
    """A transport that sends nothing: every request fails with the error given."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raise self.error


def _refusing_client(base_url: str, error: UnsendableHeader) -> openai.AsyncOpenAI:
    import openai

    http_client = httpx2.AsyncClient(transport=_Refuse(error))
    return openai.AsyncOpenAI(
        base_url=base_url, api_key=NO_KEY, max_retries=0, http_client=http_client
    )


class ClientPool:
    """Clients keyed by (base URL, key, transport, options); `aclose` before the loop closes.

    A key or header that HTTP cannot carry gets a client that sends nothing and fails every
    request as `invalid_key`, so that a run still ends with one row per request.

    The runner asks for `get(base_url, api_key)`; options registered for that base URL with
    `configure` (a saved provider's headers, proxy, TLS: provider_connection.connect) apply to
    those clients.
    """

    def __init__(self, transport: Transport = "aiohttp") -> None:
        self.transport: Transport = transport
        self._clients: dict[tuple[str, str | None, str, ClientOptions], openai.AsyncOpenAI] = {}
        self._options: dict[str, ClientOptions] = {}

    def configure(self, base_url: str, options: ClientOptions) -> None:
        """Use `options` for every client of `base_url` that `get` hands out from now on."""
        self._options[base_url.rstrip("/")] = options

    def options_for(self, base_url: str) -> ClientOptions:
        return self._options.get(base_url.rstrip("/"), ClientOptions())

    def get(
        self, base_url: str, api_key: str | None, options: ClientOptions | None = None
    ) -> openai.AsyncOpenAI:
        opts = options if options is not None else self.options_for(base_url)
        key = (base_url, api_key, self.transport, opts)
        client = self._clients.get(key)
        if client is None:
            try:
                client = make_client(
                    base_url,
                    api_key,
                    self.transport,
                    opts.connect_timeout_s,
                    headers=dict(opts.headers),
                    proxy=opts.proxy,
                    verify_tls=opts.verify_tls,
                )
                warm_client(client)  # the first measured request must not pay for it
            except UnsendableHeader as exc:  # each request becomes a classified row instead
                client = _refusing_client(base_url, exc)
            self._clients[key] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def network_baseline_ms(
    client: openai.AsyncOpenAI,
    samples: int = 3,
    timeout_s: float = BASELINE_TIMEOUT_S,
    list_once: Callable[[], Awaitable[object]] | None = None,
) -> float | None:
    """Median round trip of `GET /models`: the network and server overhead to subtract.

    Each round trip gets `timeout_s` in all: a list that trickles in forever is no baseline.
    `list_once`: the list as a protocol asks it (wire.model_page: its path and headers).
    """
    times: list[float] = []
    for _ in range(samples):
        start = time.perf_counter_ns()
        try:
            async with asyncio.timeout(timeout_s):
                await (list_once() if list_once is not None else client.models.list())
        except Exception:  # a server without /models has no baseline; the column stays empty
            return None
        times.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(times)
