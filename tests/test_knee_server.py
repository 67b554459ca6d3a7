"""The test server of known capacity frees a slot when its client goes away, as a serving
engine aborts a request whose connection closed: else a capacity step after one that ended
early queued behind ghost requests, and its capacity was not the one the server states."""

from __future__ import annotations

import asyncio
import time

import aiohttp

from tests.support.knee_server import knee_server

SERVICE_S = 1.0


async def _first_byte(url: str) -> None:
    body = {"model": "knee", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{url}/chat/completions", json=body) as response:
            await response.content.read(1)


async def _after_a_cancelled_one(url: str) -> float:
    """A request into the one slot, given up after 0.3 s; then the wait of the next one."""
    gone = asyncio.create_task(_first_byte(url))
    await asyncio.sleep(0.3)
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)  # its connection closed
    await asyncio.sleep(0.1)
    start = time.perf_counter()
    await _first_byte(url)
    return time.perf_counter() - start


def test_a_request_given_up_frees_its_slot_for_the_next() -> None:
    with knee_server(1, SERVICE_S * 1000) as url:
        waited = asyncio.run(_after_a_cancelled_one(url))
    # its own service time, not the ghost's remaining 0.6 s before it (1.6 s)
    assert SERVICE_S * 0.95 <= waited < SERVICE_S * 1.45, waited
