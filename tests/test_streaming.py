"""The streaming engine against a scripted SSE server: timestamps, usage, watchdogs, faults."""

from __future__ import annotations

import pytest
from scripted_server import ScriptedServer, chunk

from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.planning.run_events import TextDelta
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat

USAGE = {
    "prompt_tokens": 100,
    "completion_tokens": 3,
    "total_tokens": 103,
    "prompt_tokens_details": {"cached_tokens": 40},
}
SPEC = RequestSpec(messages=[{"role": "user", "content": "hi"}], max_tokens=8)


async def _run(
    server: ScriptedServer, spec: RequestSpec = SPEC, transport: str = "httpx"
) -> tuple[RequestResult, list[TextDelta]]:
    client = make_client(server.base_url, None, transport)  # type: ignore[arg-type]
    deltas: list[TextDelta] = []
    try:
        result = await stream_chat(client, RequestResult(model="m"), spec, deltas.append)
    finally:
        await client.close()
    return result, deltas


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
async def test_ttft_ignores_role_only_chunk(transport: str) -> None:
    script = [
        (0, chunk("", role="assistant")),
        (0.15, chunk("Hello")),
        (0.02, chunk(" world")),
        (0.02, chunk("!", finish="stop")),
        (0, chunk(usage=USAGE)),
        (0, "[DONE]"),
    ]
    async with ScriptedServer(script) as server:
        result, deltas = await _run(server, transport=transport)
    assert result.ok, result.error_message
    assert result.text == "Hello world!"
    assert result.t_first_chunk < result.t_first_token
    m = derive(result)
    # the role-only chunk came ~150 ms before the first token; TTFT must include that wait
    assert m.ttft_ms is not None and m.ttft_ms >= 150
    assert (result.t_first_token - result.t_first_chunk) / 1e6 >= 140
    assert [d.text for d in deltas] == ["Hello", " world", "!"]
    assert result.completion_tokens == 3 and result.prompt_tokens == 100
    assert result.cached_tokens == 40 and not result.usage_estimated
    assert result.finish_reason == "stop"
    assert len(result.event_times) == 3


async def test_ttft_matches_server_emit_time() -> None:
    script = [
        (0, chunk("", role="assistant")),
        (0.1, chunk("a")),
        (0.05, chunk("b")),
        (0, chunk(usage=USAGE)),
        (0, "[DONE]"),
    ]
    async with ScriptedServer(script) as server:
        result, _ = await _run(server)
    first_content_emit = server.emit_ns[1]
    # the client sees the token a little after the server wrote it, never before
    lag_ms = (result.t_first_token - first_content_emit) / 1e6
    assert 0 <= lag_ms < 20


async def test_reasoning_counts_for_ttft_but_not_ttfc() -> None:
    script = [
        (0, chunk("", role="assistant")),
        (0.05, chunk(reasoning="Let me think")),
        (0.1, chunk("Answer")),
        (0, chunk(usage=USAGE)),
        (0, "[DONE]"),
    ]
    async with ScriptedServer(script) as server:
        result, deltas = await _run(server)
    m = derive(result)
    assert result.reasoning_text == "Let me think" and result.text == "Answer"
    assert m.ttfc_ms - m.ttft_ms >= 90  # TTFC waits for content; TTFT does not
    assert deltas[0].reasoning and not deltas[1].reasoning


async def test_decode_tps_excludes_ttft() -> None:
    tokens = [chunk(f"t{i} ") for i in range(5)]
    script = [(0, chunk("", role="assistant")), (0.3, tokens[0])]
    script += [(0.05, t) for t in tokens[1:]]
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    script += [(0, chunk(usage=usage)), (0, "[DONE]")]
    async with ScriptedServer(script) as server:
        result, _ = await _run(server)
    m = derive(result)
    # 4 gaps of 50 ms after the first token: ~20 tok/s, whatever the 300 ms TTFT
    assert 15 < m.decode_tps < 21
    assert m.overall_tps < m.decode_tps
    assert 45 < m.tpot_ms < 65


async def test_usage_less_server_is_flagged_estimated() -> None:
    script = [
        (0, chunk("", role="assistant")),
        (0, chunk("Three short words")),
        (0, chunk("", finish="stop")),
        (0, "[DONE]"),
    ]
    async with ScriptedServer(script) as server:
        spec = RequestSpec(messages=SPEC.messages, estimated_prompt_tokens=50)
        result, _ = await _run(server, spec)
    assert result.ok
    assert result.usage_estimated
    assert result.completion_tokens and result.completion_tokens >= 3
    assert result.prompt_tokens == 50


async def test_first_token_timeout_keeps_what_arrived() -> None:
    script = [(0, chunk("", role="assistant")), (5, chunk("late"))]
    async with ScriptedServer(script) as server:
        spec = RequestSpec(messages=SPEC.messages, first_token_timeout_s=0.3)
        result, _ = await _run(server, spec)
    assert result.error_class is ErrorClass.FIRST_TOKEN_TIMEOUT
    assert result.t_first_chunk is not None and result.t_first_token is None
    assert "Fix:" in result.error_message
    assert 250 < (result.t_done - result.t_send) / 1e6 < 2000


async def test_stall_watchdog_is_separate_from_first_token_limit() -> None:
    script = [
        (0, chunk("", role="assistant")),
        (0.4, chunk("one")),
        (0.05, chunk("two")),
        (5, chunk("three")),
    ]
    async with ScriptedServer(script) as server:
        # the first token takes 400 ms, within its 2 s limit; then a 5 s pause trips the stall
        spec = RequestSpec(messages=SPEC.messages, first_token_timeout_s=2, stall_timeout_s=0.3)
        result, _ = await _run(server, spec)
    assert result.error_class is ErrorClass.STALL
    assert result.text == "onetwo"
    assert result.usage_estimated  # what arrived is kept and counted


async def test_dropped_connection_is_classified() -> None:
    script = [(0, chunk("", role="assistant")), (0, chunk("partial")), (0.05, "DROP")]
    async with ScriptedServer(script) as server:
        result, _ = await _run(server)
    assert result.error_class is ErrorClass.DROPPED
    assert result.text == "partial"


async def test_malformed_chunk_is_classified() -> None:
    script = [(0, chunk("", role="assistant")), (0, chunk("ok")), (0, "{not json")]
    async with ScriptedServer(script) as server:
        result, _ = await _run(server)
    assert result.error_class is ErrorClass.MALFORMED


@pytest.mark.parametrize(
    ("status", "body", "ctype", "expected"),
    [
        (401, '{"error": {"message": "Invalid API key"}}', "application/json", ErrorClass.AUTH),
        (404, '{"error": {"message": "Not Found"}}', "application/json", ErrorClass.NOT_FOUND),
        (
            404,
            '{"error": {"message": "The model `m` does not exist"}}',
            "application/json",
            ErrorClass.MODEL_NOT_FOUND,
        ),
        (
            429,
            '{"error": {"message": "Rate limit reached"}}',
            "application/json",
            ErrorClass.RATE_LIMIT,
        ),
        (
            429,
            '{"error": {"message": "You exceeded your current quota"}}',
            "application/json",
            ErrorClass.QUOTA,
        ),
        (502, "<html><body>Bad gateway</body></html>", "text/html", ErrorClass.HTML),
        (500, '{"error": {"message": "boom"}}', "application/json", ErrorClass.SERVER),
    ],
)
async def test_http_errors_are_classified(status, body, ctype, expected) -> None:
    async with ScriptedServer(
        [], status=status, body=body, content_type=ctype, headers={"Retry-After": "2"}
    ) as server:
        result, _ = await _run(server)
    assert result.error_class is expected
    assert result.http_status == status
    assert "Cause:" in result.error_message and "Fix:" in result.error_message
    if status == 429:
        assert result.retry_after_s == 2


async def test_html_page_with_status_200_is_not_a_silent_empty_row() -> None:
    async with ScriptedServer(
        [], status=200, body="<!DOCTYPE html><html>login</html>", content_type="text/html"
    ) as server:
        result, _ = await _run(server)
    assert result.error_class is ErrorClass.HTML


async def test_unreachable_server_is_a_connect_error() -> None:
    client = make_client("http://127.0.0.1:9/v1", None, "httpx")
    try:
        result = await stream_chat(client, RequestResult(model="m"), SPEC)
    finally:
        await client.close()
    assert result.error_class is ErrorClass.CONNECT
    assert "127.0.0.1" not in (result.error_message or "") or "Fix:" in result.error_message


async def test_request_is_never_resent() -> None:
    async with ScriptedServer(
        [], status=503, body='{"error": {"message": "busy"}}', content_type="application/json"
    ) as server:
        result, _ = await _run(server)
    assert result.error_class is ErrorClass.SERVER
    assert len(server.requests) == 1
