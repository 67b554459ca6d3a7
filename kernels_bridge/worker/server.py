"""The kernel benchmark backend process: `python -m kernels_bridge.worker`.

Speaks kernels_bridge.protocol over stdio (default) or TCP (`--listen 127.0.0.1:PORT`, for a GPU
box reached through an SSH tunnel). It is the only place torch is imported, lazily, when a
session starts: without torch the hello says so and every run is answered with an error. A bad
job gets an error message and the worker stays up. A reader thread takes messages while a job
runs, so `cancel` stops a job between two launches (well under a second for kernel-sized
launches).

Over TCP the token comes from $WORKBENCH_KERNEL_TOKEN or `--token-file`, never from the command
line (where `ps` shows it to every user). Connections are served concurrently on one asyncio
loop: each must send its `auth` line within AUTH_DEADLINE_S in all and MAX_AUTH_LINE_BYTES, or
it is refused and closed, so idle or slow connections cannot lock out a real client; after
auth a line may hold MAX_LINE_BYTES. Wrong tokens are budgeted per address and silent
connections displace each other, never a client that sends its token (worker/auth_guard.py).
Every message is checked against its schema (protocol.from_json): a malformed one gets an
error reply, never a crash. Jobs of concurrent sessions run one at a time.
A non-loopback `--listen` address prints a loud warning.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import ipaddress
import os
import platform
import queue
import secrets
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator

from kernels_bridge.protocol import (
    MIN_TOKEN_BYTES,
    TOKEN_ENV,
    TOKEN_RECIPE,
    Auth,
    Bye,
    Cancel,
    Error,
    Hello,
    Message,
    ProtocolError,
    Run,
    from_json,
    read_token_file,
    validate_run,
)
from kernels_bridge.worker.auth_guard import FailedTokens, wait_text

WORKER_VERSION = "0.1.0"
_ONE_JOB_AT_A_TIME = threading.Lock()


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
    from kernels_bridge.worker.bench import backend_availability

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
                    self.send(Error(message=f"bad message: {exc}", job_id=exc.job_id))
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
        from kernels_bridge.worker.bench import run_job

        try:
            with _ONE_JOB_AT_A_TIME:  # jobs of two TCP clients would skew each other's timing
                done = run_job(run, self.send, self._cancel.is_set)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self.send(Error(message=f"job failed: {type(exc).__name__}: {exc}", job_id=run.job_id))
            return
        self.send(done)


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


AUTH_DEADLINE_S = 5.0  # for the whole auth line, not per read
MAX_AUTH_LINE_BYTES = 64 * 1024  # the first line, read before the client is known
MAX_LINE_BYTES = 1 << 20  # any later line of an authenticated client
MAX_PENDING_AUTH = 256  # connections still authenticating; a new one displaces the oldest
MAX_REFUSING = 64  # refusals that wait for the peer to read them; beyond, closed at once


class _LineTooLong(Exception):
    pass


class _Lines:
    """Lines from a socket, each at most `cap` bytes, whatever the peer sends."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.buf = bytearray()

    async def line(self, cap: int) -> bytes | None:
        """The next line without its newline; None at the end of input."""
        while True:
            end = self.buf.find(b"\n")
            if end > cap or (end < 0 and len(self.buf) > cap):
                raise _LineTooLong
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[: end + 1]
                return line
            piece = await self.reader.read(64 * 1024)
            if not piece:
                rest, self.buf = bytes(self.buf), bytearray()
                return rest or None
            self.buf += piece


class _Waiting:
    """A connection still authenticating."""

    def __init__(self, lines: _Lines, writer: asyncio.StreamWriter) -> None:
        self.lines = lines
        self.writer = writer
        self.displaced = False


class TcpWorker:
    """Accepts connections concurrently; each authenticates, then runs a Session in a thread."""

    def __init__(self, token: str, once: bool = False) -> None:
        self.token = _token_bytes(token)
        self.once = once
        self.pending: dict[int, _Waiting] = {}  # by id, oldest first
        self.failed = FailedTokens()
        self.refusing = 0
        self.done = asyncio.Event()

    async def serve(self, host: str, port: int) -> int:
        server = await asyncio.start_server(self._handle, host, port, backlog=1024)
        actual = server.sockets[0].getsockname()[1]
        print(f"kernels worker listening on {host}:{actual}", file=sys.stderr, flush=True)
        async with server:
            await self.done.wait()
        return 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lines = _Lines(reader)
        try:
            if await self._authenticate(lines, writer):
                await self._session(lines, writer)
                if self.once:
                    self.done.set()
        except (ConnectionError, OSError):
            pass  # the peer went away; the worker serves the others
        finally:
            writer.close()

    async def _authenticate(self, lines: _Lines, writer: asyncio.StreamWriter) -> bool:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if (wait := self.failed.wait_s(address)) > 0:  # refused before the token is read
            await self._refuse(lines, writer, wait_text(wait))
            return False
        if len(self.pending) >= MAX_PENDING_AUTH:
            self._displace_one()
        me = _Waiting(lines, writer)
        self.pending[id(me)] = me
        offered = True  # a guess at the token, which the address's budget pays for
        try:
            async with asyncio.timeout(AUTH_DEADLINE_S):
                first = await lines.line(MAX_AUTH_LINE_BYTES)
        except TimeoutError:
            why, offered = f"no auth message within {AUTH_DEADLINE_S:g} s", False
        except _LineTooLong:
            why = f"the first line is over {MAX_AUTH_LINE_BYTES} bytes"
        else:
            why = self._check_auth(first)
            offered = bool(first and first.strip())
        finally:
            self.pending.pop(id(me), None)
        if me.displaced:
            return False
        if not why:
            self.failed.succeeded(address)
            return True
        if offered:
            self.failed.failed(address)
        await self._refuse(lines, writer, why)
        return False

    def _displace_one(self) -> None:
        """Close the oldest silent connection still authenticating (else the oldest)."""
        waiting = self.pending.values()
        victim = next((w for w in waiting if not w.lines.buf), None) or next(iter(waiting))
        del self.pending[id(victim)]
        victim.displaced = True
        why = "displaced by newer connections before sending a token"
        victim.writer.write(
            (Error(message=f"refused: {why}", fatal=True).to_json() + "\n").encode()
        )
        victim.writer.close()

    async def _refuse(self, lines: _Lines, writer: asyncio.StreamWriter, why: str) -> None:
        self.refusing += 1
        try:
            await _refuse(lines, writer, why, linger=self.refusing <= MAX_REFUSING)
        finally:
            self.refusing -= 1

    def _check_auth(self, first: bytes | None) -> str:
        """Why the first line does not authenticate; empty when it does."""
        if not first or not first.strip():
            return "wrong or missing token"
        try:
            msg = from_json(first)
        except ProtocolError as exc:
            return f"bad auth message ({exc})"
        if not isinstance(msg, Auth) or not hmac.compare_digest(
            _token_bytes(msg.token), self.token
        ):
            return "wrong or missing token"
        return ""

    async def _session(self, lines: _Lines, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()

        async def next_line() -> str | None:
            try:
                line = await lines.line(MAX_LINE_BYTES)
            except _LineTooLong:
                why = f"a message over {MAX_LINE_BYTES} bytes; closing the connection"
                await _send(writer, Error(message=why, fatal=True))
                return None
            except (ConnectionError, OSError):
                return None
            return None if line is None else line.decode("utf-8", "replace")

        def read() -> Iterator[str]:  # on the session's reader thread
            while (
                line := asyncio.run_coroutine_threadsafe(next_line(), loop).result()
            ) is not None:
                yield line

        def write(text: str) -> None:  # on the session's threads
            asyncio.run_coroutine_threadsafe(_write(writer, text), loop).result()

        await asyncio.to_thread(Session(read(), write).serve)


async def _write(writer: asyncio.StreamWriter, text: str) -> None:
    writer.write(text.encode())
    await writer.drain()


async def _send(writer: asyncio.StreamWriter, msg: Message) -> None:
    await _write(writer, msg.to_json() + "\n")


def _token_bytes(token: str) -> bytes:
    """Any str a JSON string can hold, lone surrogates ("\\ud800") included, as bytes."""
    return token.encode("utf-8", "surrogatepass")


async def _refuse(
    lines: _Lines, writer: asyncio.StreamWriter, why: str, linger: bool = True
) -> None:
    """Say why, then close gently: a peer still sending would otherwise get a reset that
    can destroy the reply before it is read. What it sends meanwhile is dropped unread (1 s,
    1 MiB at most; not at all when too many refusals already linger)."""
    await _send(writer, Error(message=f"refused: {why}", fatal=True))
    if writer.can_write_eof():
        writer.write_eof()
    if not linger:
        return
    dropped = 0
    try:
        async with asyncio.timeout(1.0):
            while dropped < (1 << 20) and (piece := await lines.reader.read(64 * 1024)):
                dropped += len(piece)
    except (TimeoutError, ConnectionError, OSError):
        pass


def _parse_hostport(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def _token(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    if args.token is not None:
        parser.error(
            "--token is gone: a token on the command line shows in `ps` to every user of this "
            f"machine. Set ${TOKEN_ENV}, or put it in a file (chmod 600) and pass --token-file"
        )
    if args.token_file:
        try:
            return read_token_file(args.token_file)
        except ValueError as exc:
            parser.error(str(exc))
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token and len(_token_bytes(token)) < MIN_TOKEN_BYTES:
        parser.error(
            f"${TOKEN_ENV} holds {len(_token_bytes(token))} bytes, under the {MIN_TOKEN_BYTES} a "
            f"shared token needs; set a longer one: export {TOKEN_ENV}=$({TOKEN_RECIPE})"
        )
    if not token:
        token = secrets.token_urlsafe(16)
        print(
            f"kernels worker token (none in ${TOKEN_ENV} or --token-file): {token}",
            file=sys.stderr,
            flush=True,
        )
    return token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kernels_bridge.worker",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--listen",
        type=_parse_hostport,
        metavar="HOST:PORT",
        help="serve over TCP instead of stdio (port 0 picks a free one)",
    )
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"file holding the shared token a TCP client must send first (else ${TOKEN_ENV})",
    )
    parser.add_argument("--token", help=argparse.SUPPRESS)  # refused with the reason
    parser.add_argument("--once", action="store_true", help="exit after one TCP session")
    args = parser.parse_args(argv)
    if args.listen is None:
        return serve_stdio()
    token = _token(parser, args)
    host, port = args.listen
    if not _is_loopback(host):
        print(
            f"WARNING: listening on {host}:{port} exposes the kernel worker beyond this machine: "
            "anyone who reaches the port can try tokens and run jobs on its GPU. Prefer "
            "--listen 127.0.0.1:PORT and an SSH tunnel (ssh -L PORT:127.0.0.1:PORT gpu-box).",
            file=sys.stderr,
            flush=True,
        )
    try:
        return asyncio.run(TcpWorker(token, args.once).serve(host, port))
    except OSError as exc:
        print(f"error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
