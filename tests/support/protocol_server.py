"""A small server on 127.0.0.1 that speaks Anthropic Messages and OpenAI Responses by replaying
the documented event sequences in tests/data/protocols/*.sse, for the protocol tests.

Each path answers either a replayed stream (`streams`: path -> file name) or a fixed answer
(`answers`: path -> (status, content type, body)); any other path is aiohttp's 404. It records
every request's headers and JSON body, and the perf_counter_ns moment it wrote each event (the
client's clock, since both run in this process). `text_pause_s` holds back the first event that
carries text, so that a test can tell the first event from the first token.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.support.loopback import serving

DATA = Path(__file__).parents[1] / "data" / "protocols"
TEXT_EVENTS = (
    "text_delta",
    "thinking_delta",
    "response.output_text.delta",
    "response.reasoning_summary_text.delta",
)
ANTHROPIC_MODELS = {
    "data": [
        {"id": "claude-sonnet-4-5", "type": "model", "display_name": "Claude Sonnet 4.5"},
        {"id": "claude-haiku-4-5", "type": "model", "display_name": "Claude Haiku 4.5"},
    ],
    "has_more": False,
    "first_id": "claude-sonnet-4-5",
    "last_id": "claude-haiku-4-5",
}
OPENAI_404 = json.dumps(
    {
        "error": {
            "message": "Invalid URL (POST /v1/messages)",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
)
ANTHROPIC_404 = json.dumps(
    {"type": "error", "error": {"type": "not_found_error", "message": "Not Found"}}
)
HTML_404 = "<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>"


def anthropic_error(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


def sse_events(name: str) -> list[str]:
    """The events of a .sse file, each with its `event:` and `data:` lines."""
    text = (DATA / name).read_text(encoding="utf-8")
    return [block.strip() + "\n\n" for block in text.split("\n\n") if block.strip()]


class ProtocolServer:
    def __init__(
        self,
        streams: dict[str, str] | None = None,
        answers: dict[str, tuple[int, str, str]] | None = None,
        text_pause_s: float = 0.0,
        versions: tuple[str, ...] | None = None,
    ) -> None:
        self.streams = streams or {}
        self.answers = answers or {}
        self.text_pause_s = text_pause_s
        self.versions = versions  # anthropic-version values accepted on /v1/messages; None: any
        self.headers: list[dict[str, str]] = []
        self.bodies: list[Any] = []
        self.emit_ns: list[int] = []
        self.first_text_ns: int | None = None
        self.base_url = ""
        self._served: Any = None

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        self.bodies.append(await request.json() if request.method == "POST" else None)
        version = request.headers.get("anthropic-version")
        if (
            path.endswith("/messages")
            and self.versions is not None
            and version not in self.versions
        ):
            message = "anthropic-version: header is required"
            body = anthropic_error("invalid_request_error", message)
            return web.Response(status=400, text=body, content_type="application/json")
        if path in self.answers:
            status, content_type, body = self.answers[path]
            return web.Response(status=status, text=body, content_type=content_type)
        if path not in self.streams:
            raise web.HTTPNotFound()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        paused = False
        for event in sse_events(self.streams[path]):
            carries_text = any(f'"{kind}"' in event for kind in TEXT_EVENTS)
            if carries_text and not paused and self.text_pause_s:
                paused = True
                await asyncio.sleep(self.text_pause_s)
            now = time.perf_counter_ns()
            self.emit_ns.append(now)
            if carries_text and self.first_text_ns is None:
                self.first_text_ns = now
            await resp.write(event.encode())
        return resp

    async def __aenter__(self) -> ProtocolServer:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._answer)
        self._served = serving(app)
        self.base_url = await self._served.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._served.__aexit__(None, None, None)
