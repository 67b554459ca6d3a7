"""A tiny SSE server on 127.0.0.1 that plays a script, for exact streaming tests.

Each step is (delay_s, payload): payload is a dict (sent as a JSON chunk), a raw string
(sent verbatim as `data: ...`), "[DONE]", or "DROP" (close the socket without ending the stream).
The time each step was written is recorded with perf_counter_ns, the client's clock.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from aiohttp import web

Step = tuple[float, Any]


def chunk(
    content: str | None = None,
    *,
    role: str | None = None,
    reasoning: str | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": []
        if usage is not None and not delta and finish is None
        else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


class ScriptedServer:
    def __init__(
        self,
        script: Sequence[Step],
        status: int = 200,
        content_type: str = "text/event-stream",
        body: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.script = list(script)
        self.status = status
        self.content_type = content_type
        self.body = body
        self.headers = headers or {}
        self.emit_ns: list[int] = []
        self.requests: list[dict[str, Any]] = []
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _models(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "t"}],
            }
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        if self.body is not None:
            return web.Response(
                status=self.status,
                text=self.body,
                content_type=self.content_type,
                headers=self.headers,
            )
        resp = web.StreamResponse(
            status=self.status, headers={"Content-Type": self.content_type, **self.headers}
        )
        await resp.prepare(request)
        for delay, payload in self.script:
            if delay:
                await asyncio.sleep(delay)
            if payload == "DROP":
                assert request.transport is not None
                request.transport.abort()
                return resp
            data = payload if isinstance(payload, str) else json.dumps(payload)
            self.emit_ns.append(time.perf_counter_ns())
            await resp.write(f"data: {data}\n\n".encode())
        return resp

    async def __aenter__(self) -> ScriptedServer:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()
