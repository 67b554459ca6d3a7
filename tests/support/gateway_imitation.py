"""A loopback server that answers as a gateway or an inference server does: fixed error answers
(status, JSON body, headers) per path, a model list, and streamed chat completions for the ids
it serves. Used by the tests that run the real CLI against it in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

from aiohttp import web

# LiteLLM 1.x without a database, asked with a wrong key (GET /models and POST /chat/completions
# alike): its ProxyException as JSON, HTTP 400
LITELLM_NO_DB = {
    "error": {
        "message": "No connected db.",
        "type": "no_db_connection",
        "param": "None",
        "code": "400",
    }
}

# LiteLLM, a listed alias whose upstream model id is wrong: the upstream's 404, wrapped
LITELLM_BROKEN_ROUTE = {
    "error": {
        "message": "litellm.NotFoundError: OpenAIException - Error code: 404 - {'error': "
        "{'message': \"The model 'wrong-upstream-id' does not exist\"}}. Received Model Group="
        "gw-model\nAvailable Model Group Fallbacks=None",
        "type": None,
        "param": None,
        "code": "404",
    }
}

# LiteLLM, a listed alias whose upstream is down: the upstream's connection error, wrapped
LITELLM_UPSTREAM_DOWN = {
    "error": {
        "message": "litellm.InternalServerError: OpenAIException - Connection error.. Received "
        "Model Group=gw-model",
        "type": None,
        "param": None,
        "code": "500",
    }
}


@dataclass
class Refusal:
    status: int
    body: dict[str, object]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Imitation:
    """`listed`: the ids GET /models returns; `served`: the ids chat streams for (others: 404
    naming the model); `refuse_models` / `refuse_chat`: a fixed answer instead."""

    listed: list[str]
    served: list[str]
    refuse_models: Refusal | None = None
    refuse_chat: Refusal | None = None
    chat_requests: list[str] = field(default_factory=list)
    token_delay_s: float = 0.0  # between streamed tokens
    spans: list[tuple[str, float, float]] = field(default_factory=list)  # model, start, end

    def app(self) -> web.Application:
        app = web.Application()
        for prefix in ("", "/v1"):
            app.router.add_get(prefix + "/models", self._models)
            app.router.add_post(prefix + "/chat/completions", self._chat)
        return app

    async def _models(self, _request: web.Request) -> web.Response:
        if self.refuse_models is not None:
            return _refusal(self.refuse_models)
        data = [{"id": m, "object": "model", "owned_by": "test"} for m in self.listed]
        return web.json_response({"object": "list", "data": data})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        if self.refuse_chat is not None:
            return _refusal(self.refuse_chat)
        try:
            payload = await request.json()
        except ValueError:
            payload = {}
        model = str(payload.get("model", "")) if isinstance(payload, dict) else ""
        if not model:
            body = {"error": {"message": "model is required", "type": "invalid_request_error"}}
            return web.json_response(body, status=400)
        self.chat_requests.append(model)
        if model not in self.served:
            message = f"The model '{model}' does not exist"
            body = {"error": {"message": message, "type": "invalid_request_error"}}
            return web.json_response(body, status=404)
        start = time.monotonic()
        max_tokens = int(payload.get("max_tokens") or 4)
        response = await _stream(request, model, max_tokens, self.token_delay_s)
        self.spans.append((model, start, time.monotonic()))
        return response


def _refusal(refusal: Refusal) -> web.Response:
    return web.json_response(refusal.body, status=refusal.status, headers=refusal.headers)


async def _stream(
    request: web.Request, model: str, max_tokens: int, delay_s: float
) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    n = min(max_tokens, 4)
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model}
    for i in range(n):
        finish = "length" if i == n - 1 else None
        choice = {"index": 0, "delta": {"content": f"w{i} "}, "finish_reason": finish}
        await asyncio.sleep(delay_s)
        await response.write(f"data: {json.dumps({**base, 'choices': [choice]})}\n\n".encode())
    usage = {"prompt_tokens": 12, "completion_tokens": n, "total_tokens": 12 + n}
    await response.write(
        f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n".encode()
    )
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response
