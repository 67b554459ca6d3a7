"""The TCP kernel worker against hostile peers: malformed auth, idle and slow connections,
oversized lines; the token never on a command line; a loud warning off loopback.

A real worker process (`python -m kernels_bridge.worker --listen 127.0.0.1:0`) on loopback,
raw sockets for the attacker, the real KernelClient for the legitimate user.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernels_bridge.client.connection import KernelClient, WorkerError
from kernels_bridge.protocol import TOKEN_ENV, Done, Error, Result, Run
from kernels_bridge.worker.server import AUTH_DEADLINE_S, MAX_AUTH_LINE_BYTES, MAX_LINE_BYTES

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "s3cret-token-for-tests"
TINY = {"gqa": {"kind": "GQA", "layers": 1, "q_heads": 4, "kv_heads": 2, "head_dim": 16}}


def _job(job_id: str) -> Run:
    return Run(
        job_id=job_id,
        variants=["gqa"],
        kv_lens=[16],
        dtypes=["fp32"],
        backends=["reference"],
        warmup=0,
        iters=2,
        shapes=TINY,
        device="cpu",
    )


def _start_worker(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """A worker process and the first line of its stderr (or the whole of it if it exits)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernels_bridge.worker", *args],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    assert proc.stderr is not None
    return proc, proc.stderr.readline()


def _port(stderr_lines: str) -> int:
    found = re.search(r"listening on 127\.0\.0\.1:(\d+)", stderr_lines)
    assert found, stderr_lines
    return int(found.group(1))


@pytest.fixture(scope="module")
def worker() -> Iterator[tuple[subprocess.Popen, int]]:
    proc, line = _start_worker("--listen", "127.0.0.1:0", env={TOKEN_ENV: TOKEN})
    try:
        yield proc, _port(line)
    finally:
        proc.kill()
        proc.wait(timeout=10)


async def _good_client_runs_a_job(port: int, job_id: str) -> None:
    client = KernelClient(connect=("127.0.0.1", port), token=TOKEN, hello_timeout_s=60)
    try:
        await client.start()
        await client.run(_job(job_id))
        async with asyncio.timeout(60):
            async for event in client.events():
                if isinstance(event, Done):
                    assert event.rows == 1 and not event.cancelled
                    return
                assert not isinstance(event, Error), event.message
                assert isinstance(event, Result) or event.TYPE == "progress"
    finally:
        await client.shutdown()


async def _reply(reader: asyncio.StreamReader, within_s: float = 10) -> dict:
    async with asyncio.timeout(within_s):
        line = await reader.readline()
    assert line, "the worker closed without a word"
    return json.loads(line)


async def _closed(reader: asyncio.StreamReader, within_s: float = 5) -> bool:
    async with asyncio.timeout(within_s):
        try:
            return await reader.read() == b""
        except ConnectionError:
            return True


@pytest.mark.parametrize(
    "first_line",
    [
        b'{"type":"auth","v":1,"token":null}',
        b'{"type":"auth","v":1,"token":123}',
        b'{"type":"auth","v":1,"token":["s3cret"]}',
        b'{"type":"auth","v":1}',
        b'{"type":"run","v":1,"job_id":"x"}',
        b'{"type":"auth","v":2,"token":"s3cret-token-for-tests"}',
        b"[" * 50_000,
        b"\xff\xfe not utf-8",
        b'{"type":"auth","v":1,"token":"\\ud800"}',  # a lone surrogate: was a traceback
        b'{"type":"auth","v":1,"token":"\xff\xfe"}',  # not UTF-8 inside the string
        b"123",
        b"",
    ],
)
async def test_a_malformed_auth_is_refused_and_the_worker_keeps_serving(
    worker: tuple[subprocess.Popen, int], first_line: bytes
) -> None:
    proc, port = worker
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(first_line + b"\n")
    await writer.drain()
    reply = await _reply(reader)
    assert reply["type"] == "error" and reply["fatal"]
    assert reply["message"].startswith("refused: ")
    assert TOKEN not in reply["message"]
    assert await _closed(reader)
    writer.close()
    assert proc.poll() is None  # alive: the old worker died of AttributeError on `null`
    await _good_client_runs_a_job(port, "after-bad-auth")


async def test_idle_and_slow_connections_do_not_lock_out_a_client(
    worker: tuple[subprocess.Popen, int],
) -> None:
    _, port = worker
    idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(60)]
    slow_reader, slow_writer = await asyncio.open_connection("127.0.0.1", port)
    opened = time.monotonic()

    async def trickle() -> None:  # one byte every 0.5 s: each read succeeds, the line never ends
        for byte in b'{"type":"auth","v":1,"token":"' * 4:
            slow_writer.write(bytes([byte]))
            await slow_writer.drain()
            await asyncio.sleep(0.5)

    async def refusal() -> tuple[dict, float]:
        reply = await _reply(slow_reader, within_s=AUTH_DEADLINE_S + 30)
        return reply, time.monotonic() - opened

    trickling = asyncio.create_task(trickle())
    refused = asyncio.create_task(refusal())
    try:
        start = time.monotonic()
        await _good_client_runs_a_job(port, "beside-60-idle")
        assert time.monotonic() - start < 30
        # the slow one is cut at the auth deadline, for the whole line, not per read
        reply, waited = await refused
        assert reply["message"] == f"refused: no auth message within {AUTH_DEADLINE_S:g} s"
        assert AUTH_DEADLINE_S - 0.5 < waited < AUTH_DEADLINE_S + 3
        for reader, _ in idle:
            assert (await _reply(reader))["message"].startswith("refused: no auth message")
    finally:
        trickling.cancel()
        refused.cancel()
        for _, w in [*idle, (slow_reader, slow_writer)]:
            w.close()


def _flood_without_newline(port: int, megabytes: int) -> tuple[bytes, float]:
    """Send that much with no newline from one thread while another reads the reply (plain
    blocking sockets: the reply stays readable even once the worker hangs up on the flood)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    reply = bytearray()
    start = time.monotonic()
    replied_after: list[float] = []

    def read() -> None:
        while b"\n" not in reply and (piece := sock.recv(65536)):
            reply.extend(piece)
        replied_after.append(time.monotonic() - start)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(megabytes * 16):
            sock.sendall(b"A" * 65536)
    except OSError:
        pass  # the worker hung up: it did not read all of it
    reader.join(10)
    sock.close()
    return bytes(reply), replied_after[0] if replied_after else float("inf")


async def test_an_oversized_first_line_is_refused_unread(
    worker: tuple[subprocess.Popen, int],
) -> None:
    proc, port = worker
    raw, seconds = await asyncio.to_thread(_flood_without_newline, port, 6)
    reply = json.loads(raw.split(b"\n")[0])
    assert reply["message"] == f"refused: the first line is over {MAX_AUTH_LINE_BYTES} bytes"
    assert seconds < 5
    assert proc.poll() is None


async def test_after_auth_messages_are_checked_and_capped(
    worker: tuple[subprocess.Popen, int],
) -> None:
    proc, port = worker
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 24)
    writer.write(json.dumps({"type": "auth", "v": 1, "token": TOKEN}).encode() + b"\n")
    assert (await _reply(reader, within_s=60))["type"] == "hello"
    # a run whose kv_lens is a string: an error naming the field and the job, session goes on
    bad = {"type": "run", "v": 1, "job_id": "typed", "variants": ["gqa"], "kv_lens": "4096"}
    writer.write(json.dumps(bad).encode() + b"\n")
    reply = await _reply(reader)
    assert reply["type"] == "error" and not reply["fatal"] and reply["job_id"] == "typed"
    assert "kv_lens must be list[int], not str" in reply["message"]
    writer.write(_job("still-served").to_json().encode() + b"\n")
    async with asyncio.timeout(60):
        while (message := await _reply(reader))["type"] != "done":
            assert message["type"] in ("progress", "result"), message
    # a line over the cap ends the session, not the worker
    writer.write(b'{"type":"cancel","v":1,"job_id":"' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n')
    await writer.drain()
    reply = await _reply(reader)
    assert reply["type"] == "error" and reply["fatal"]
    assert f"over {MAX_LINE_BYTES} bytes" in reply["message"]
    writer.close()
    assert proc.poll() is None
    await _good_client_runs_a_job(port, "after-oversized")


def test_the_token_is_refused_on_the_command_line() -> None:
    proc, first = _start_worker("--listen", "127.0.0.1:0", "--token", TOKEN)
    assert proc.stderr is not None
    said = first + proc.stderr.read()  # not communicate(): it skips what readline buffered
    proc.wait(timeout=30)
    assert proc.returncode == 2
    assert "shows in `ps`" in said and TOKEN_ENV in said and "--token-file" in said
    cli = subprocess.run(
        [sys.executable, "-m", "workbench", "kernels", "--connect", "127.0.0.1:9", "--token", "x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 2 and "shows in `ps`" in cli.stderr


def test_a_token_file_and_the_environment_reach_worker_and_cli(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    proc, line = _start_worker("--listen", "127.0.0.1:0", "--token-file", str(token_file))
    try:
        port = _port(line)
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert TOKEN.encode() not in cmdline
        base = [sys.executable, "-m", "workbench", "kernels", "--connect", f"127.0.0.1:{port}"]
        job = ["--backend", "reference", "--variant", "gqa", "--kv", "64", "--heads", "8"]
        job += ["--device", "cpu", "--iters", "2", "--warmup", "0"]
        env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
        missing = subprocess.run(
            base + job, cwd=ROOT, capture_output=True, text=True, timeout=60, env=env
        )
        assert missing.returncode == 2 and TOKEN_ENV in missing.stderr
        by_env = subprocess.run(
            base + job,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, TOKEN_ENV: TOKEN},
        )
        assert by_env.returncode == 0, by_env.stderr[-2000:]
        assert "gqa" in by_env.stdout
        by_file = subprocess.run(
            [*base, "--token-file", str(token_file), *job],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert by_file.returncode == 0, by_file.stderr[-2000:]
    finally:
        proc.kill()
        proc.wait(timeout=10)


async def test_the_client_refuses_to_start_with_a_wrong_token(
    worker: tuple[subprocess.Popen, int],
) -> None:
    _, port = worker
    client = KernelClient(connect=("127.0.0.1", port), token="wrong")
    with pytest.raises(WorkerError, match="refused: wrong or missing token"):
        await client.start()
    await client.shutdown()


@pytest.mark.parametrize(("host", "warned"), [("0.0.0.0", True), ("127.0.0.1", False)])
def test_listening_beyond_loopback_prints_a_loud_warning(host: str, warned: bool) -> None:
    proc, first = _start_worker("--listen", f"{host}:0", env={TOKEN_ENV: TOKEN})
    proc.kill()
    proc.wait(timeout=10)
    assert ("WARNING" in first and "SSH tunnel" in first) is warned
