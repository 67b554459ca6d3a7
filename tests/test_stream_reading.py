"""How a stream is sent and read since issue 14's per-token cuts: the same request body, the
same bytes (a compressed body still decoded), the same meaning of every chunk, and the CLI's
loop on uvloop where it exists."""

from __future__ import annotations

import asyncio
import gzip
import json
import sys

import pytest
from aiohttp import web
from scripted_server import ScriptedServer, chunk

from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat

USAGE = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
TRANSPORTS = ["aiohttp", "httpx"]


async def _stream(base_url: str, transport: str, spec: RequestSpec) -> RequestResult:
    client = make_client(base_url, None, transport)  # type: ignore[arg-type]
    try:
        return await asyncio.wait_for(stream_chat(client, RequestResult(model="m"), spec), 20)
    finally:
        await client.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_request_body_carries_the_messages_and_extra_body_as_given(transport: str) -> None:
    script = [(0, chunk("Hi")), (0, chunk(finish="stop")), (0, chunk(usage=USAGE)), (0, "[DONE]")]
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Explain KV caches."},
    ]
    spec = RequestSpec(messages, max_tokens=7, extra_body={"top_k": 3})
    async with ScriptedServer(script) as server:
        result = await _stream(server.base_url, transport, spec)
    assert result.ok, result.error_message
    (body,) = server.requests
    assert body == {
        "model": "m",
        "messages": messages,
        "max_tokens": 7,
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
        "top_k": 3,
    }


class _GzipServer:
    """A whole SSE stream sent gzip-compressed (`Content-Encoding: gzip`), as some gateways do."""

    def __init__(self, events: list[str]) -> None:
        self.body = gzip.compress("".join(f"data: {e}\n\n" for e in events).encode())
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    async def _chat(self, request: web.Request) -> web.Response:
        await request.read()
        headers = {"Content-Type": "text/event-stream", "Content-Encoding": "gzip"}
        return web.Response(body=self.body, headers=headers)

    async def __aenter__(self) -> _GzipServer:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_gzip_compressed_stream_is_decoded_before_it_is_split(transport: str) -> None:
    events = [
        json.dumps(chunk("Hello")),
        json.dumps(chunk(" world")),
        json.dumps(chunk(finish="stop")),
        json.dumps(chunk(usage=USAGE)),
        "[DONE]",
    ]
    spec = RequestSpec([{"role": "user", "content": "hi"}], max_tokens=8)
    async with _GzipServer(events) as server:
        result = await _stream(server.base_url, transport, spec)
    assert result.ok, result.error_message
    assert result.text == "Hello world"
    assert result.completion_tokens == 2 and len(result.event_times) == 2


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_json_the_fast_parser_refuses_still_means_what_json_says(transport: str) -> None:
    # NaN, 1e400 and a byte-order mark are JSON that Python's json reads and orjson refuses:
    # the chunk counts as it always did, never as malformed
    nan_text = '{"choices":[{"index":0,"delta":{"content":"Hi"}}],"x":NaN}'
    huge_usage = (
        '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":'
        "100000000000000000000000,"
        '"total_tokens":1e400}}'
    )
    script = [(0, nan_text), (0, chunk(finish="stop")), (0, huge_usage), (0, "[DONE]")]
    spec = RequestSpec([{"role": "user", "content": "hi"}], max_tokens=8)
    async with ScriptedServer(script) as server:
        result = await _stream(server.base_url, transport, spec)
    assert result.ok, result.error_message
    assert result.text == "Hi"
    # the absurd completion count is not believed: estimated from the text, and said so
    assert result.prompt_tokens == 5
    assert result.completion_tokens == 1 and result.usage_estimated


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_json_neither_parser_reads_is_a_malformed_row(transport: str) -> None:
    script = [(0, chunk("Hi")), (0, '{"choices": [1, }'), (0, "[DONE]")]
    spec = RequestSpec([{"role": "user", "content": "hi"}], max_tokens=8)
    async with ScriptedServer(script) as server:
        result = await _stream(server.base_url, transport, spec)
    assert result.error_class is ErrorClass.MALFORMED
    assert (result.error_message or "").startswith("bad stream event (JSONDecodeError")
    assert result.text == "Hi"  # what came before is kept


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop does not exist for Windows")
def test_headless_runs_use_uvloop_where_it_is_installed() -> None:
    pytest.importorskip("uvloop")
    from workbench.core.system.loop import run

    async def loop_module() -> str:
        return type(asyncio.get_running_loop()).__module__

    assert run(loop_module()).startswith("uvloop")
