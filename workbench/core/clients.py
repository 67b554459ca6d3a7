"""One AsyncOpenAI client per (base URL, key, transport) on the running loop, closed together.

The SDK's own retries are switched off (`max_retries=0`): a re-sent request would hide a failure
and skew timing. Read timeouts are ours (first-token and stall watchdogs in streaming.py); the
SDK keeps only a connect timeout.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Literal

import httpx2
import openai

Transport = Literal["httpx", "aiohttp"]
NO_KEY = "no-key"  # the SDK insists on a key; keyless servers ignore this one

CONNECT_TIMEOUT_S = 10.0


def make_client(
    base_url: str,
    api_key: str | None,
    transport: Transport = "aiohttp",
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
) -> openai.AsyncOpenAI:
    timeout = httpx2.Timeout(None, connect=connect_timeout_s)
    if transport == "aiohttp":
        http_client: httpx2.AsyncClient = openai.DefaultAioHttpClient(timeout=timeout)
    else:
        http_client = openai.DefaultAsyncHttpxClient(timeout=timeout)
    return openai.AsyncOpenAI(
        base_url=base_url,
        api_key=api_key or NO_KEY,
        max_retries=0,
        timeout=timeout,
        http_client=http_client,
    )


class ClientPool:
    """Clients keyed by (base URL, key, transport); `aclose` before the loop closes."""

    def __init__(self, transport: Transport = "aiohttp") -> None:
        self.transport: Transport = transport
        self._clients: dict[tuple[str, str | None, str], openai.AsyncOpenAI] = {}

    def get(self, base_url: str, api_key: str | None) -> openai.AsyncOpenAI:
        key = (base_url, api_key, self.transport)
        client = self._clients.get(key)
        if client is None:
            client = make_client(base_url, api_key, self.transport)
            self._clients[key] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def network_baseline_ms(client: openai.AsyncOpenAI, samples: int = 3) -> float | None:
    """Median round trip of `GET /models`: the network and server overhead to subtract."""
    times: list[float] = []
    for _ in range(samples):
        start = time.perf_counter_ns()
        try:
            await client.models.list()
        except Exception:  # a server without /models has no baseline; the column stays empty
            return None
        times.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(times)
