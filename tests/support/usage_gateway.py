"""A loopback gateway whose usage can be made up, and whose first answers can be refusals.

It streams one word per event, up to max_tokens (at most `MAX_EVENTS`), then a usage block:
the prompt counted as `prompt_chars / CHARS_PER_TOKEN + TEMPLATE_TOKENS` (a tokenizer of its
own, exact and linear, so a calibration learns it), the completion as the events sent. After
its first `honest` answers it makes usage up as a gateway that counts with another tokenizer
does: the prompt count times `prompt_factor`, the completion count times `completion_factor`.
`refusals` are answered, one per chat request, before any stream; `then` answers every chat
request after them (a gateway's cooldown 429, say).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.gateway_imitation import Refusal

MAX_EVENTS = 64
CHARS_PER_TOKEN = 4.0
TEMPLATE_TOKENS = 8


@dataclass
class UsageGateway:
    honest: int = 1_000_000
    prompt_factor: float = 1.0
    completion_factor: float = 1.0
    refusals: list[Refusal] = field(default_factory=list)
    then: Refusal | None = None
    usage: bool = True  # False: no usage block at all, as an upstream without it
    max_tokens_asked: list[int] = field(default_factory=list)  # per chat request, in order
    answered: int = 0  # streams sent

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        return app

    async def _models(self, _request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "gw-model"}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        try:
            payload: dict[str, Any] = await request.json()
        except ValueError:
            payload = {}
        self.max_tokens_asked.append(int(payload.get("max_tokens") or 0))
        refusal = self.refusals.pop(0) if self.refusals else self.then
        if refusal is not None:
            return web.json_response(refusal.body, status=refusal.status, headers=refusal.headers)
        messages = payload.get("messages") or []
        if not messages:  # the doctor's empty probe: refused as an OpenAI server does
            return web.json_response({"error": {"message": "messages is required"}}, status=400)
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        prompt = round(chars / CHARS_PER_TOKEN) + TEMPLATE_TOKENS
        events = min(int(payload.get("max_tokens") or 1), MAX_EVENTS)
        completion = events
        if self.answered >= self.honest:
            prompt = round(prompt * self.prompt_factor)
            completion = math.floor(events * self.completion_factor)
        self.answered += 1
        return await _stream(request, events, prompt, completion, self.usage)


async def _stream(
    request: web.Request, events: int, prompt: int, completion: int, usage_block: bool
) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gw-model"}
    for i in range(events):
        finish = "length" if i == events - 1 else None
        choice = {"index": 0, "delta": {"content": f"w{i} "}, "finish_reason": finish}
        await response.write(f"data: {json.dumps({**base, 'choices': [choice]})}\n\n".encode())
    if usage_block:
        usage = {"prompt_tokens": prompt, "completion_tokens": completion}
        usage["total_tokens"] = prompt + completion
        chunk = {**base, "choices": [], "usage": usage}
        await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response
