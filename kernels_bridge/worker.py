"""The kernel benchmark backend process: `python -m kernels_bridge.worker`.

Speaks kernels_bridge.protocol over stdio (default) or TCP (`--listen 127.0.0.1:PORT --token T`,
for a GPU box reached through an SSH tunnel: the client's first line must be an `auth` message
with the token, else the connection is refused with an error and closed). It is the only place
torch is imported, lazily, when a session starts: without torch the hello says so and every run
is answered with an error. A bad job gets an error message and the worker stays up. A reader
thread takes messages while a job runs, so `cancel` stops a job between two launches (well under
a second for kernel-sized launches).
"""

from __future__ import annotations

import argparse
import hmac
import os
import platform
import queue
import secrets
import socket
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import IO, Any

from kernels_bridge.protocol import (
    Auth,
    Bye,
    Cancel,
    Error,
    Hello,
    Message,
    ProtocolError,
    Run,
    from_json,
    validate_run,
)

WORKER_VERSION = "0.1.0"


def build_hello() -> Hello:
    """What this process can do; imports torch (lazily) and probes backends."""
    hello = Hello(
        worker_version=WORKER_VERSION, python=f"{sys.executable} {platform.python_version()}"
    )
    try:
        import torch
    except Exception as exc:
        reason = f"torch is not importable in {sys.executable} ({type(exc).__name__}: {exc})"
        hello.notes.append(reason + "; install it with: pip install 'attention-workbench[kernels]'")
        from kernels_bridge.bench_names import BACKENDS

        hello.unavailable = {b: reason for b in BACKENDS}
        return hello
    from kernels_bridge.analytic import profile_for_device
    from kernels_bridge.bench import backend_availability

    hello.torch_version = str(torch.__version__)
    try:
        import triton

        hello.triton_version = str(triton.__version__)
    except Exception:
        hello.triton_version = None
    hello.cuda_available = bool(torch.cuda.is_available())
    if hello.cuda_available:
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            profile = profile_for_device(props.name)
            hello.devices.append(
                {
                    "index": i,
                    "kind": "cuda",
                    "name": props.name,
                    "memory_gib": round(props.total_memory / 2**30, 1),
                    "profile": profile.key if profile else None,
                }
            )
        hello.default_device = "cuda"
    else:
        why = "torch was built without CUDA" if torch.version.cuda is None else "no CUDA device"
        hello.notes.append(
            f"CUDA is not available ({why}); runs use the CPU with wall-clock timing"
        )
    hello.devices.append({"index": 0, "kind": "cpu", "name": "cpu", "profile": None})
    avail = backend_availability(hello.default_device)
    hello.backends = [b for b, why in avail.items() if why is None]
    hello.unavailable = {b: why for b, why in avail.items() if why is not None}
    return hello


class Session:
    """One conversation: hello, then runs until bye or end of input."""

    def __init__(self, lines: Iterable[str], write: Callable[[str], None]) -> None:
        self._lines = lines
        self._write = write
        self._lock = threading.Lock()
        self._queue: queue.Queue[Message | None] = queue.Queue()
        self._cancel = threading.Event()
        self.closed = threading.Event()

    def send(self, msg: Message) -> None:
        with self._lock:
            try:
                self._write(msg.to_json() + "\n")
            except (OSError, ValueError):
                self.closed.set()
                self._cancel.set()

    def _read(self) -> None:
        try:
            for raw in self._lines:
                line = raw.strip()
                if not line:
                    continue
                try:
                    msg = from_json(line)
                except ProtocolError as exc:
                    self.send(Error(message=f"bad message: {exc}"))
                    continue
                if isinstance(msg, Cancel):
                    self._cancel.set()
                elif isinstance(msg, Bye):
                    self._cancel.set()
                    self._queue.put(msg)
                    return
                else:
                    self._queue.put(msg)
        except (OSError, ValueError):
            pass
        finally:
            self._cancel.set()
            self._queue.put(None)

    def serve(self) -> None:
        hello = build_hello()
        self.send(hello)
        threading.Thread(target=self._read, name="kb-reader", daemon=True).start()
        while not self.closed.is_set():
            msg = self._queue.get()
            if msg is None or isinstance(msg, Bye):
                break
            if isinstance(msg, Run):
                self._run(msg, hello)
            elif isinstance(msg, Auth):
                continue
            else:
                self.send(Error(message=f"unexpected {msg.TYPE} message from the client"))
        self.send(Bye(reason="session closed"))
        self.closed.set()

    def _run(self, run: Run, hello: Hello) -> None:
        self._cancel.clear()
        if hello.torch_version is None:
            self.send(
                Error(message=hello.notes[0] if hello.notes else "torch missing", job_id=run.job_id)
            )
            return
        problems = validate_run(run)
        if problems:
            self.send(Error(message="bad job: " + "; ".join(problems), job_id=run.job_id))
            return
        from kernels_bridge.bench import run_job

        try:
            done = run_job(run, self.send, self._cancel.is_set)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self.send(Error(message=f"job failed: {type(exc).__name__}: {exc}", job_id=run.job_id))
            return
        self.send(done)


# ---------------------------------------------------------------------------------------------
# transports
# ---------------------------------------------------------------------------------------------


def serve_stdio() -> int:
    # The protocol owns the real stdout; anything else printing (torch, triton, C libraries)
    # goes to stderr so it cannot corrupt the message stream.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def write(text: str) -> None:
        proto.write(text)
        proto.flush()

    Session(sys.stdin, write).serve()
    return 0


def _parse_hostport(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def serve_tcp(host: str, port: int, token: str, once: bool = False) -> int:
    server = socket.create_server((host, port))
    actual = server.getsockname()[1]
    print(f"kernels worker listening on {host}:{actual}", file=sys.stderr, flush=True)
    try:
        while True:
            conn, _addr = server.accept()
            with conn:
                _serve_conn(conn, token)
            if once:
                return 0
    finally:
        server.close()


def _serve_conn(conn: socket.socket, token: str) -> None:
    conn.settimeout(10.0)
    rfile: IO[Any] = conn.makefile("r", encoding="utf-8", newline="\n")
    wfile: IO[Any] = conn.makefile("w", encoding="utf-8", newline="\n")

    def write(text: str) -> None:
        wfile.write(text)
        wfile.flush()

    try:
        first = rfile.readline()
        msg: Message | None
        try:
            msg = from_json(first) if first.strip() else None
        except ProtocolError:
            msg = None
        if not isinstance(msg, Auth) or not hmac.compare_digest(msg.token.encode(), token.encode()):
            write(Error(message="refused: wrong or missing token", fatal=True).to_json() + "\n")
            return
        conn.settimeout(None)
        Session(rfile, write).serve()
    except (OSError, ValueError):
        return
    finally:
        for f in (rfile, wfile):
            try:
                f.close()
            except OSError:
                pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernels_bridge.worker", description=__doc__)
    parser.add_argument(
        "--listen",
        type=_parse_hostport,
        metavar="HOST:PORT",
        help="serve over TCP instead of stdio (port 0 picks a free one)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("KB_WORKER_TOKEN"),
        help="shared secret a TCP client must send first (env KB_WORKER_TOKEN)",
    )
    parser.add_argument("--once", action="store_true", help="exit after one TCP connection")
    args = parser.parse_args(argv)
    if args.listen is None:
        return serve_stdio()
    token = args.token
    if not token:
        token = secrets.token_urlsafe(16)
        print(f"kernels worker token: {token}", file=sys.stderr, flush=True)
    host, port = args.listen
    return serve_tcp(host, port, token, args.once)


if __name__ == "__main__":
    sys.exit(main())
