"""`workbench serve-local` keeps its doors and its memory bounded, as a real subprocess.

Off loopback it refuses to start without a key; request bodies being read at once across all
connections stay under a total (503 with Retry-After beyond it), so parallel uploads cannot grow
the process without bound; a body nested too deeply is a 400, with no traceback in the log.
Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from workbench.commands.serve import is_loopback

WORKBENCH = [sys.executable, "-m", "workbench"]
MIB = 1024**2
CHAT = "/v1/chat/completions"


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    port: int
    stderr_path: Path

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@contextmanager
def serve_local(tmp_path: Path, *flags: str) -> Iterator[Served]:
    stderr_path = tmp_path / "serve.stderr"
    with stderr_path.open("wb") as err:
        proc = subprocess.Popen(
            [*WORKBENCH, "serve-local", "--port", "0", "--exit-with-stdin", *flags],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert "listening at" in line, line + stderr_path.read_text()
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        yield Served(proc, port, stderr_path)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def post(port: int, body: bytes) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", CHAT, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, dict(resp.headers), resp.read()
    finally:
        conn.close()


def padded(size: int) -> bytes:
    """A JSON body of about `size` bytes naming a model that does not exist (a quick 404)."""
    return json.dumps({"model": "no-such-model", "pad": "x" * size}).encode()


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc status")


# ---- off loopback ----


def test_loopback_hosts() -> None:
    for host in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "", "192.168.1.10", "example.org"):
        assert not is_loopback(host), host


def test_every_interface_without_a_key_is_refused() -> None:
    env = {k: v for k, v in os.environ.items() if k != "LOCAL_KEY"}
    done = subprocess.run(
        [*WORKBENCH, "serve-local", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "listening" not in done.stdout
    assert "warning: --host 0.0.0.0 is not loopback" in done.stderr
    assert "--api-key-env" in done.stderr and "--host 127.0.0.1" in done.stderr


def test_every_interface_with_a_key_warns_and_starts(tmp_path: Path) -> None:
    os.environ["SERVE28_KEY"] = "sk-serve28-not-a-secret"
    try:
        with serve_local(tmp_path, "--host", "0.0.0.0", "--api-key-env", "SERVE28_KEY") as srv:
            assert "is not loopback" in srv.stderr()
            assert "sk-serve28" not in srv.stderr()
    finally:
        del os.environ["SERVE28_KEY"]


# ---- deep JSON ----


def test_deeply_nested_body_is_a_400_without_traceback(tmp_path: Path) -> None:
    deep = b'{"model": "sim-70b-gqa", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with serve_local(tmp_path) as srv:
        status, _, body = post(srv.port, deep)
        fine, _, _ = post(srv.port, padded(10))  # the server still answers
    assert status == 400, body
    assert "nested too deeply" in json.loads(body)["error"]["message"]
    assert fine == 404
    log = srv.stderr()
    assert "Traceback" not in log and "RecursionError" not in log, log


# ---- total body bytes in flight ----


def test_a_body_beyond_the_total_gets_503_with_retry_after(tmp_path: Path) -> None:
    with serve_local(tmp_path, "--max-body-total-mib", "16") as srv:
        held = padded(12 * MIB)
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=60)
        try:
            head = (
                f"POST {CHAT} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(held)}\r\n\r\n"
            ).encode()
            slow.sendall(head + held[:MIB])  # 12 MiB reserved, 1 MiB sent, the rest held back
            deadline = time.monotonic() + 30
            while True:  # until the server has taken the held request's reservation
                status, headers, body = post(srv.port, padded(8 * MIB))
                if status == 503 or time.monotonic() > deadline:
                    break
            assert status == 503, body
            assert headers.get("Retry-After") == "1"
            assert "retry after" in json.loads(body)["error"]["message"]
            slow.sendall(held[MIB:])
            answer = slow.makefile("rb").readline()
            assert b" 404 " in answer, answer  # the held one is served once all of it came
        finally:
            slow.close()
        assert post(srv.port, padded(8 * MIB))[0] == 404  # its bytes were given back


def test_a_chunked_body_is_counted_as_it_arrives(tmp_path: Path) -> None:
    """No Content-Length to reserve up front: the bytes count against the total as they come."""
    body = padded(20 * MIB)
    chunks = (body[i : i + MIB] for i in range(0, len(body), MIB))
    with serve_local(tmp_path, "--max-body-total-mib", "16") as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
        try:
            conn.request("POST", CHAT, body=chunks, encode_chunked=True,
                         headers={"Content-Type": "application/json"})  # fmt: skip
            resp = conn.getresponse()
            status, retry = resp.status, resp.getheader("Retry-After")
        finally:
            conn.close()
        small = post(srv.port, padded(MIB))[0]
    assert (status, retry) == (503, "1")
    assert small == 404  # what the refused body had counted was given back


def test_parallel_large_bodies_keep_the_server_small(tmp_path: Path) -> None:
    senders, size = 12, 8 * MIB
    body = padded(size)
    with serve_local(tmp_path, "--max-body-total-mib", "16") as srv:
        post(srv.port, padded(10))  # warm: the first request's imports are not the bodies' cost
        before = peak_rss_mib(srv.proc.pid)
        statuses: list[int] = []
        start = threading.Barrier(senders)

        def send() -> None:
            start.wait()
            statuses.append(post(srv.port, body)[0])

        threads = [threading.Thread(target=send) for _ in range(senders)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        grown = peak_rss_mib(srv.proc.pid) - before
    assert sorted(set(statuses)) <= [404, 503] and len(statuses) == senders, statuses
    # 12 x 8 MiB at once would hold about 96 MiB raw, as much again decoded, and the strings
    print(f"peak RSS grew {grown:.0f} MiB for {senders} x {size // MIB} MiB bodies: {statuses}")
    assert grown < 80, f"peak RSS grew {grown:.0f} MiB"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
