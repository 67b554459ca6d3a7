"""A server with a known capacity: `slots` requests served at once, each for `service_ms`.

An OpenAI-style streaming chat endpoint on 127.0.0.1 whose first token comes after a fixed
service time once one of `slots` slots is free: below slots / service time (requests/s) no
request waits, above it the queue grows with every arrival, so the capacity is known exactly.
Run as a script, it prints its port on the first line and ends with its stdin:

    python tests/support/knee_server.py --slots 4 --service-ms 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aiohttp import web

TOKENS = 4  # output tokens per answer, sent at once after the service time


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    body = {
        "id": "chatcmpl-knee",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "knee",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def make_app(slots: int, service_s: float) -> web.Application:
    free = asyncio.Semaphore(slots)

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", ())) // 4
        async with free:
            await asyncio.sleep(service_s)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        try:
            await response.prepare(request)
            await response.write(_chunk({"role": "assistant", "content": "tok"}))
            for _ in range(TOKENS - 1):
                await response.write(_chunk({"content": " tok"}))
            usage = {"prompt_tokens": prompt, "completion_tokens": TOKENS}
            await response.write(_chunk({}, "stop", usage=usage))
            await response.write(b"data: [DONE]\n\n")
        except ConnectionResetError:  # the client went away (a capacity step ended early)
            pass
        return response

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "knee", "object": "model"}]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/v1/models", models)
    return app


async def serve(slots: int, service_s: float) -> None:
    # a client gone (a capacity step ended early) frees its slot, as a serving engine aborts
    # a request whose connection closed; else the next step queued behind ghost requests
    runner = web.AppRunner(make_app(slots, service_s), access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # ends with stdin
    await runner.cleanup()


@contextlib.contextmanager
def knee_server(slots: int, service_ms: float) -> Iterator[str]:
    """This server in its own process, for a test: its base URL, until the block ends."""
    server = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__)),
            "--slots",
            str(slots),
            "--service-ms",
            str(service_ms),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    try:
        yield f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
    finally:
        server.stdin.close()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--service-ms", type=float, default=100.0)
    args = parser.parse_args()
    asyncio.run(serve(args.slots, args.service_ms / 1000))


if __name__ == "__main__":
    main()
