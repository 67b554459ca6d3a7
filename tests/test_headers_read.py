"""serve-local stamps a request's arrival when its headers are read off the connection, before
its handler starts (local/headers_read.py): on a kept-alive connection and for requests sent in
one write (pipelined), each request gets its own stamp, never one taken before it was sent."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest

from workbench.local.costmodel import SimSettings
from workbench.local.emitlog import EmitRecord
from workbench.local.server import LocalServer

MODEL = "sim-70b-gqa"


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with LocalServer(settings=SimSettings(time_scale=0.001)) as srv:
        yield srv


def _request(path: str, n: int) -> bytes:
    body = json.dumps(
        {"model": MODEL, "max_tokens": 2, "messages": [{"role": "user", "content": f"hi {n}"}]}
    ).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _answer(reader: asyncio.StreamReader) -> dict[str, object]:
    """One whole (non-streamed) answer off the connection."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 200"), head
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    answer: dict[str, object] = json.loads(await reader.readexactly(length))
    return answer


def _record(server: LocalServer, answer: dict[str, object]) -> EmitRecord:
    record = server.emit_log.get(str(answer["id"]))
    assert record is not None
    return record


async def test_each_request_on_a_kept_alive_connection_is_stamped_when_it_was_read(
    server: LocalServer,
) -> None:
    path = "/v1/chat/completions"
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:
        records, sent = [], []
        for n in range(3):
            if n:
                await asyncio.sleep(0.2)  # the connection idles between requests
            sent.append(time.perf_counter_ns())
            writer.write(_request(path, n))
            records.append(_record(server, await _answer(reader)))
        # two requests in one write: both stamped at that read, in order
        sent.append(time.perf_counter_ns())
        writer.write(_request(path, 3) + _request(path, 4))
        records += [_record(server, await _answer(reader)) for _ in range(2)]
    finally:
        writer.close()
    sent.append(sent[-1])
    for record, t_sent in zip(records, sent, strict=True):
        # stamped after it was sent (never a stamp left from the request before), and before
        # its handler started: the stamp is aiohttp's read, not the handler's start
        assert t_sent <= record.t_headers_ns < record.t_received_ns
        assert record.t_headers_ns - t_sent < 0.1e9
    assert records[3].t_headers_ns == records[4].t_headers_ns
    assert records[4].t_received_ns > records[3].t_received_ns  # handled one after the other
    assert len(server.headers_read) == 0  # none left queued
