"""`--retry-budget` honours every retry header a real server or gateway sends: each test runs a
loopback server that answers 429 with one header, then streams; the retry comes after about the
advertised wait, and each attempt is its own row."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable

import pytest
from aiohttp import web

from workbench.core.foundation.errors import retry_after_from_headers
from workbench.core.foundation.results import ErrorClass, RequestResult, Target
from workbench.core.planning.run_events import RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool

_USAGE = {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}


class RateLimitedOnce:
    """Answers the first chat request 429 with the given headers, later ones with a stream."""

    def __init__(self, headers: Callable[[], dict[str, str]]) -> None:
        self.headers = headers
        self.arrivals: list[float] = []  # time.monotonic() of each chat request
        self.runner: web.AppRunner | None = None
        self.port = 0

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.arrivals.append(time.monotonic())
        if len(self.arrivals) == 1:
            body = {"error": {"type": "rate_limit_exceeded", "message": "slow down"}}
            return web.json_response(body, status=429, headers=self.headers())
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for piece in ("a", " b", " c"):
            delta = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            await resp.write(f"data: {json.dumps(delta)}\n\n".encode())
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": _USAGE}
        await resp.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        return resp

    async def __aenter__(self) -> RateLimitedOnce:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        self.runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self.runner is not None
        await self.runner.cleanup()


async def _bench(server: RateLimitedOnce) -> list[RequestResult]:
    target = Target("gw", f"http://127.0.0.1:{server.port}/v1", "m")
    plan = RunPlan(
        targets=(target,),
        prompt_lengths=(128,),
        max_tokens=3,
        retry_budget_s=5,
        # the measured request must be the server's first: no calibration, no baseline probe
        calibrate=False,
        measure_baseline=False,
    )
    pool = ClientPool()
    final = None
    try:
        async for event in Runner(pool).run(plan):
            if isinstance(event, RunFinished):
                final = event
    finally:
        await pool.aclose()
    assert final is not None
    return list(final.results)


def _http_date_in(seconds: float) -> str:
    return email.utils.formatdate(time.time() + seconds, usegmt=True)


# (headers, the least and the most wait the retry may come after)
CASES: dict[str, tuple[Callable[[], dict[str, str]], float, float]] = {
    "retry-after seconds": (lambda: {"Retry-After": "1"}, 0.95, 1.8),
    "retry-after http date": (lambda: {"Retry-After": _http_date_in(2)}, 0.95, 2.8),
    # 300 ms where the header can say less than a second (700 ms cost the serial tier 1.2 s)
    "retry-after-ms": (lambda: {"retry-after-ms": "300"}, 0.25, 1.1),
    "litellm llm_provider-retry-after": (
        lambda: {"llm_provider-retry-after": "0.3"},
        0.25,
        1.1,
    ),
    "prefixed retry-after-ms": (lambda: {"llm_provider-retry-after-ms": "300"}, 0.25, 1.1),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_429_is_retried_after_the_advertised_wait(case: str) -> None:
    headers, least, most = CASES[case]
    async with RateLimitedOnce(headers) as server:
        rows = await _bench(server)
    assert [r.attempt for r in rows] == [1, 2]
    first, second = rows
    assert first.error_class is ErrorClass.RATE_LIMIT and first.retry_after_s is not None
    assert second.ok and second.text == "a b c"
    waited = server.arrivals[1] - server.arrivals[0]
    assert least <= waited <= most, (case, waited)


async def test_a_429_without_any_retry_header_is_not_retried() -> None:
    async with RateLimitedOnce(lambda: {"x-ratelimit-reset-requests": "1s"}) as server:
        rows = await _bench(server)
    assert [r.attempt for r in rows] == [1]
    assert rows[0].error_class is ErrorClass.RATE_LIMIT and rows[0].retry_after_s is None


def test_the_most_precise_header_wins_and_garbage_is_ignored() -> None:
    assert retry_after_from_headers({"Retry-After": "2", "retry-after-ms": "250"}) == 0.25
    assert retry_after_from_headers({"Retry-After": "soon", "llm_provider-retry-after": "3"}) == 3
    assert retry_after_from_headers({"Retry-After": "nan", "retry-after-ms": "inf"}) is None
    assert retry_after_from_headers({"Retry-After": "-5"}) == 0.0
