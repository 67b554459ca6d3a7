"""The built-in local provider, tested as a real HTTP server on 127.0.0.1 with real clients."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import openai
import pytest

from workbench.core.models.catalog import load_catalog
from workbench.local.costmodel import SimSettings, SimTiming
from workbench.local.faults import FAULT_MODES, TOKENS_BEFORE_FAULT, TOKENS_PER_PACK
from workbench.local.server import LocalServer, serve_forever
from workbench.local.tokenizer import (
    count_prompt_tokens,
    count_tokens,
    pieces,
    tokenize,
)

MODEL = "sim-70b-gqa"
MHA_MODEL = "sim-70b-mha"
FAST = SimSettings(time_scale=0.001)
USER = [{"role": "user", "content": "Explain why long prompts slow decoding down."}]


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with LocalServer(settings=FAST) as srv:
        yield srv


@asynccontextmanager
async def oai(srv: LocalServer, api_key: str = "unused") -> AsyncIterator[openai.AsyncOpenAI]:
    client = openai.AsyncOpenAI(base_url=srv.base_url, api_key=api_key, max_retries=0)
    try:
        yield client
    finally:
        await client.close()


async def sse_events(
    srv: LocalServer, body: dict[str, Any], headers: dict[str, str] | None = None
) -> tuple[list[Any], aiohttp.ClientResponse]:
    """POST a streaming request; return the parsed data payloads ([DONE] kept as a string)."""
    events: list[Any] = []
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{srv.base_url}/chat/completions", json={"stream": True, **body}, headers=headers
        ) as resp,
    ):
        assert resp.status == 200, await resp.text()
        async for raw in resp.content:
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            data = line[len("data: ") :]
            try:
                events.append(data if data == "[DONE]" else json.loads(data))
            except json.JSONDecodeError:
                events.append(("malformed", data))
    return events, resp


def content_of(events: list[Any], field: str = "content") -> list[str]:
    return [
        e["choices"][0]["delta"][field]
        for e in events
        if isinstance(e, dict) and e["choices"] and e["choices"][0]["delta"].get(field)
    ]


# tokenizer


def test_tokenizer_rules() -> None:
    assert tokenize("Attention is all you need") == ["Attent", "ion", "is", "all", "you", "need"]
    assert tokenize("KV 1024, 注意力!") == ["KV", "1", "0", "2", "4", ",", "注", "意", "力", "!"]
    assert count_tokens("  \n\t ") == 0
    assert count_tokens("café") == 2  # 'caf' + 'é': non-ASCII letters are single tokens


def test_pieces_keep_whitespace_and_count() -> None:
    text = "The KV cache  grows,\nlinearly 42 注意"
    split = pieces(text)
    assert "".join(split) == text
    assert len(split) == count_tokens(text)
    assert all(count_tokens(piece) == 1 for piece in split)


def test_prompt_tokens_formula_and_content_parts() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}],
        },
    ]
    assert count_prompt_tokens(messages) == (3 + 4) + (2 + 4) + 3


def test_counting_a_4mb_prompt_is_fast() -> None:
    text = "The decode loop reads the whole KV cache of every layer, 128 times; " * 60_000
    assert len(text) > 4_000_000
    began = time.perf_counter()
    n = count_tokens(text)
    assert time.perf_counter() - began < 1.0
    assert n > 1_000_000


# models, paths, auth


async def test_models_list_has_the_catalog_models(server: LocalServer) -> None:
    expected = [m.id for m in load_catalog().simulated()]
    async with aiohttp.ClientSession() as session, session.get(f"{server.base_url}/models") as r:
        body = await r.json()
    assert r.status == 200
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == expected
    assert set(body["data"][0]) == {"id", "object", "created", "owned_by"}
    assert body["data"][0]["object"] == "model"
    async with oai(server) as client:
        page = await client.models.list()
    assert [m.id for m in page.data] == expected


async def test_base_url_and_port() -> None:
    async with LocalServer(settings=FAST) as srv:
        assert srv.port > 0
        assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"


@pytest.mark.parametrize("allow_no_v1", [True, False])
async def test_no_v1_switch(allow_no_v1: bool) -> None:
    async with LocalServer(settings=FAST, allow_no_v1=allow_no_v1) as srv:
        root = f"http://127.0.0.1:{srv.port}"
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{root}/v1/models") as r:
                assert r.status == 200
            async with session.get(f"{root}/models") as r:
                assert r.status == (200 if allow_no_v1 else 404)
                if not allow_no_v1:
                    assert (await r.json())["error"]["code"] == "not_found"
            body = {"model": MODEL, "messages": USER, "max_tokens": 3}
            async with session.post(f"{root}/chat/completions", json=body) as r:
                assert r.status == (200 if allow_no_v1 else 404)


async def test_unknown_path_is_404_json(server: LocalServer) -> None:
    async with aiohttp.ClientSession() as session, session.get(f"{server.base_url}/nope") as r:
        assert r.status == 404
        body = await r.json()
    assert set(body["error"]) >= {"message", "type", "code"}


async def test_bearer_auth() -> None:
    async with LocalServer(settings=FAST, api_key="sk-local-test") as srv:
        async with oai(srv, api_key="wrong") as client:
            with pytest.raises(openai.AuthenticationError) as info:
                await client.models.list()
        assert info.value.status_code == 401
        assert info.value.code == "invalid_api_key"
        async with aiohttp.ClientSession() as session, session.get(f"{srv.base_url}/models") as r:
            assert r.status == 401
            assert set((await r.json())["error"]) >= {"message", "type", "code"}
        async with oai(srv, api_key="sk-local-test") as client:
            page = await client.models.list()
            reply = await client.chat.completions.create(model=MODEL, messages=USER, max_tokens=3)
        assert page.data
        assert reply.usage is not None and reply.usage.completion_tokens == 3


async def test_unknown_model_404_names_it_and_close_matches(server: LocalServer) -> None:
    async with oai(server) as client:
        with pytest.raises(openai.NotFoundError) as info:
            await client.chat.completions.create(model="sim-70b-gq", messages=USER, max_tokens=3)
    assert info.value.code == "model_not_found"
    assert "sim-70b-gq" in info.value.message
    assert MODEL in info.value.message


async def test_bad_requests_are_400(server: LocalServer) -> None:
    url = f"{server.base_url}/chat/completions"
    async with aiohttp.ClientSession() as session:
        async with session.post(url, data=b"{not json") as r:
            assert r.status == 400
        async with session.post(url, json={"model": MODEL, "messages": []}) as r:
            assert r.status == 400
        async with session.post(url, json={"model": MODEL, "messages": USER, "max_tokens": 0}) as r:
            assert r.status == 400
            assert (await r.json())["error"]["param"] == "max_tokens"


# streaming and non-streaming


async def test_stream_shape_role_first_then_content_finish_usage_done(server: LocalServer) -> None:
    events, resp = await sse_events(
        server,
        {
            "model": MODEL,
            "messages": USER,
            "max_tokens": 12,
            "stream_options": {"include_usage": True},
        },
    )
    assert resp.headers["Content-Type"].startswith("text/event-stream")
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert len({c["id"] for c in chunks}) == 1
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    texts = content_of(chunks)
    assert len(texts) == 12 and len(chunks) == 12 + 3  # one token per chunk
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"
    usage = chunks[-1]["usage"]
    assert chunks[-1]["choices"] == []
    assert usage["completion_tokens"] == 12 == count_tokens("".join(texts))
    assert usage["prompt_tokens"] == count_prompt_tokens(USER)
    assert usage["total_tokens"] == usage["prompt_tokens"] + 12
    assert usage["prompt_tokens_details"] == {"cached_tokens": 0}


async def test_openai_stream_completion_tokens_equal_token_count(server: LocalServer) -> None:
    async with oai(server) as client:
        stream = await client.chat.completions.create(
            model=MODEL,
            messages=USER,
            max_completion_tokens=40,
            stream=True,
            stream_options={"include_usage": True},
        )
        text, usage, finish = "", None, None
        async for chunk in stream:
            if chunk.choices:
                text += chunk.choices[0].delta.content or ""
                finish = chunk.choices[0].finish_reason or finish
            if chunk.usage:
                usage = chunk.usage
    assert usage is not None
    assert usage.completion_tokens == 40 == count_tokens(text)
    assert finish == "length"
    assert len(text.split()) > 10  # readable prose, not token soup


async def test_no_usage_chunk_unless_asked(server: LocalServer) -> None:
    events, _ = await sse_events(server, {"model": MODEL, "messages": USER, "max_tokens": 4})
    assert all("usage" not in e for e in events if isinstance(e, dict))


async def test_non_stream_completion(server: LocalServer) -> None:
    async with oai(server) as client:
        reply = await client.chat.completions.create(model=MODEL, messages=USER, max_tokens=20)
    assert reply.object == "chat.completion"
    assert reply.choices[0].finish_reason == "length"
    text = reply.choices[0].message.content or ""
    assert reply.usage is not None
    assert reply.usage.completion_tokens == 20 == count_tokens(text)
    assert reply.usage.prompt_tokens == count_prompt_tokens(USER)


async def test_stop_sequence_ends_early_with_stop(server: LocalServer) -> None:
    async with oai(server) as client:
        full = await client.chat.completions.create(
            model=MODEL, messages=USER, max_tokens=30, temperature=0
        )
        words = (full.choices[0].message.content or "").split()
        cut = await client.chat.completions.create(
            model=MODEL, messages=USER, max_tokens=30, temperature=0, stop=[words[3]]
        )
    assert cut.choices[0].finish_reason == "stop"
    assert cut.usage is not None and cut.usage.completion_tokens < 30
    assert cut.usage.completion_tokens == count_tokens(cut.choices[0].message.content or "")


async def test_temperature_zero_is_deterministic_else_varied(server: LocalServer) -> None:
    async def text(temperature: float) -> str:
        async with oai(server) as client:
            reply = await client.chat.completions.create(
                model=MODEL, messages=USER, max_tokens=40, temperature=temperature
            )
        return reply.choices[0].message.content or ""

    assert await text(0) == await text(0)
    assert await text(0.8) != await text(0.8)


async def test_needle_answer_in_first_sentence(server: LocalServer) -> None:
    filler = "The cache is read once per token. " * 200
    prompt = (
        f"{filler}\nThe secret code for the blue door is 7421-ALPHA.\n{filler}\n"
        "Question: What is the secret code for the blue door?\nAnswer briefly."
    )
    async with oai(server) as client:
        reply = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=24
        )
    first_sentence = (reply.choices[0].message.content or "").split(".")[0]
    assert "7421-ALPHA" in first_sentence


async def test_chinese_prompt_gets_chinese_text(server: LocalServer) -> None:
    prompt = "请解释为什么长上下文会让解码变慢。注意力机制需要读取全部缓存。"
    async with oai(server) as client:
        reply = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=30
        )
    text = reply.choices[0].message.content or ""
    assert sum("\u4e00" <= ch <= "\u9fff" for ch in text) > 15
    assert reply.usage is not None and reply.usage.completion_tokens == count_tokens(text) == 30


# timing and the emit log


async def test_emit_log_matches_stream_and_follows_schedule(server: LocalServer) -> None:
    max_tokens = 10
    events, _ = await sse_events(
        server,
        {"model": MODEL, "messages": USER, "max_tokens": max_tokens},
    )
    record = server.emit_log.get(events[0]["id"])
    assert record is not None
    assert record.model == MODEL
    assert record.completion_tokens == max_tokens == len(record.chunk_emit_ns)
    assert record.prompt_tokens == count_prompt_tokens(USER)
    assert record.finish_reason == "length"
    assert record.t_first_content_ns == record.chunk_emit_ns[0]
    assert record.chunk_emit_ns == sorted(record.chunk_emit_ns)
    # never earlier than the cost model's absolute schedule
    model = next(m for m in load_catalog().simulated() if m.id == MODEL)
    timing = SimTiming(model, FAST)
    target = timing.ttft_s(record.prompt_tokens)
    for index, emitted in enumerate(record.chunk_emit_ns):
        if index:
            target += timing.token_interval_s(record.prompt_tokens + index, index)
        assert emitted - record.t_received_ns >= target * 1e9 - 1e5  # 0.1 ms of float slack

    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.base_url}/_emit_log/{record.completion_id}") as r,
    ):
        assert (await r.json())["chunk_emit_ns"] == record.chunk_emit_ns


async def test_arrivals_route_lists_one_models_arrivals_in_order(server: LocalServer) -> None:
    ids = []
    for model in (MODEL, MHA_MODEL, MODEL, MODEL):
        events, _ = await sse_events(server, {"model": model, "messages": USER, "max_tokens": 2})
        ids.append((model, events[0]["id"]))
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.base_url}/_emit_log/_arrivals/{MODEL}") as r,
    ):
        arrivals = (await r.json())["t_headers_ns"]  # each request's headers read
    records = [server.emit_log.get(i) for m, i in ids if m == MODEL]
    assert arrivals == [r.t_headers_ns for r in records if r is not None]
    assert len(arrivals) == 3 and arrivals == sorted(arrivals)


async def test_ttft_follows_the_cost_model() -> None:
    settings = SimSettings(time_scale=0.05)
    async with LocalServer(settings=settings) as srv:
        events, _ = await sse_events(srv, {"model": MODEL, "messages": USER, "max_tokens": 2})
        record = srv.emit_log.get(events[0]["id"])
    assert record is not None and record.t_first_content_ns is not None
    model = next(m for m in load_catalog().simulated() if m.id == MODEL)
    ttft = SimTiming(model, settings).ttft_s(record.prompt_tokens)
    measured = (record.t_first_content_ns - record.t_received_ns) / 1e9
    assert ttft <= measured < ttft + 0.25


# faults


STATUS_FAULTS = {
    "401": openai.AuthenticationError,
    "404": openai.NotFoundError,
    "429": openai.RateLimitError,
    "500": openai.InternalServerError,
    "503": openai.InternalServerError,
}


@pytest.mark.parametrize("mode", sorted(STATUS_FAULTS))
@pytest.mark.parametrize("via", ["header", "suffix"])
async def test_status_faults_raise_the_sdk_error(server: LocalServer, mode: str, via: str) -> None:
    model = f"{MODEL}+{mode}" if via == "suffix" else MODEL
    headers = {"X-Sim-Fault": mode} if via == "header" else None
    async with oai(server) as client:
        with pytest.raises(STATUS_FAULTS[mode]) as info:
            await client.chat.completions.create(
                model=model, messages=USER, max_tokens=3, extra_headers=headers
            )
    assert info.value.status_code == int(mode)
    if mode in ("429", "503"):
        assert info.value.response.headers["Retry-After"] == "1"
    if mode == "429":
        assert info.value.code == "rate_limit_exceeded"


async def test_status_fault_on_models_route(server: LocalServer) -> None:
    async with oai(server) as client:
        with pytest.raises(openai.RateLimitError):
            await client.models.list(extra_headers={"X-Sim-Fault": "429"})


@pytest.mark.parametrize(("mode", "status"), [("html", 502), ("html200", 200)])
async def test_html_faults_answer_an_html_page(server: LocalServer, mode: str, status: int) -> None:
    body = {"model": f"{MODEL}+{mode}", "messages": USER, "stream": True}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{server.base_url}/chat/completions", json=body) as r,
    ):
        assert r.status == status
        assert r.headers["Content-Type"].startswith("text/html")
        assert "<html>" in await r.text()


async def test_unknown_fault_is_400_listing_modes(server: LocalServer) -> None:
    async with oai(server) as client:
        with pytest.raises(openai.BadRequestError) as info:
            await client.chat.completions.create(model=f"{MODEL}+bogus", messages=USER)
    assert "bogus" in info.value.message
    assert all(mode in info.value.message for mode in FAULT_MODES)


async def test_no_usage_fault_ignores_include_usage(server: LocalServer) -> None:
    events, _ = await sse_events(
        server,
        {
            "model": MODEL,
            "messages": USER,
            "max_tokens": 5,
            "stream_options": {"include_usage": True},
        },
        headers={"X-Sim-Fault": "no-usage"},
    )
    assert events[-1] == "[DONE]"
    assert all("usage" not in e for e in events if isinstance(e, dict))


async def test_reasoning_streams_reasoning_first(server: LocalServer) -> None:
    events, _ = await sse_events(
        server,
        {
            "model": f"{MODEL}+reasoning",
            "messages": USER,
            "max_tokens": 100,
            "stream_options": {"include_usage": True},
        },
    )
    deltas = [e["choices"][0]["delta"] for e in events if isinstance(e, dict) and e["choices"]]
    kinds = [
        "r" if d.get("reasoning_content") else "c"
        for d in deltas
        if d.get("reasoning_content") or d.get("content")
    ]
    n_reasoning = kinds.count("r")
    assert 20 <= n_reasoning <= 50
    assert kinds == ["r"] * n_reasoning + ["c"] * (100 - n_reasoning)
    usage = events[-2]["usage"]
    assert usage["completion_tokens"] == 100
    assert usage["completion_tokens_details"]["reasoning_tokens"] == n_reasoning
    record = server.emit_log.get(events[0]["id"])
    assert record is not None and record.t_first_content_ns is not None
    assert record.t_first_token_ns is not None
    assert record.t_first_content_ns > record.t_first_token_ns


async def test_pack_puts_several_tokens_in_one_event(server: LocalServer) -> None:
    events, _ = await sse_events(
        server,
        {
            "model": MODEL,
            "messages": USER,
            "max_tokens": 10,
            "stream_options": {"include_usage": True},
        },
        headers={"X-Sim-Fault": "pack"},
    )
    texts = content_of(events)
    assert [count_tokens(t) for t in texts] == [TOKENS_PER_PACK, TOKENS_PER_PACK, 2]
    assert events[-2]["usage"]["completion_tokens"] == 10 == count_tokens("".join(texts))


async def test_malformed_sends_a_chunk_that_is_not_json(server: LocalServer) -> None:
    events, _ = await sse_events(
        server, {"model": MODEL, "messages": USER, "max_tokens": 6}, {"X-Sim-Fault": "malformed"}
    )
    bad = [e for e in events if isinstance(e, tuple)]
    assert len(bad) == 1
    assert events[-1] == "[DONE]"
    async with oai(server) as client:
        stream = await client.chat.completions.create(
            model=f"{MODEL}+malformed", messages=USER, max_tokens=6, stream=True
        )
        with pytest.raises(json.JSONDecodeError):
            async for _ in stream:
                pass


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> bool:
    return not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def until_handlers_end(server: LocalServer, timeout: float = 10) -> None:
    """Until every request handler has returned: whatever it would log is logged by then."""
    async with asyncio.timeout(timeout):
        while server._handlers:
            await asyncio.sleep(0.01)


async def test_drop_cuts_the_connection_mid_stream(
    server: LocalServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    received: list[str] = []
    async with oai(server) as client:
        stream = await client.chat.completions.create(
            model=f"{MODEL}+drop", messages=USER, max_tokens=20, stream=True
        )
        with pytest.raises(openai.APIConnectionError):
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    received.append(chunk.choices[0].delta.content)
    assert len(received) == TOKENS_BEFORE_FAULT
    async with oai(server) as client:
        with pytest.raises(openai.APIConnectionError):
            await client.chat.completions.create(model=f"{MODEL}+drop", messages=USER, max_tokens=5)
    await until_handlers_end(server)
    assert no_tracebacks(caplog)


async def test_stall_stops_sending_and_ends_when_client_leaves(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    async with LocalServer(settings=FAST, stall_seconds=3600) as srv:
        body = {"model": f"{MODEL}+stall", "messages": USER, "max_tokens": 20, "stream": True}
        texts = 0
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{srv.base_url}/chat/completions", json=body) as r,
        ):
            while texts < TOKENS_BEFORE_FAULT + 1:  # the role chunk, then the tokens
                line = await asyncio.wait_for(r.content.readline(), 5)
                texts += line.startswith(b"data: ")
            assert await r.content.readline() == b"\n"  # the blank line that ends an event
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(r.content.readline(), 0.3)
        await until_handlers_end(srv)  # the stalled handler ends when the client hangs up
    assert no_tracebacks(caplog)


async def test_short_stall_resumes_and_finishes() -> None:
    async with LocalServer(settings=FAST, stall_seconds=0.3) as srv:
        began = time.perf_counter()
        events, _ = await sse_events(
            srv, {"model": MODEL, "messages": USER, "max_tokens": 8}, {"X-Sim-Fault": "stall"}
        )
    assert time.perf_counter() - began >= 0.3
    assert len(content_of(events)) == 8 and events[-1] == "[DONE]"


async def test_stop_closes_open_streams_promptly(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    srv = LocalServer(settings=FAST, stall_seconds=3600)
    await srv.start()
    body = {"model": f"{MODEL}+stall", "messages": USER, "max_tokens": 20, "stream": True}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{srv.base_url}/chat/completions", json=body) as r,
    ):
        await asyncio.wait_for(r.content.readline(), 5)
        began = time.perf_counter()
        await srv.stop()
        assert time.perf_counter() - began < 2.0
        with pytest.raises(aiohttp.ClientPayloadError):
            await asyncio.wait_for(r.content.read(), 5)
    assert no_tracebacks(caplog)


async def test_serve_forever_announces_url_and_models() -> None:
    lines: list[str] = []
    stop = asyncio.Event()
    task = asyncio.create_task(
        serve_forever(port=0, settings=FAST, stop_event=stop, announce=lines.append)
    )
    for _ in range(100):
        if lines:
            break
        await asyncio.sleep(0.02)
    assert lines[0].startswith("Local provider listening at http://127.0.0.1:")
    assert any(MODEL in line for line in lines[1:])
    stop.set()
    await asyncio.wait_for(task, 5)


async def test_retrieve_one_model(server: LocalServer) -> None:
    async with oai(server) as client:
        model = await client.models.retrieve(MODEL)
        assert model.id == MODEL
        with pytest.raises(openai.NotFoundError):
            await client.models.retrieve("sim-nope")


async def test_client_disconnect_mid_stream_logs_no_traceback(
    server: LocalServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with oai(server) as client:
        stream = await client.chat.completions.create(
            model=MODEL, messages=USER, max_tokens=2000, stream=True
        )
        async for _ in stream:
            break
        await stream.close()
    await until_handlers_end(server)
    assert no_tracebacks(caplog)


async def test_256_concurrent_streams(server: LocalServer) -> None:
    body = {"model": MODEL, "messages": USER, "max_tokens": 16, "stream": True}
    connector = aiohttp.TCPConnector(limit=0)

    async def one(session: aiohttp.ClientSession) -> bytes:
        async with session.post(f"{server.base_url}/chat/completions", json=body) as r:
            return await r.read()

    async with aiohttp.ClientSession(connector=connector) as session:
        bodies = await asyncio.gather(*(one(session) for _ in range(256)))
    assert all(b.rstrip().endswith(b"data: [DONE]") for b in bodies)


# refusals from the cost model


def long_messages(target_tokens: int) -> list[dict[str, str]]:
    sentence = "Every decoded token reads the whole KV cache of every layer once. "
    text = sentence * (target_tokens // count_tokens(sentence) + 1)
    return [{"role": "user", "content": text}]


async def test_kv_refusal_for_mha_at_512k(server: LocalServer) -> None:
    messages = long_messages(512_000)
    prompt_tokens = count_prompt_tokens(messages)
    model = next(m for m in load_catalog().simulated() if m.id == MHA_MODEL)
    expected = SimTiming(model, FAST).check(prompt_tokens, 16)
    assert expected is not None, "the cost model should not fit MHA-70B's KV cache at 512K"
    async with oai(server) as client:
        with pytest.raises(openai.BadRequestError) as info:
            await client.chat.completions.create(model=MHA_MODEL, messages=messages, max_tokens=16)
    assert info.value.status_code == 400
    assert info.value.code in ("kv_cache_exhausted", "context_length_exceeded")
    assert expected in info.value.message


async def test_context_window_refusal(server: LocalServer) -> None:
    model = next(m for m in load_catalog().simulated() if m.id == MODEL)
    messages = long_messages(model.context_window + 10)
    async with oai(server) as client:
        with pytest.raises(openai.BadRequestError) as info:
            await client.chat.completions.create(model=MODEL, messages=messages, max_tokens=16)
    assert info.value.code == "context_length_exceeded"
