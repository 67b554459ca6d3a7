"""OpenAI Responses through the app's one client: the documented event sequences
(tests/data/protocols/responses_*.sse) measured by the same definitions as chat, usage from
response.completed, its failures in the same classes, and `bench --protocol responses` end to
end. Every server is a real aiohttp server on 127.0.0.1."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.loopback import ThreadedLoop
from tests.protocol_server import ProtocolServer
from workbench.cli import main
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.protocols.wire import stream_request
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
KEY = "sk-proj-not-a-real-key-0123456789abcdef"
OPENAI_MODELS = json.dumps(
    {"object": "list", "data": [{"id": "gpt-4.1", "object": "model", "created": 0,
                                 "owned_by": "openai"}]}
)  # fmt: skip


async def _send(server: ProtocolServer, max_tokens: int = 64) -> RequestResult:
    client = make_client(server.base_url, KEY)
    try:
        spec = RequestSpec(messages=MESSAGES, max_tokens=max_tokens, protocol="responses")
        return await stream_request(client, RequestResult(model="gpt-4.1"), spec)
    finally:
        await client.close()


async def test_ttft_is_the_first_output_text_delta_and_usage_is_response_completed() -> None:
    async with ProtocolServer({"/v1/responses": "responses_text.sse"}, text_pause_s=0.2) as srv:
        result = await _send(srv)
    assert result.ok, result.error_message
    assert result.t_send is not None and result.t_first_chunk is not None
    assert result.t_first_token is not None and srv.first_text_ns is not None
    assert (result.t_first_chunk - result.t_send) / 1e6 < 150  # response.created at once
    assert (result.t_first_token - result.t_send) / 1e6 >= 200
    assert 0 <= (result.t_first_token - srv.first_text_ns) / 1e6 < 50
    assert result.text == "Hi there!" and result.event_chars == [2, 6, 1]
    assert result.response_id == "resp_67c9fdcecf488190bdd9a0409de3a1ec"
    assert result.finish_reason == "completed"
    assert (result.prompt_tokens, result.completion_tokens, result.cached_tokens) == (37, 11, 16)
    assert result.reasoning_tokens == 0 and not result.usage_estimated
    # the request: messages as input items, the system prompt as instructions, bearer auth
    body = srv.bodies[0]
    assert body["input"] == [{"role": "user", "content": "Hi"}]
    assert body["instructions"] == "Be brief." and body["stream"] is True
    assert body["max_output_tokens"] == 64
    assert srv.headers[0]["authorization"] == f"Bearer {KEY}"
    assert "x-api-key" not in srv.headers[0] and "anthropic-version" not in srv.headers[0]


async def test_reasoning_summary_is_reasoning_and_incomplete_keeps_its_reason() -> None:
    async with ProtocolServer({"/v1/responses": "responses_reasoning_incomplete.sse"}) as srv:
        result = await _send(srv)
    assert result.ok, result.error_message
    assert result.reasoning_text == "Weighing the options carefully."
    assert result.text == "The answer"
    assert result.t_first_token is not None and result.t_first_content is not None
    assert result.t_first_token < result.t_first_content
    assert result.finish_reason == "max_output_tokens"
    assert (result.completion_tokens, result.reasoning_tokens) == (64, 60)


async def test_response_failed_mid_stream_has_the_class_of_its_code() -> None:
    async with ProtocolServer({"/v1/responses": "responses_failed.sse"}) as srv:
        result = await _send(srv, max_tokens=8)
    assert (result.error_class, result.http_status) == (ErrorClass.RATE_LIMIT, 200)
    assert srv.bodies[0]["max_output_tokens"] == 16  # OpenAI refuses less than 16
    assert "rate_limit_exceeded" in (result.error_message or "")
    assert result.text == "Start"


async def test_error_event_mid_stream_is_classified(tmp_path: Path) -> None:
    event = {"type": "error", "code": "server_error", "message": "The server had an error"}
    sse = tmp_path / "error.sse"
    sse.write_text(f"event: error\ndata: {json.dumps(event)}\n\n", encoding="utf-8")
    async with ProtocolServer({"/v1/responses": str(sse)}) as srv:
        result = await _send(srv)
    assert result.error_class is ErrorClass.SERVER
    assert "The server had an error" in (result.error_message or "")


async def test_stream_without_a_terminal_event_is_truncated() -> None:
    async with ProtocolServer({"/v1/responses": "responses_no_terminal.sse"}) as srv:
        result = await _send(srv)
    assert result.error_class is ErrorClass.TRUNCATED
    assert "response.completed" in (result.error_message or "")


async def test_a_chat_only_url_used_as_responses_names_the_cause() -> None:
    body = json.dumps({"detail": "Not Found"})  # what a chat-only server (vLLM) answers
    answers = {"/v1/responses": (404, "application/json", body)}
    async with ProtocolServer(answers=answers) as srv:
        result = await _send(srv)
    assert (result.error_class, result.http_status) == (ErrorClass.NOT_FOUND, 404)
    message = result.error_message or ""
    assert "does not speak the OpenAI Responses API" in message
    assert "--protocol chat" in message.split("Fix:")[1]


def test_bench_protocol_responses_writes_the_same_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROTO_TEST_KEY", KEY)
    models = {"/v1/models": (200, "application/json", OPENAI_MODELS)}
    out_csv = tmp_path / "run.csv"
    with ThreadedLoop() as background:
        srv = ProtocolServer({"/v1/responses": "responses_text.sse"}, models)
        background.run(srv.__aenter__())
        try:
            code = main(["bench", "--base-url", srv.base_url, "--protocol", "responses",
                         "--api-key-env", "PROTO_TEST_KEY", "--model", "gpt-4.1",
                         "--max-tokens", "16", "--csv", str(out_csv), "--no-store"])  # fmt: skip
        finally:
            background.run(srv.__aexit__())
    out = capsys.readouterr()
    assert code == 0, out.err
    with out_csv.open(newline="", encoding="utf-8") as f:
        (row,) = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    assert (row["protocol"], row["finish_reason"], row["error_class"]) == (
        "responses",
        "completed",
        "",
    )
    assert (row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"]) == (
        "37",
        "11",
        "16",
    )
    assert row["reasoning_tokens"] == "0" and float(row["ttft_ms"]) > 0
    assert all(h.get("authorization") == f"Bearer {KEY}" for h in srv.headers)
    assert KEY not in out.out + out.err + out_csv.read_text(encoding="utf-8")
