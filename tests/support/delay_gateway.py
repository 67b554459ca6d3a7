"""A tiny forwarding gateway on 127.0.0.1: every request goes to an upstream base URL after a
fixed delay, and the answer streams back chunk by chunk, so a gateway's added latency is known.
A chat request may be delayed more than a model list, as a real gateway's chat path costs more
(auth, routing, opening the upstream stream) than its `GET /models`.

It can rename models (an alias, as LiteLLM's model groups do) and demand its own key, which it
never forwards. Bounded: request bodies are capped, the upstream call has a time limit.
"""

from __future__ import annotations

import asyncio
import json

import aiohttp
from aiohttp import web

_BODY_LIMIT = 1 << 20
_UPSTREAM_LIMIT_S = 60.0


def delay_gateway(
    upstream: str,
    chat_delay_s: float,
    models_delay_s: float | None = None,
    aliases: dict[str, str] | None = None,
    key: str | None = None,
) -> web.Application:
    """The gateway's app: `upstream` is a base URL ending in /v1; a POST waits `chat_delay_s`,
    any other request `models_delay_s` (default: the same); `aliases` maps the gateway's model
    ids to the upstream's."""
    models_delay = chat_delay_s if models_delay_s is None else models_delay_s
    aliases = aliases or {}
    app = web.Application(client_max_size=_BODY_LIMIT)
    session: list[aiohttp.ClientSession] = []

    async def open_session(_app: web.Application) -> None:
        session.append(aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(_UPSTREAM_LIMIT_S)))

    async def close_session(_app: web.Application) -> None:
        await session[0].close()

    async def forward(request: web.Request) -> web.StreamResponse:
        if key is not None and request.headers.get("Authorization") != f"Bearer {key}":
            return web.json_response({"error": {"message": "bad key", "type": "auth"}}, status=401)
        await asyncio.sleep(chat_delay_s if request.method == "POST" else models_delay)
        body = await request.read()
        if body and aliases:
            payload = json.loads(body)
            payload["model"] = aliases.get(payload.get("model"), payload.get("model"))
            body = json.dumps(payload).encode()
        url = upstream.rstrip("/") + "/" + request.match_info["tail"]
        headers = {"Content-Type": request.headers.get("Content-Type", "application/json")}
        async with session[0].request(request.method, url, data=body, headers=headers) as up:
            if request.method == "GET" and aliases and up.status == 200:
                listed = await up.json()
                listed["data"] += [{"id": alias, "object": "model"} for alias in aliases]
                return web.json_response(listed)
            response = web.StreamResponse(status=up.status)
            response.content_type = up.content_type
            await response.prepare(request)
            async for chunk in up.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response

    app.on_startup.append(open_session)
    app.on_cleanup.append(close_session)
    app.router.add_route("*", "/v1/{tail:.*}", forward)
    return app
