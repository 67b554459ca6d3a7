"""Anthropic Messages through the app's one client: the documented event sequences
(tests/data/protocols/anthropic_*.sse) measured by the same definitions as chat, its errors in
the same classes, its key sent as configured and never shown, and `bench --protocol anthropic`
end to end. Every server is a real aiohttp server on 127.0.0.1."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.hostile_server import HostileServer
from tests.loopback import ThreadedLoop
from tests.protocol_server import (
    ANTHROPIC_404,
    ANTHROPIC_MODELS,
    HTML_404,
    OPENAI_404,
    ProtocolServer,
    anthropic_error,
)
from workbench.cli import main
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.protocols.wire import stream_request
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
KEY = "sk-ant-api03-not-a-real-key-0123456789"


async def _send(
    server: ProtocolServer,
    protocol: str = "anthropic",
    auth: str = "x-api-key",
    headers: dict[str, str] | None = None,
) -> RequestResult:
    client = make_client(server.base_url, KEY, headers=headers)
    try:
        spec = RequestSpec(messages=MESSAGES, max_tokens=64, protocol=protocol, auth=auth)
        return await stream_request(client, RequestResult(model="claude-sonnet-4-5"), spec)
    finally:
        await client.close()


async def test_ttft_is_the_first_text_delta_not_the_first_event() -> None:
    async with ProtocolServer({"/v1/messages": "anthropic_text.sse"}, text_pause_s=0.2) as srv:
        result = await _send(srv)
    assert result.ok, result.error_message
    assert result.t_send is not None and result.t_first_chunk is not None
    assert result.t_first_token is not None and srv.first_text_ns is not None
    # message_start, content_block_start and ping came at once; the text 200 ms later
    assert (result.t_first_chunk - result.t_send) / 1e6 < 150
    assert (result.t_first_token - result.t_send) / 1e6 >= 200
    # the first token is stamped when the text_delta arrives: after the server wrote it
    assert 0 <= (result.t_first_token - srv.first_text_ns) / 1e6 < 50
    assert result.text == "Hello there, friend."
    assert result.event_chars == [5, 7, 8] and len(result.event_times) == 3
    assert result.t_first_content == result.t_first_token
    assert result.finish_reason == "end_turn"
    assert result.response_id == "msg_01XFDUDYJgAACzvnptvVoYEL"
    # the final output count is message_delta's, not message_start's placeholder
    assert (result.prompt_tokens, result.completion_tokens) == (472, 6)
    assert not result.usage_estimated
    # the request itself: the system prompt apart, the stream asked for
    body = srv.bodies[0]
    assert body["system"] == "Be brief." and body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": "Hi"}]
    assert body["max_tokens"] == 64 and body["model"] == "claude-sonnet-4-5"


async def test_thinking_is_reasoning_and_cache_tokens_are_counted() -> None:
    async with ProtocolServer({"/v1/messages": "anthropic_thinking_cache.sse"}) as srv:
        result = await _send(srv)
    assert result.ok, result.error_message
    assert result.reasoning_text == "Let me add the numbers."
    assert result.text == "The sum is 4."  # the signature_delta is no text
    assert result.t_first_token is not None and result.t_first_content is not None
    assert result.t_first_token < result.t_first_content  # thinking is the first token
    assert result.event_reasoning_chars == [10, 13, 0] and result.event_chars == [0, 0, 13]
    # input_tokens leaves the cache out: the prompt is all three
    assert result.prompt_tokens == 12 + 2048 + 300
    assert (result.cached_tokens, result.cache_creation_tokens) == (2048, 300)
    assert result.completion_tokens == 9
    assert result.finish_reason == "max_tokens"


async def test_overloaded_error_event_mid_stream_is_a_server_error() -> None:
    async with ProtocolServer({"/v1/messages": "anthropic_overloaded.sse"}) as srv:
        result = await _send(srv)
    assert result.error_class is ErrorClass.SERVER
    assert result.error_message is not None
    assert "overloaded_error" in result.error_message and "Overloaded" in result.error_message
    assert result.http_status == 200  # the answer itself was a 200 stream
    assert result.text == "Partial"  # what came before the error is kept


@pytest.mark.parametrize(
    ("kind", "status", "expected"),
    [
        ("invalid_request_error", 400, ErrorClass.BAD_REQUEST),
        ("authentication_error", 401, ErrorClass.AUTH),
        ("permission_error", 403, ErrorClass.AUTH),
        ("not_found_error", 404, ErrorClass.NOT_FOUND),
        ("request_too_large", 413, ErrorClass.BAD_REQUEST),
        ("rate_limit_error", 429, ErrorClass.RATE_LIMIT),
        ("api_error", 500, ErrorClass.SERVER),
        ("overloaded_error", 529, ErrorClass.SERVER),
    ],
)
async def test_each_error_type_has_the_class_of_its_status_answered_or_mid_stream(
    tmp_path: Path, kind: str, status: int, expected: ErrorClass
) -> None:
    body = anthropic_error(kind, f"a {kind} happened")
    answer = {"/v1/messages": (status, "application/json", body)}
    async with ProtocolServer(answers=answer) as srv:
        answered = await _send(srv)
    assert (answered.error_class, answered.http_status) == (expected, status)
    assert f"a {kind} happened" in (answered.error_message or "")
    # the same error as an `error` event inside a 200 stream
    sse = tmp_path / f"{kind}.sse"
    sse.write_text(f"event: error\ndata: {json.dumps(json.loads(body))}\n\n", encoding="utf-8")
    async with ProtocolServer({"/v1/messages": str(sse)}) as srv:
        mid = await _send(srv)
    assert (mid.error_class, mid.http_status) == (expected, 200)


async def test_stream_without_message_stop_is_truncated() -> None:
    async with ProtocolServer({"/v1/messages": "anthropic_no_stop.sse"}) as srv:
        result = await _send(srv)
    assert result.error_class is ErrorClass.TRUNCATED
    assert "message_stop" in (result.error_message or "")
    assert result.text == "Cut short"  # kept, but the row is not a success


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
async def test_a_stream_cut_inside_an_event_is_truncated_not_malformed(chunked: bool) -> None:
    """The body ends in the middle of the last delta's JSON, before the blank line that ends an
    event (a proxy's cut): the server never finished that event, so the row is truncated with
    the text before it, not malformed_chunk."""
    whole = (Path(__file__).parent / "data" / "protocols" / "anthropic_text.sse").read_bytes()
    cut = whole[: whole.index(b'" friend."}}') - 3]
    async with HostileServer(everything="raw-body", raw_pieces=[cut], raw_chunked=chunked) as srv:
        result = await _send(srv)  # type: ignore[arg-type]  # only its base_url is used
    assert result.error_class is ErrorClass.TRUNCATED, result.error_message
    assert "the body ended inside an event, after 2 text events" in (result.error_message or "")
    assert result.text == "Hello there,"


async def test_key_goes_as_x_api_key_or_bearer_as_configured() -> None:
    async with ProtocolServer({"/v1/messages": "anthropic_text.sse"}) as srv:
        await _send(srv, auth="x-api-key")
        await _send(srv, auth="bearer")
        # a provider header overrides the version we send
        await _send(srv, headers={"anthropic-version": "2024-10-22"})
    as_key, as_bearer, overridden = srv.headers
    assert as_key["x-api-key"] == KEY and "authorization" not in as_key
    assert as_bearer["authorization"] == f"Bearer {KEY}" and "x-api-key" not in as_bearer
    assert as_key["anthropic-version"] == as_bearer["anthropic-version"] == "2023-06-01"
    assert overridden["anthropic-version"] == "2024-10-22"


async def test_missing_anthropic_version_names_the_header() -> None:
    # the server accepts only its own version; a wrong one in the provider's headers is refused
    streams = {"/v1/messages": "anthropic_text.sse"}
    async with ProtocolServer(streams, versions=("2023-06-01",)) as srv:
        good = await _send(srv)
        bad = await _send(srv, headers={"anthropic-version": "1999-01-01"})
    assert good.ok
    assert (bad.error_class, bad.http_status) == (ErrorClass.BAD_REQUEST, 400)
    message = bad.error_message or ""
    assert "anthropic-version" in message.split("Cause:")[1]  # the cause names the header
    assert "2023-06-01" in message.split("Fix:")[1]


@pytest.mark.parametrize(
    ("body", "content_type"), [(OPENAI_404, "application/json"), (HTML_404, "text/html")]
)
async def test_an_openai_url_used_as_anthropic_names_the_cause(
    body: str, content_type: str
) -> None:
    answers = {"/v1/messages": (404, content_type, body)}
    async with ProtocolServer({"/v1/chat/completions": "anthropic_text.sse"}, answers) as srv:
        result = await _send(srv)
    assert (result.error_class, result.http_status) == (ErrorClass.NOT_FOUND, 404)
    message = result.error_message or ""
    assert "does not speak the Anthropic Messages API" in message
    assert "--protocol chat" in message.split("Fix:")[1]


async def test_an_anthropic_url_used_as_chat_names_the_cause() -> None:
    answers = {"/v1/chat/completions": (404, "application/json", ANTHROPIC_404)}
    async with ProtocolServer({"/v1/messages": "anthropic_text.sse"}, answers) as srv:
        result = await _send(srv, protocol="chat", auth="bearer")
    assert result.error_class is ErrorClass.NOT_FOUND
    message = result.error_message or ""
    assert "Anthropic" in message.split("Fix:")[0]
    assert "--protocol anthropic" in message.split("Fix:")[1]


def _bench(server: ProtocolServer, tmp_path: Path, *extra: str) -> int:
    return main(
        ["bench", "--base-url", server.base_url, "--protocol", "anthropic",
         "--api-key-env", "PROTO_TEST_KEY", "--model", "claude-sonnet-4-5", "--max-tokens", "16",
         "--csv", str(tmp_path / "run.csv"), *extra]
    )  # fmt: skip


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_bench_protocol_anthropic_writes_the_same_columns_and_never_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROTO_TEST_KEY", KEY)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    models = {"/v1/models": (200, "application/json", json.dumps(ANTHROPIC_MODELS))}
    with ThreadedLoop() as background:
        srv = ProtocolServer({"/v1/messages": "anthropic_text.sse"}, models)
        background.run(srv.__aenter__())
        try:
            code = _bench(srv, tmp_path)
        finally:
            background.run(srv.__aexit__())
    out = capsys.readouterr()
    assert code == 0, out.err
    rows = _rows(tmp_path / "run.csv")
    measured = [r for r in rows if r["phase"] == "measured"]
    assert len(measured) == 1
    row = measured[0]
    assert (row["protocol"], row["finish_reason"], row["error_class"]) == (
        "anthropic",
        "end_turn",
        "",
    )
    assert (row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"]) == (
        "472",
        "6",
        "0",
    )
    assert float(row["ttft_ms"]) > 0 and row["baseline_method"] == "anthropic"
    # every request, the model list included, sent the key as x-api-key with the version
    assert all(h.get("x-api-key") == KEY and "authorization" not in h for h in srv.headers)
    assert all(h.get("anthropic-version") == "2023-06-01" for h in srv.headers)
    # and the key is nowhere a user or a file could see it
    db = next((tmp_path / "data").rglob("*.sqlite3"))
    with sqlite3.connect(db) as conn:
        dumped = "\n".join(conn.iterdump())
    assert "'anthropic'" in dumped
    for text in (out.out, out.err, (tmp_path / "run.csv").read_text(encoding="utf-8"), dumped):
        assert KEY not in text


def test_models_protocol_anthropic_lists_with_the_protocols_headers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROTO_TEST_KEY", KEY)
    models = {"/v1/models": (200, "application/json", json.dumps(ANTHROPIC_MODELS))}
    with ThreadedLoop() as background:
        srv = ProtocolServer(answers=models)
        background.run(srv.__aenter__())
        try:
            code = main(["models", "--base-url", srv.base_url, "--protocol", "anthropic",
                         "--api-key-env", "PROTO_TEST_KEY", "--json"])  # fmt: skip
        finally:
            background.run(srv.__aexit__())
    out = capsys.readouterr()
    assert code == 0, out.err
    listed: dict[str, Any] = json.loads(out.out)
    assert {m["id"] for m in listed["models"]} == {"claude-sonnet-4-5", "claude-haiku-4-5"}
    (asked,) = srv.headers
    assert asked["x-api-key"] == KEY and asked["anthropic-version"] == "2023-06-01"
    assert "authorization" not in asked
    assert KEY not in out.out + out.err


def test_models_follows_anthropics_pages(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from aiohttp import web

    from tests.loopback import serving_in_thread

    asked: list[dict[str, str]] = []

    async def models(request: web.Request) -> web.Response:
        asked.append(dict(request.query))
        if request.query.get("after_id") == "claude-a":
            return web.json_response({"data": [{"id": "claude-b", "type": "model"}],
                                      "has_more": False, "last_id": "claude-b"})  # fmt: skip
        return web.json_response({"data": [{"id": "claude-a", "type": "model"}],
                                  "has_more": True, "last_id": "claude-a"})  # fmt: skip

    app = web.Application()
    app.router.add_get("/v1/models", models)
    monkeypatch.setenv("PROTO_TEST_KEY", KEY)
    with serving_in_thread(app) as base_url:
        code = main(["models", "--base-url", base_url, "--protocol", "anthropic",
                     "--api-key-env", "PROTO_TEST_KEY", "--json"])  # fmt: skip
    out = capsys.readouterr()
    assert code == 0, out.err
    assert {m["id"] for m in json.loads(out.out)["models"]} == {"claude-a", "claude-b"}
    assert asked == [{"limit": "1000"}, {"limit": "1000", "after_id": "claude-a"}]
