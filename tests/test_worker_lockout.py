"""The TCP kernel worker cannot be locked out or brute-forced from one address (issue 28, 4).

A fresh worker process per test on 127.0.0.1 (its memory of failed tokens is per process), raw
sockets for the attacker, the real KernelClient for the legitimate user.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernels_bridge.client.connection import KernelClient, WorkerError
from kernels_bridge.protocol import MIN_TOKEN_BYTES, TOKEN_ENV
from kernels_bridge.worker.auth_guard import FREE_FAILURES
from kernels_bridge.worker.server import MAX_PENDING_AUTH
from tests.test_worker_security import TOKEN, _good_client_runs_a_job, _port, _start_worker

WRONG = b'{"type":"auth","v":1,"token":"not-the-token-at-all"}\n'


@pytest.fixture
def port() -> Iterator[int]:
    proc, line = _start_worker("--listen", "127.0.0.1:0", env={TOKEN_ENV: TOKEN})
    try:
        yield _port(line)
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _try(port: int, line: bytes) -> str:
    """The worker's one-line answer to a first line, on a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(line)
        return sock.makefile("rb").readline().decode()


async def test_wrong_tokens_from_one_address_back_off_exponentially(port: int) -> None:
    compared, waits = 0, []
    end = time.monotonic() + 3.5
    while time.monotonic() < end:  # a guesser at full speed, one connection after another
        reply = await asyncio.to_thread(_try, port, WRONG)
        if "wrong or missing token" in reply:
            compared += 1
        else:
            assert "refused: too many failed tokens from this address; wait " in reply, reply
            waits.append(int(reply.split("; wait ")[1].split(" s")[0]))
    # 5 compared at once, then one after the 1 s pause and one after the 2 s pause: not 2,239/s
    assert FREE_FAILURES <= compared <= FREE_FAILURES + 3
    assert len(waits) > 10 and waits[0] == 1 and max(waits) >= 2
    # while shut out even the right token is refused unread; once the pause is over it works
    with pytest.raises(WorkerError, match="too many failed tokens"):
        client = KernelClient(connect=("127.0.0.1", port), token=TOKEN)
        try:
            await client.start()
        finally:
            await client.shutdown()
    deadline = time.monotonic() + 20
    while "too many failed tokens" in (reply := await asyncio.to_thread(_try, port, b"\n")):
        assert time.monotonic() < deadline, reply
    await _good_client_runs_a_job(port, "after-the-pause")
    # a right token cleared the count: the next wrong one is compared again
    assert "wrong or missing token" in await asyncio.to_thread(_try, port, WRONG)


async def test_a_flood_of_silent_connections_does_not_starve_a_client_with_the_token(
    port: int,
) -> None:
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(MAX_PENDING_AUTH + 44)]
    stop = threading.Event()
    made = [0]

    def reconnect() -> None:  # connect, say nothing, hang up, again; 2,000 in all at most
        for _ in range(400):
            if stop.is_set():
                return
            try:
                socket.create_connection(("127.0.0.1", port), timeout=10).close()
                made[0] += 1
            except OSError:
                pass

    threads = [threading.Thread(target=reconnect, daemon=True) for _ in range(5)]
    for thread in threads:
        thread.start()
    try:
        start, before = time.monotonic(), made[0]
        await _good_client_runs_a_job(port, "beside-the-flood")
        assert time.monotonic() - start < 30
        assert made[0] > before  # the flood went on while the client got in
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
        for sock in held:
            sock.close()


@pytest.mark.parametrize("token", ["x", "short-token"])
def test_a_short_token_is_refused_with_the_fix(tmp_path: Path, token: str) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    proc, first = _start_worker("--listen", "127.0.0.1:0", "--token-file", str(token_file))
    assert proc.stderr is not None
    said = first + proc.stderr.read()
    assert proc.wait(timeout=30) == 2
    assert str(token_file) in said and f"under the {MIN_TOKEN_BYTES}" in said
    assert "token_urlsafe" in said  # how to make a good one
    proc, first = _start_worker("--listen", "127.0.0.1:0", env={TOKEN_ENV: token})
    assert proc.stderr is not None
    said = first + proc.stderr.read()
    assert proc.wait(timeout=30) == 2
    assert TOKEN_ENV in said and f"under the {MIN_TOKEN_BYTES}" in said
