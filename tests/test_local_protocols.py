"""serve-local's Anthropic Messages and OpenAI Responses endpoints, tested over real HTTP on
127.0.0.1: each stream parsed by hand (event lines and data), checked against the emit log."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import openai
import pytest

from workbench.core.models.catalog import load_catalog
from workbench.local.costmodel import SimSettings, SimTiming
from workbench.local.emitlog import EmitRecord
from workbench.local.faults import TOKENS_BEFORE_FAULT, TOKENS_PER_PACK
from workbench.local.process import ServerProcess
from workbench.local.server import LocalServer
from workbench.local.tokenizer import count_prompt_tokens, count_tokens

MODEL = "sim-70b-gqa"
FAST = SimSettings(time_scale=0.001)
SYSTEM = "You are terse."
QUESTION = "Explain why long prompts slow decoding down."
ANTHROPIC = {"anthropic-version": "2023-06-01"}
PATHS = {"chat": "/chat/completions", "responses": "/responses", "anthropic": "/messages"}
# the same prompt in each protocol's words: its prompt tokens and text are the same
CHAT_MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]


def request_body(protocol: str, max_tokens: int, model: str = MODEL, **extra: Any) -> dict:
    if protocol == "anthropic":
        body = {
            "model": model,
            "max_tokens": max_tokens,
            "system": SYSTEM,
            "messages": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
        }
    elif protocol == "responses":
        body = {
            "model": model,
            "max_output_tokens": max_tokens,
            "instructions": SYSTEM,
            "input": [{"role": "user", "content": [{"type": "input_text", "text": QUESTION}]}],
        }
    else:
        body = {"model": model, "max_tokens": max_tokens, "messages": CHAT_MESSAGES}
    return {**body, **extra}


@dataclass
class Event:
    name: str | None  # the `event:` line, if any
    data: Any  # the `data:` JSON; the raw text when it is not JSON


@dataclass
class Stream:
    status: int
    events: list[Event]
    cut: bool  # the connection closed before the body ended


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with LocalServer(settings=FAST) as srv:
        yield srv


def parse_sse(text: str) -> list[Event]:
    events = []
    for block in text.split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
        if name is None and not data:
            continue
        raw = "\n".join(data)
        try:
            events.append(Event(name, json.loads(raw)))
        except json.JSONDecodeError:
            events.append(Event(name, raw))
    return events


async def post(
    srv: LocalServer, protocol: str, body: dict, headers: dict[str, str] | None = None
) -> tuple[int, Any, dict[str, str]]:
    """A non-streamed request: status, JSON body (text when not JSON), headers."""
    if protocol == "anthropic" and headers is None:
        headers = ANTHROPIC
    async with (
        aiohttp.ClientSession() as session,
        session.post(srv.base_url + PATHS[protocol], json=body, headers=headers) as resp,
    ):
        text = await resp.text()
        try:
            return resp.status, json.loads(text), dict(resp.headers)
        except json.JSONDecodeError:
            return resp.status, text, dict(resp.headers)


async def stream(
    srv: LocalServer, protocol: str, body: dict, headers: dict[str, str] | None = None
) -> Stream:
    if protocol == "anthropic" and headers is None:
        headers = ANTHROPIC
    raw = b""
    cut = False
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            srv.base_url + PATHS[protocol], json={**body, "stream": True}, headers=headers
        ) as resp,
    ):
        try:
            async for piece in resp.content.iter_any():
                raw += piece
                assert len(raw) < 4 * 1024 * 1024
        except aiohttp.ClientPayloadError:
            cut = True
    return Stream(resp.status, parse_sse(raw.decode()), cut)


def names(events: list[Event]) -> list[str]:
    return [e.data["type"] if isinstance(e.data, dict) else "<not json>" for e in events]


def squeeze(kinds: list[str]) -> list[str]:
    """Runs of the same event type as one: the order of kinds, whatever the token count."""
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]


def record_of(srv: LocalServer, answer_id: str) -> EmitRecord:
    record = srv.emit_log.get(answer_id)
    assert record is not None, answer_id
    return record


# Anthropic Messages


async def test_anthropic_stream_event_sequence_and_usage_agree_with_emit_log(
    server: LocalServer,
) -> None:
    result = await stream(server, "anthropic", request_body("anthropic", 12))
    assert result.status == 200 and not result.cut
    assert all(e.name == e.data["type"] for e in result.events)  # event line == data type
    assert squeeze(names(result.events)) == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = result.events[0].data["message"]
    assert start["id"].startswith("msg_") and start["model"] == MODEL and start["content"] == []
    assert start["usage"]["output_tokens"] in (0, 1)
    assert start["usage"]["cache_read_input_tokens"] == 0
    assert start["usage"]["cache_creation_input_tokens"] == 0
    block = result.events[1].data
    assert block["index"] == 0 and block["content_block"] == {"type": "text", "text": ""}
    deltas = [e.data for e in result.events if e.name == "content_block_delta"]
    assert all(d["index"] == 0 and d["delta"]["type"] == "text_delta" for d in deltas)
    text = "".join(d["delta"]["text"] for d in deltas)
    end = result.events[-2].data
    assert end["delta"] == {"stop_reason": "max_tokens", "stop_sequence": None}

    record = record_of(server, start["id"])
    assert record.protocol == "anthropic" and record.finish_reason == "length"
    assert len(deltas) == len(record.chunk_emit_ns) == record.completion_tokens == 12
    assert end["usage"]["output_tokens"] == record.completion_tokens == count_tokens(text)
    assert start["usage"]["input_tokens"] == record.prompt_tokens
    assert record.prompt_tokens == count_prompt_tokens(CHAT_MESSAGES)


async def test_anthropic_reasoning_streams_a_thinking_block_before_the_text(
    server: LocalServer,
) -> None:
    result = await stream(server, "anthropic", request_body("anthropic", 20, f"{MODEL}+reasoning"))
    kinds = [
        (e.data["type"], e.data.get("index"), (e.data.get("delta") or {}).get("type"))
        for e in result.events
    ]
    assert squeeze(kinds) == [
        ("message_start", None, None),
        ("content_block_start", 0, None),
        ("ping", None, None),
        ("content_block_delta", 0, "thinking_delta"),
        ("content_block_delta", 0, "signature_delta"),
        ("content_block_stop", 0, None),
        ("content_block_start", 1, None),
        ("content_block_delta", 1, "text_delta"),
        ("content_block_stop", 1, None),
        ("message_delta", None, None),
        ("message_stop", None, None),
    ]
    assert result.events[1].data["content_block"]["type"] == "thinking"
    thinking = [
        e.data for e in result.events if e.data.get("delta", {}).get("type") == "thinking_delta"
    ]
    texts = [e.data for e in result.events if e.data.get("delta", {}).get("type") == "text_delta"]
    record = record_of(server, result.events[0].data["message"]["id"])
    assert len(thinking) == record.reasoning_tokens == 10  # half of max_tokens at most
    assert len(thinking) + len(texts) == record.completion_tokens == len(record.chunk_emit_ns)
    assert result.events[-2].data["usage"]["output_tokens"] == 20


async def test_anthropic_non_stream_message_has_blocks_stop_reason_and_usage(
    server: LocalServer,
) -> None:
    status, body, _ = await post(
        server, "anthropic", request_body("anthropic", 16, f"{MODEL}+reasoning")
    )
    assert status == 200
    assert (
        body["type"] == "message"
        and body["role"] == "assistant"
        and body["model"].startswith(MODEL)
    )
    thinking, text = body["content"]
    assert thinking["type"] == "thinking" and thinking["signature"]
    assert text["type"] == "text"
    assert body["stop_reason"] == "max_tokens" and body["stop_sequence"] is None
    record = record_of(server, body["id"])
    assert body["usage"] == {
        "input_tokens": record.prompt_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 16,
    }
    assert count_tokens(thinking["thinking"]) == record.reasoning_tokens == 8
    assert count_tokens(text["text"]) == 8
    assert record.protocol == "anthropic" and len(record.chunk_emit_ns) == 1


async def test_anthropic_stop_sequence_ends_with_stop_sequence(server: LocalServer) -> None:
    status, first, _ = await post(server, "anthropic", request_body("anthropic", 40, temperature=0))
    assert status == 200
    words = first["content"][0]["text"].split()
    stop = words[3]  # a word the deterministic answer is sure to contain
    result = await stream(
        server, "anthropic", request_body("anthropic", 40, temperature=0, stop_sequences=[stop])
    )
    end = result.events[-2].data
    assert end["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": stop}
    text = "".join(
        e.data["delta"]["text"] for e in result.events if e.name == "content_block_delta"
    )
    assert stop not in text and end["usage"]["output_tokens"] == count_tokens(text) < 40


async def test_missing_anthropic_version_is_400_naming_the_header(server: LocalServer) -> None:
    status, body, _ = await post(server, "anthropic", request_body("anthropic", 4), headers={})
    assert status == 400
    assert body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "anthropic-version: header is required",
        },
    }
    status, body, _ = await post(
        server,
        "anthropic",
        request_body("anthropic", 4),
        headers={"anthropic-version": "2099-01-01"},
    )
    assert status == 400 and "2099-01-01" in body["error"]["message"]
    assert "not a valid version" in body["error"]["message"]


async def test_anthropic_auth_by_x_api_key_or_bearer() -> None:
    async with LocalServer(settings=FAST, api_key="sk-ant-right") as srv:
        ok_headers = [
            {**ANTHROPIC, "x-api-key": "sk-ant-right"},
            {**ANTHROPIC, "Authorization": "Bearer sk-ant-right"},
        ]
        for headers in ok_headers:
            status, body, _ = await post(srv, "anthropic", request_body("anthropic", 3), headers)
            assert status == 200, body
        for headers in ({**ANTHROPIC, "x-api-key": "sk-ant-wrong"}, ANTHROPIC):
            status, body, _ = await post(srv, "anthropic", request_body("anthropic", 3), headers)
            assert status == 401
            assert body["type"] == "error"
            assert body["error"]["type"] == "authentication_error"
            assert "sk-ant" not in json.dumps(body)  # never echoes a key
        # the chat route still wants a bearer token: x-api-key is Anthropic's convention only
        status, _, _ = await post(
            srv, "chat", request_body("chat", 3), {"x-api-key": "sk-ant-right"}
        )
        assert status == 401


async def test_anthropic_bad_bodies_are_invalid_request_errors(server: LocalServer) -> None:
    no_max = request_body("anthropic", 4)
    del no_max["max_tokens"]
    cases = [
        (no_max, "max_tokens"),
        (request_body("anthropic", 4, messages=[]), "messages"),
        (request_body("anthropic", 0), "max_tokens"),
        (request_body("anthropic", 4, system=7), "system"),
    ]
    for body, field in cases:
        status, answer, _ = await post(server, "anthropic", body)
        assert status == 400
        assert answer["error"]["type"] == "invalid_request_error"
        assert field in answer["error"]["message"]
    status, answer, _ = await post(server, "anthropic", request_body("anthropic", 4, "sim-nope"))
    assert status == 404 and answer["error"]["type"] == "not_found_error"
    assert "sim-nope" in answer["error"]["message"]


async def test_models_answer_in_anthropic_shape_with_the_version_header(
    server: LocalServer,
) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{server.base_url}/models", headers=ANTHROPIC) as r:
            listing = await r.json()
        async with session.get(f"{server.base_url}/models") as r:
            openai_listing = await r.json()
        async with session.get(f"{server.base_url}/models/{MODEL}", headers=ANTHROPIC) as r:
            one = await r.json()
    ids = [m["id"] for m in openai_listing["data"]]
    assert [m["id"] for m in listing["data"]] == ids
    assert listing["has_more"] is False
    assert listing["first_id"] == ids[0] and listing["last_id"] == ids[-1]
    assert all(m["type"] == "model" and m["display_name"] for m in listing["data"])
    assert one["id"] == MODEL and one["type"] == "model"
    assert one["created_at"].endswith("Z")
    assert openai_listing["object"] == "list"  # without the header: OpenAI's shape, as before


# OpenAI Responses


async def test_responses_stream_event_sequence_and_usage_agree_with_emit_log(
    server: LocalServer,
) -> None:
    result = await stream(server, "responses", request_body("responses", 12))
    assert result.status == 200 and not result.cut
    assert all(e.name == e.data["type"] for e in result.events)
    assert [e.data["sequence_number"] for e in result.events] == list(range(len(result.events)))
    assert squeeze(names(result.events)) == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.incomplete",  # the output reached the client's max_output_tokens
    ]
    deltas = [e.data for e in result.events if e.name == "response.output_text.delta"]
    item_id = result.events[2].data["item"]["id"]
    assert all(
        (d["item_id"], d["output_index"], d["content_index"]) == (item_id, 0, 0) for d in deltas
    )
    text = "".join(d["delta"] for d in deltas)
    assert result.events[-4].data["text"] == text
    final = result.events[-1].data["response"]
    assert final["status"] == "incomplete"
    assert final["incomplete_details"] == {"reason": "max_output_tokens"}
    assert final["output"][0]["content"][0]["text"] == text
    record = record_of(server, final["id"])
    assert record.protocol == "responses" and final["id"].startswith("resp_")
    assert len(deltas) == len(record.chunk_emit_ns) == record.completion_tokens == 12
    assert final["usage"] == {
        "input_tokens": record.prompt_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 12,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": record.prompt_tokens + 12,
    }
    assert record.prompt_tokens == count_prompt_tokens(CHAT_MESSAGES) and count_tokens(text) == 12


async def test_responses_without_a_cap_complete(server: LocalServer) -> None:
    body = {"model": MODEL, "input": QUESTION}
    result = await stream(server, "responses", body)
    final = result.events[-1].data
    assert final["type"] == "response.completed"
    assert final["response"]["status"] == "completed"
    assert final["response"]["incomplete_details"] is None
    assert final["response"]["usage"]["output_tokens"] == 256  # the server's default length


async def test_responses_reasoning_summary_streams_before_the_message(
    server: LocalServer,
) -> None:
    result = await stream(server, "responses", request_body("responses", 20, f"{MODEL}+reasoning"))
    kinds = squeeze(names(result.events))
    assert kinds[:6] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
    ]
    assert result.events[2].data["item"]["type"] == "reasoning"
    message_added = [e.data for e in result.events if e.name == "response.output_item.added"][1]
    assert message_added["item"]["type"] == "message" and message_added["output_index"] == 1
    summary = [e.data for e in result.events if e.name == "response.reasoning_summary_text.delta"]
    texts = [e.data for e in result.events if e.name == "response.output_text.delta"]
    usage = result.events[-1].data["response"]["usage"]
    record = record_of(server, result.events[-1].data["response"]["id"])
    assert len(summary) == usage["output_tokens_details"]["reasoning_tokens"] == 10
    assert len(summary) + len(texts) == usage["output_tokens"] == len(record.chunk_emit_ns)


async def test_responses_through_the_openai_sdk(server: LocalServer) -> None:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
    try:
        events = []
        async with asyncio.timeout(10):
            sdk_stream = await client.responses.create(
                model=MODEL, input=QUESTION, instructions=SYSTEM, max_output_tokens=9, stream=True
            )
            async for event in sdk_stream:
                events.append(event)
        whole = await client.responses.create(model=MODEL, input=QUESTION, max_output_tokens=9)
    finally:
        await client.close()
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    final = events[-1]
    assert final.type == "response.incomplete"
    assert final.response.usage is not None and final.response.usage.output_tokens == 9
    assert final.response.output_text == text and count_tokens(text) == 9
    assert whole.status == "incomplete" and count_tokens(whole.output_text) == 9
    assert (
        whole.usage is not None
        and whole.usage.input_tokens == record_of(server, whole.id).prompt_tokens
    )


async def test_responses_bad_bodies_and_auth_answer_openai_errors() -> None:
    async with LocalServer(settings=FAST, api_key="sk-right") as srv:
        good = {"Authorization": "Bearer sk-right"}
        status, body, _ = await post(srv, "responses", request_body("responses", 3), good)
        assert status == 200 and body["object"] == "response"
        status, body, _ = await post(srv, "responses", request_body("responses", 3), {})
        assert status == 401 and body["error"]["code"] == "invalid_api_key"
        status, body, _ = await post(srv, "responses", {"model": MODEL}, good)
        assert status == 400 and body["error"]["param"] == "input"
        status, body, _ = await post(srv, "responses", request_body("responses", 0), good)
        assert status == 400 and body["error"]["param"] == "max_output_tokens"
        status, body, _ = await post(
            srv, "responses", request_body("responses", 3, "sim-nope"), good
        )
        assert status == 404 and body["error"]["code"] == "model_not_found"


# the same simulation under all three


async def test_three_protocols_pace_alike_and_say_the_same() -> None:
    """Same prompt, model and temperature 0: the same text, tokens and emit schedule."""
    max_tokens = 24
    settings = SimSettings(time_scale=0.2)
    async with LocalServer(settings=settings) as srv:
        # untimed: the first request computes (and memoizes) this length's intervals
        await stream(srv, "chat", request_body("chat", max_tokens))
        records = {}
        texts = {}
        for protocol in ("chat", "responses", "anthropic"):
            body = request_body(protocol, max_tokens, temperature=0)
            if protocol == "chat":
                body["stream_options"] = {"include_usage": True}
            result = await stream(srv, protocol, body)
            texts[protocol] = _streamed_text(protocol, result.events)
            records[protocol] = record_of(srv, _answer_id(protocol, result.events))
    assert texts["chat"] == texts["responses"] == texts["anthropic"]
    prompt_tokens = count_prompt_tokens(CHAT_MESSAGES)
    assert {r.prompt_tokens for r in records.values()} == {prompt_tokens}
    # the cost model's schedule, as offsets from arrival (ms): one for every protocol
    model = next(m for m in load_catalog().simulated() if m.id == MODEL)
    timing = SimTiming(model, settings)
    due = [timing.ttft_s(prompt_tokens)]
    for index in range(1, max_tokens):
        due.append(due[-1] + timing.token_interval_s(prompt_tokens + index, index))
    for protocol, record in records.items():
        offsets = [(t - record.t_received_ns) / 1e6 for t in record.chunk_emit_ns]
        assert len(offsets) == max_tokens
        late = [offset - at * 1e3 for offset, at in zip(offsets, due, strict=True)]
        assert min(late) >= -0.1, f"{protocol} emitted a token before it was due"
        # how late a wake-up is depends on the machine's load, not on the protocol
        assert statistics.median(late) < 5.0, f"{protocol}: {statistics.median(late):.2f} ms late"
    assert due[0] * 1e3 > 1.0  # a real prefill wait, not an instant answer


def _answer_id(protocol: str, events: list[Event]) -> str:
    first = events[0].data
    if protocol == "anthropic":
        return first["message"]["id"]
    return first["response"]["id"] if protocol == "responses" else first["id"]


def _streamed_text(protocol: str, events: list[Event]) -> str:
    if protocol == "anthropic":
        return "".join(
            e.data["delta"].get("text", "") for e in events if e.name == "content_block_delta"
        )
    if protocol == "responses":
        return "".join(e.data["delta"] for e in events if e.name == "response.output_text.delta")
    return "".join(
        e.data["choices"][0]["delta"].get("content", "")
        for e in events
        if isinstance(e.data, dict) and e.data.get("choices")
    )


async def test_mixed_protocols_at_concurrency_24_all_finish_with_usage(server: LocalServer) -> None:
    protocols = ["responses", "anthropic"] * 12

    async def one(protocol: str) -> tuple[int, int]:
        result = await stream(server, protocol, request_body(protocol, 16))
        final = result.events[-1].data if protocol == "responses" else result.events[-2].data
        told = (
            final["response"]["usage"]["output_tokens"]
            if protocol == "responses"
            else final["usage"]["output_tokens"]
        )
        record = record_of(server, _answer_id(protocol, result.events))
        return told, len(record.chunk_emit_ns)

    async with asyncio.timeout(30):
        counts = await asyncio.gather(*(one(p) for p in protocols))
    assert counts == [(16, 16)] * len(protocols)


# fault modes, in each protocol's shape

ANTHROPIC_ERROR_TYPES = {
    "401": "authentication_error",
    "404": "not_found_error",
    "429": "rate_limit_error",
    "500": "api_error",
    "503": "overloaded_error",
    "529": "overloaded_error",
}


@pytest.mark.parametrize("mode", sorted(ANTHROPIC_ERROR_TYPES))
@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
async def test_status_faults_answer_in_the_protocols_error_shape(
    server: LocalServer, protocol: str, mode: str
) -> None:
    status, body, headers = await post(
        server, protocol, request_body(protocol, 4, f"{MODEL}+{mode}")
    )
    assert status == int(mode)
    if protocol == "anthropic":
        assert body["type"] == "error"
        assert body["error"]["type"] == ANTHROPIC_ERROR_TYPES[mode]
    else:
        assert set(body["error"]) == {"message", "type", "param", "code"}
    assert "simulated" in json.dumps(body)
    if mode in ("429", "503"):
        assert headers["Retry-After"] == "1"


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
@pytest.mark.parametrize(("mode", "status"), [("html", 502), ("html200", 200)])
async def test_html_faults_are_the_same_proxy_page(
    server: LocalServer, protocol: str, mode: str, status: int
) -> None:
    result_status, body, headers = await post(
        server, protocol, request_body(protocol, 4, stream=True), {**ANTHROPIC, "X-Sim-Fault": mode}
    )
    assert result_status == status and headers["Content-Type"].startswith("text/html")
    assert "<html>" in body


async def test_midstream_error_is_an_anthropic_error_event(server: LocalServer) -> None:
    result = await stream(server, "anthropic", request_body("anthropic", 20, f"{MODEL}+error"))
    assert not result.cut
    texts = [e for e in result.events if e.name == "content_block_delta"]
    assert len(texts) == TOKENS_BEFORE_FAULT
    last = result.events[-1]
    assert last.name == "error"
    assert last.data == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded (simulated)."},
    }
    assert "message_stop" not in names(result.events)
    assert record_of(server, result.events[0].data["message"]["id"]).finish_reason is None


async def test_midstream_error_is_a_responses_error_then_failed(server: LocalServer) -> None:
    result = await stream(server, "responses", request_body("responses", 20, f"{MODEL}+error"))
    kinds = names(result.events)
    assert kinds.count("response.output_text.delta") == TOKENS_BEFORE_FAULT
    assert kinds[-2:] == ["error", "response.failed"]
    error = result.events[-2].data
    assert error["code"] and "Overloaded" in error["message"]
    failed = result.events[-1].data["response"]
    assert failed["status"] == "failed" and failed["error"]["code"] == "server_error"
    assert [e.data["sequence_number"] for e in result.events] == list(range(len(result.events)))


async def test_midstream_error_in_chat_raises_in_the_openai_sdk(server: LocalServer) -> None:
    received = []
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
    try:
        chat = await client.chat.completions.create(
            model=f"{MODEL}+error",
            messages=CHAT_MESSAGES,
            max_tokens=20,
            stream=True,  # type: ignore[call-overload]
        )
        with pytest.raises(openai.APIError, match="Overloaded"):
            async for chunk in chat:
                if chunk.choices and chunk.choices[0].delta.content:
                    received.append(chunk.choices[0].delta.content)
    finally:
        await client.close()
    assert len(received) == TOKENS_BEFORE_FAULT


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
async def test_non_stream_error_fault_answers_529(server: LocalServer, protocol: str) -> None:
    status, body, _ = await post(server, protocol, request_body(protocol, 5, f"{MODEL}+error"))
    assert status == 529
    message = body["error"]["message"]
    assert "Overloaded" in message


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
async def test_drop_cuts_the_stream_after_three_tokens(server: LocalServer, protocol: str) -> None:
    result = await stream(server, protocol, request_body(protocol, 20, f"{MODEL}+drop"))
    assert result.cut
    assert len(_text_events(protocol, result.events)) == TOKENS_BEFORE_FAULT
    assert record_of(server, _answer_id(protocol, result.events)).finish_reason is None


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
async def test_malformed_sends_one_event_that_is_not_json_then_finishes(
    server: LocalServer, protocol: str
) -> None:
    result = await stream(server, protocol, request_body(protocol, 10, f"{MODEL}+malformed"))
    bad = [i for i, e in enumerate(result.events) if not isinstance(e.data, dict)]
    assert len(bad) == 1
    before = [e for e in result.events[: bad[0]] if e in _text_events(protocol, result.events)]
    assert len(before) == TOKENS_BEFORE_FAULT
    assert len(_text_events(protocol, result.events)) == 10
    last = result.events[-1].data["type"]
    assert last == ("message_stop" if protocol == "anthropic" else "response.incomplete")


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
async def test_pack_puts_four_tokens_in_each_text_event(server: LocalServer, protocol: str) -> None:
    result = await stream(server, protocol, request_body(protocol, 12, f"{MODEL}+pack"))
    texts = _text_events(protocol, result.events)
    assert len(texts) == 12 // TOKENS_PER_PACK
    record = record_of(server, _answer_id(protocol, result.events))
    assert len(record.chunk_emit_ns) == len(texts) and record.completion_tokens == 12


async def test_no_usage_leaves_usage_out_of_every_event(server: LocalServer) -> None:
    anthropic = await stream(server, "anthropic", request_body("anthropic", 5, f"{MODEL}+no-usage"))
    assert "usage" not in anthropic.events[0].data["message"]
    assert "usage" not in anthropic.events[-2].data
    responses = await stream(server, "responses", request_body("responses", 5, f"{MODEL}+no-usage"))
    assert responses.events[-1].data["response"]["usage"] is None
    status, body, _ = await post(
        server, "anthropic", request_body("anthropic", 5, f"{MODEL}+no-usage")
    )
    assert status == 200 and "usage" not in body


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
async def test_short_stall_pauses_after_three_tokens_then_finishes(protocol: str) -> None:
    async with LocalServer(settings=FAST, stall_seconds=0.3) as srv:
        began = time.perf_counter()
        result = await stream(srv, protocol, request_body(protocol, 8, f"{MODEL}+stall"))
        took = time.perf_counter() - began
        record = record_of(srv, _answer_id(protocol, result.events))
    assert took >= 0.3
    gaps = [b - a for a, b in zip(record.chunk_emit_ns, record.chunk_emit_ns[1:], strict=False)]
    assert max(range(len(gaps)), key=gaps.__getitem__) == TOKENS_BEFORE_FAULT - 1
    assert len(_text_events(protocol, result.events)) == 8 and record.finish_reason == "length"


async def test_emit_log_route_serves_every_protocols_records(server: LocalServer) -> None:
    result = await stream(server, "anthropic", request_body("anthropic", 4))
    answer_id = _answer_id("anthropic", result.events)
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.base_url}/_emit_log/{answer_id}") as r,
    ):
        record = await r.json()
    assert record["protocol"] == "anthropic" and len(record["chunk_emit_ns"]) == 4


def _text_events(protocol: str, events: list[Event]) -> list[Event]:
    kind = "content_block_delta" if protocol == "anthropic" else "response.output_text.delta"
    return [
        e
        for e in events
        if isinstance(e.data, dict)
        and e.data["type"] == kind
        and (protocol != "anthropic" or e.data["delta"]["type"] == "text_delta")
    ]


async def test_serve_local_process_takes_x_api_key_on_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The real `workbench serve-local` command, its key from --api-key-env."""
    monkeypatch.setenv("WB_TEST_SERVE_KEY", "sk-ant-served")
    process = ServerProcess(
        time_scale=0.001, extra=("--api-key-env", "WB_TEST_SERVE_KEY", "--v1-only")
    )
    base_url = await process.start()
    try:
        headers = {**ANTHROPIC, "x-api-key": "sk-ant-served"}
        async with aiohttp.ClientSession() as session, asyncio.timeout(20):
            body = {**request_body("anthropic", 5), "stream": True}
            async with session.post(f"{base_url}/messages", json=body, headers=headers) as r:
                assert r.status == 200
                events = parse_sse(await r.text())
            async with session.get(f"{base_url}/models", headers=headers) as r:
                assert r.status == 200 and (await r.json())["data"][0]["type"] == "model"
            async with session.post(
                f"{base_url}/messages", json=body, headers={**ANTHROPIC, "x-api-key": "nope"}
            ) as r:
                assert r.status == 401
                assert (await r.json())["error"]["type"] == "authentication_error"
    finally:
        await process.stop()
    assert events[-1].name == "message_stop"
    assert events[-2].data["usage"]["output_tokens"] == 5
