"""Every way a server can break the wire, against the streaming engine: each case ends as one
classified row (or a success with honest numbers), quickly, with memory bounded.

The server is tests/hostile_server.py (raw sockets on 127.0.0.1, each mode bounded in time and
bytes); both HTTP transports the client offers are driven through the real openai SDK.
"""

from __future__ import annotations

import asyncio
import math
import time
import tracemalloc

import pytest
from hostile_server import MODES, HostileServer, Served

from workbench.core.foundation.errors import UnsendableHeader
from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.history.summary import summarize
from workbench.core.transport.clients import ClientPool, make_client, warm_up
from workbench.core.transport.streaming import (
    MAX_LINE_BYTES,
    RequestSpec,
    body_limit_bytes,
    default_total_timeout_s,
    stream_chat,
)

SPEC = RequestSpec(
    messages=[{"role": "user", "content": "hi"}],
    max_tokens=8,
    first_token_timeout_s=5,
    stall_timeout_s=5,
)
TRANSPORTS = ["aiohttp", "httpx"]


@pytest.fixture(scope="module", autouse=True)
def _sdk_imported() -> None:
    """Pay the SDK's one-off import (~1-2 s here) before anything is timed."""
    warm_up()


async def _stream(
    server: HostileServer, model: str, transport: str = "aiohttp", spec: RequestSpec = SPEC
) -> tuple[RequestResult, float]:
    client = make_client(server.base_url, None, transport)  # type: ignore[arg-type]
    start = time.monotonic()
    try:
        result = await stream_chat(client, RequestResult(model=model), spec)
    finally:
        await client.close()
    return result, time.monotonic() - start


async def _served(server: HostileServer, model: str, within_s: float = 3.0) -> Served:
    """The server's record of the request, once its handler has ended."""
    async with asyncio.timeout(within_s):
        while not any(s.model == model for s in server.served):
            await asyncio.sleep(0.02)
    return next(s for s in server.served if s.model == model)


# (mode, expected class, a phrase of the message): classified failures, both transports
FAILURES = [
    ("truncated", ErrorClass.TRUNCATED, "no [DONE] and no finish_reason"),
    ("truncated-chunked", ErrorClass.TRUNCATED, "no [DONE] and no finish_reason"),
    ("cut-mid-event", ErrorClass.TRUNCATED, "the body ended inside an event, after 3 text"),
    ("cut-mid-event-chunked", ErrorClass.TRUNCATED, "the body ended inside an event, after 3"),
    ("endless", ErrorClass.OVERRUN, "text events for max_tokens=8"),
    ("fat-tokens", ErrorClass.OVERRUN, "tokens of text for max_tokens=8"),
    ("usage-overrun", ErrorClass.OVERRUN, "reported 100000 completion tokens"),
    ("empty-deltas", ErrorClass.OVERSIZED, "the response body passed"),
    ("long-line", ErrorClass.OVERSIZED, "an SSE line passed"),
    ("big-event", ErrorClass.OVERSIZED, "an SSE event passed"),
    ("choices-null", ErrorClass.MALFORMED, "a choice is null"),
    ("delta-string", ErrorClass.MALFORMED, "a delta is a str"),
    ("content-number", ErrorClass.MALFORMED, "delta.content is a int"),
    ("json-body", ErrorClass.MALFORMED, "held no SSE `data:` event"),
    ("keepalive-then-end", ErrorClass.DROPPED, "before any stream event"),
    ("reset-after-headers", ErrorClass.DROPPED, ""),
    ("reset-close-delimited", ErrorClass.DROPPED, ""),
    ("reset-mid-stream", ErrorClass.DROPPED, ""),
    ("bad-chunked", ErrorClass.PROTOCOL, "broken HTTP response"),
    ("bad-chunked-at-once", ErrorClass.PROTOCOL, "broken HTTP response"),
    ("too-many-headers", ErrorClass.PROTOCOL, "broken HTTP response"),
    ("long-header", ErrorClass.PROTOCOL, "broken HTTP response"),
    ("redirect-301", ErrorClass.REDIRECT, "not followed"),
    ("redirect-302", ErrorClass.REDIRECT, "not followed"),
    ("redirect-307", ErrorClass.REDIRECT, "not followed"),
    ("redirect-308", ErrorClass.REDIRECT, "not followed"),
    ("rate-limited", ErrorClass.RATE_LIMIT, "HTTP 429"),
    ("huge-error", ErrorClass.SERVER, "HTTP 500"),
    ("html-endless", ErrorClass.HTML, "over 64 KiB, not read"),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("mode", "expected", "phrase"), FAILURES, ids=[f[0] for f in FAILURES])
async def test_a_broken_stream_is_a_classified_row_never_a_success(
    transport: str, mode: str, expected: ErrorClass, phrase: str
) -> None:
    async with HostileServer() as server:
        result, seconds = await _stream(server, mode, transport)
    assert result.error_class is expected, result.error_message
    assert phrase in (result.error_message or "")
    assert "Cause:" in (result.error_message or "") and "Fix:" in (result.error_message or "")
    assert seconds < 2.5  # promptly: no mode waits for a watchdog or for the server's bound
    assert not result.ok


def test_every_hostile_mode_has_a_test() -> None:
    tested = {f[0] for f in FAILURES} | set(SUCCESSES) | set(BAD_USAGE)
    tested |= {"endless-slow", "id-object", "gzip-bomb-500"}  # gzip: test_error_body_bomb.py
    tested.add("raw-body")  # arbitrary bodies: tests/test_sse_property.py
    assert tested == set(MODES)


SUCCESSES = ["ok", "ok-close-delimited", "finish-without-done"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", SUCCESSES)
async def test_a_complete_stream_stays_a_success(transport: str, mode: str) -> None:
    async with HostileServer() as server:
        result, _ = await _stream(server, mode, transport)
    assert result.ok, result.error_message
    assert not result.usage_estimated
    assert result.completion_tokens == len(result.event_times)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_chunk_id_that_is_an_object_is_left_out_and_the_text_kept(transport: str) -> None:
    # the id only labels the row (to match server logs); the text and its timing are real
    async with HostileServer() as server:
        result, _ = await _stream(server, "id-object", transport)
    assert result.ok, result.error_message
    # the first chunk's good id is kept; the later garbled one is ignored
    assert result.response_id == "chatcmpl-hostile" and result.text and result.event_times


BAD_USAGE = ["usage-string", "usage-huge", "usage-negative", "usage-float", "usage-bool"]


@pytest.mark.parametrize("mode", BAD_USAGE)
async def test_bad_usage_values_make_the_usage_estimated_not_a_crash(mode: str) -> None:
    async with HostileServer() as server:
        result, _ = await _stream(server, mode)
    assert result.ok, result.error_message
    assert result.usage_estimated
    # three events of "tok ": the estimate, a plain int, instead of "5", 2**70, -3, 4.5 or True
    assert type(result.completion_tokens) is int and result.completion_tokens == 3
    assert result.prompt_tokens == 20  # the good value of the same block is kept
    assert derive(result).decode_tps is None or derive(result).decode_tps > 0


async def test_a_truncated_stream_never_enters_the_aggregates() -> None:
    async with HostileServer() as server:
        good, _ = await _stream(server, "ok")
        cut, _ = await _stream(server, "truncated")
    for r in (good, cut):  # one group: the same model and prompt length
        r.provider, r.model, r.prompt_tokens_target = "p", "m", 128
    (row,) = summarize([good, cut])
    assert row.n == 1 and row.errors == 1 and row.error_classes == ("truncated",)
    assert row.figures["e2e_ms"].n == 1 and row.median("e2e_ms") == derive(good).e2e_ms
    assert cut.text == "tok tok tok "  # what arrived is kept in the row


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_endless_stream_is_cut_at_once_and_the_server_sees_it(transport: str) -> None:
    async with HostileServer(max_seconds=10, max_bytes=64 << 20) as server:
        result, seconds = await _stream(server, "endless", transport)
        served = await _served(server, "endless")
    assert result.error_class is ErrorClass.OVERRUN
    assert len(result.event_times) == 8 + 16 + 1  # max_tokens + slack, then it stopped
    assert seconds < 1.0
    # the server could have sent 64 MiB over 10 s; the client hung up long before
    assert served.seconds < 2.0 and served.sent < 16 << 20


async def test_an_endless_line_keeps_memory_bounded() -> None:
    """The 400 MB SSE line: the client holds at most about one line cap of it."""
    async with HostileServer(max_seconds=10, max_bytes=256 << 20) as server:
        tracemalloc.start()
        try:
            result, _ = await _stream(server, "long-line")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        served = await _served(server, "long-line")
    assert result.error_class is ErrorClass.OVERSIZED
    assert peak < 4 * MAX_LINE_BYTES
    assert served.sent < 32 << 20  # not 256 MiB: reading stopped


async def test_the_body_cap_follows_max_tokens() -> None:
    assert body_limit_bytes(8) == (1 << 20) + 8 * 4096
    async with HostileServer(max_seconds=10, max_bytes=64 << 20) as server:
        small, _ = await _stream(server, "empty-deltas")
        spec = RequestSpec(messages=SPEC.messages, max_tokens=4096, stall_timeout_s=5)
        large, _ = await _stream(server, "empty-deltas", spec=spec)
    assert small.error_class is large.error_class is ErrorClass.OVERSIZED
    assert f"passed {body_limit_bytes(8)} bytes" in (small.error_message or "")
    assert f"passed {body_limit_bytes(4096)} bytes" in (large.error_message or "")


async def test_a_slow_endless_stream_ends_at_the_default_total_limit() -> None:
    # a token every 250 ms never trips the 1 s stall limit, and overruns only after 18 tokens
    # (4.5 s); the default total limit (1 + 1 + 2 x 1 s = 4 s) ends it first
    spec = RequestSpec(
        messages=SPEC.messages, max_tokens=2, first_token_timeout_s=1, stall_timeout_s=1
    )
    assert default_total_timeout_s(spec) == 4.0
    async with HostileServer(max_seconds=10) as server:
        result, seconds = await _stream(server, "endless-slow", spec=spec)
    assert result.error_class is ErrorClass.TOTAL_TIMEOUT, result.error_message
    assert "default total limit" in (result.error_message or "")
    assert 3.8 < seconds < 6.5  # 4 s, and a loaded machine's lateness
    assert result.text.startswith("tok tok")  # what arrived is kept


async def test_a_redirect_is_not_followed_and_names_the_new_address() -> None:
    async with HostileServer() as server:
        result, _ = await _stream(server, "redirect-301")
        elsewhere = [r for r in server.requests if r[0] == "elsewhere"]
    assert result.error_class is ErrorClass.REDIRECT and result.http_status == 301
    assert f"127.0.0.1:{server.elsewhere_port}/v1/chat/completions" in result.error_message
    assert f"Try the base URL {server.elsewhere_url}" in result.error_message
    assert elsewhere == []  # neither a GET nor a second POST went to the other port


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("key", ["sk-ü-key", "sk-line\r\nX-Injected: 1", "sk-\u3000full-width"])
async def test_a_key_http_cannot_carry_is_refused_before_sending(transport: str, key: str) -> None:
    async with HostileServer() as server:
        pool = ClientPool(transport)  # type: ignore[arg-type]
        try:
            client = pool.get(server.base_url, key)
            result = await stream_chat(client, RequestResult(model="ok"), SPEC)
        finally:
            await pool.aclose()
        with pytest.raises(UnsendableHeader, match=r"^the API key contains a"):
            make_client(server.base_url, key, transport)  # type: ignore[arg-type]
    assert result.error_class is ErrorClass.INVALID_KEY
    assert "cannot carry" in (result.error_message or "")
    assert key not in (result.error_message or "") and "sk-" not in (result.error_message or "")
    assert server.requests == []  # nothing was sent


async def test_a_huge_error_body_is_read_only_in_part() -> None:
    async with HostileServer(max_seconds=10, max_bytes=64 << 20) as server:
        result, seconds = await _stream(server, "huge-error")
        served = await _served(server, "huge-error")
    assert result.error_class is ErrorClass.SERVER and result.http_status == 500
    assert len(result.error_message or "") < 1000
    assert seconds < 1.0 and served.sent < 16 << 20


@pytest.mark.parametrize("mode", ["endless", "endless-slow", "long-line", "html-endless"])
async def test_the_doctor_survives_a_server_that_never_stops_talking(mode: str) -> None:
    """Every request, GET /models included, answered with an endless body: the doctor still
    finishes in bounded time and memory (it once read 1.77 GB in 20 s)."""
    from workbench.core.doctor import diagnose

    async with HostileServer(everything=mode, max_seconds=60, max_bytes=1 << 30) as server:
        tracemalloc.start()
        start = time.monotonic()
        try:
            checks = await diagnose(server.base_url, None, "m", timeout_s=1.0)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        seconds = time.monotonic() - start
    assert seconds < 15  # not the server's 60 s
    assert peak < 64 << 20  # a model list of at most 8 MiB, twice over while it is joined
    assert server.bytes_sent < 256 << 20  # not the 1 GiB on offer per request
    stream = next(c for c in checks if c.name == "stream")
    assert not stream.ok


@pytest.mark.parametrize(
    ("first", "stall", "total"),
    [(math.inf, math.inf, math.inf), (math.nan, None, 1e300), (None, None, None)],
)
async def test_limits_that_are_not_finite_still_leave_a_finite_deadline(
    first: float | None, stall: float | None, total: float | None
) -> None:
    """The CLI refuses such flags; below it, a saved or programmatic one must not crash a
    request: the default total limit applies, and it is finite."""
    spec = RequestSpec(
        messages=SPEC.messages,
        max_tokens=8,
        first_token_timeout_s=first,
        stall_timeout_s=stall,
        total_timeout_s=total,
    )
    assert math.isfinite(default_total_timeout_s(spec))
    async with HostileServer() as server:
        result, _ = await _stream(server, "ok", spec=spec)
    assert result.ok, result.error_message
