"""Asyncio client of the kernel worker: spawns it, or connects to one over TCP. No torch here.

    client = KernelClient()                # auto-detects a Python that can import torch
    hello = await client.start()
    await client.run(Run(job_id="j1", variants=["gqa"], kv_lens=[4096], ...))
    async for event in client.events():    # Hello, Progress, Result, Done, Error, Closed
        ...
    await client.shutdown()

A worker that dies is reported as a `Closed` event with its exit code and the tail of its
stderr; the stream then ends, and `start()` may be called again to restart it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

from kernels_bridge.client.launcher import WorkerError, child_env, find_worker_python
from kernels_bridge.protocol import (
    TOKEN_ENV,
    Auth,
    Bye,
    Cancel,
    Error,
    Hello,
    Message,
    ProtocolError,
    Run,
    from_json,
)

HELLO_TIMEOUT_S = 120.0  # importing torch (and probing CUDA) can take a while on first run
# A worker under a flood of silent connections may close ours before it reads our token (it
# keeps the newest): that refusal is transient, so a connecting client tries again, backing off.
DISPLACED = "refused: displaced by newer connections"
DISPLACED_TRIES = 6  # 0.1 + 0.2 + ... + 1.6 s of waiting at most


@dataclass
class Closed:
    """The worker (or the TCP connection) is gone."""

    exit_code: int | None
    stderr_tail: str
    expected: bool  # True after shutdown(); False when it died on its own

    TYPE = "closed"


Event = Message | Closed


class KernelClient:
    """One worker connection. Either `python` (spawn) or `connect=(host, port)` with a token
    (`token`, else $WORKBENCH_KERNEL_TOKEN)."""

    def __init__(
        self,
        python: str | None = None,
        *,
        connect: tuple[str, int] | None = None,
        token: str | None = None,
        configured_python: str | None = None,
        env: dict[str, str] | None = None,
        hello_timeout_s: float = HELLO_TIMEOUT_S,
    ) -> None:
        self.python = python
        self.connect = connect
        # never from argv: given by the caller (a UI field, --token-file) or from the environment
        self.token = token or os.environ.get(TOKEN_ENV, "").strip()
        self.configured_python = configured_python
        self.extra_env = env or {}
        self.hello_timeout_s = hello_timeout_s
        self.hello: Hello | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        self._running = False
        self._closing = False

    @property
    def is_running(self) -> bool:
        return self._running

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    async def start(self) -> Hello:
        """Spawn (or connect), wait for the hello; raises WorkerError when none comes."""
        for attempt in range(DISPLACED_TRIES):
            try:
                return await self._start_once()
            except WorkerError as exc:
                if self.connect is None or not str(exc).startswith(DISPLACED):
                    raise
                if attempt == DISPLACED_TRIES - 1:
                    raise
                await asyncio.sleep(0.1 * 2**attempt)
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _start_once(self) -> Hello:
        if self._running:
            raise WorkerError("the worker is already running")
        self._queue = asyncio.Queue()
        self._stderr.clear()
        self._closing = False
        self.hello = None
        if self.connect is not None:
            host, port = self.connect
            try:
                self._reader, self._writer = await asyncio.open_connection(
                    host, port, limit=1 << 24
                )
            except OSError as exc:
                raise WorkerError(f"cannot connect to {host}:{port}: {exc}") from exc
            self._writer.write((Auth(token=self.token).to_json() + "\n").encode())
            await self._writer.drain()
        else:
            python = self.python
            if python is None:
                python = await asyncio.to_thread(find_worker_python, self.configured_python)
            self.python = python
            env = child_env()
            env.update(self.extra_env)
            self.proc = await asyncio.create_subprocess_exec(
                python,
                "-m",
                "kernels_bridge.worker",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                limit=1 << 24,
            )
            self._reader, self._writer = self.proc.stdout, self.proc.stdin
            self._tasks.append(asyncio.create_task(self._drain_stderr()))
        self._running = True
        self._tasks.append(asyncio.create_task(self._read_loop()))
        try:
            first = await asyncio.wait_for(self._queue.get(), self.hello_timeout_s)
        except TimeoutError as exc:
            await self._kill()
            raise WorkerError(f"no hello from the worker in {self.hello_timeout_s:.0f} s") from exc
        if isinstance(first, Hello):
            self.hello = first
            return first
        await self._kill()
        if isinstance(first, Error):
            raise WorkerError(first.message)
        if isinstance(first, Closed):
            raise WorkerError(
                f"the worker exited (code {first.exit_code}) before its hello: {first.stderr_tail}"
            )
        raise WorkerError(f"expected hello, got {first!r}")

    async def send(self, msg: Message) -> None:
        if not self._running or self._writer is None:
            raise WorkerError("the worker is not running")
        try:
            self._writer.write((msg.to_json() + "\n").encode())
            await self._writer.drain()
        except (ConnectionError, OSError) as exc:
            raise WorkerError(f"the worker is gone: {exc}") from exc

    async def run(self, job: Run) -> None:
        await self.send(job)

    async def cancel(self, job_id: str | None = None) -> None:
        await self.send(Cancel(job_id=job_id))

    async def events(self) -> AsyncIterator[Event]:
        """Messages from the worker until (and including) a Closed event."""
        while True:
            ev = await self._queue.get()
            yield ev
            if isinstance(ev, Closed):
                return

    async def next_event(self, timeout: float | None = None) -> Event:
        return await asyncio.wait_for(self._queue.get(), timeout)

    async def shutdown(self, timeout_s: float = 5.0) -> None:
        """Say bye, wait up to timeout_s, then kill. Safe to call twice."""
        if not self._running and self.proc is None and self._writer is None:
            return
        self._closing = True
        with contextlib.suppress(WorkerError):
            if self._running:
                await self.send(Bye(reason="client shutdown"))
        if self._writer is not None:
            with contextlib.suppress(OSError, RuntimeError):
                self._writer.close()
        if self.proc is not None:
            try:
                await asyncio.wait_for(self.proc.wait(), timeout_s)
            except TimeoutError:
                await self._kill()
        for task in self._tasks:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(task, timeout_s)
        self._tasks.clear()
        self._running = False
        self.proc = None
        self._writer = None

    async def _kill(self) -> None:
        self._closing = True
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 5.0)
        if self._writer is not None:
            with contextlib.suppress(OSError, RuntimeError):
                self._writer.close()
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
        self._running = False

    async def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while True:
            line = await self.proc.stderr.readline()
            if not line:
                return
            self._stderr.append(line.decode("utf-8", "replace").rstrip())

    async def _read_loop(self) -> None:
        assert self._reader is not None
        try:
            while True:
                try:
                    line = await self._reader.readline()
                except (ConnectionError, OSError, ValueError):
                    break
                if not line:
                    break
                try:
                    msg = from_json(line)
                except ProtocolError as exc:
                    text = line.decode("utf-8", "replace").strip()[:200]
                    await self._queue.put(Error(message=f"unreadable worker output: {exc}: {text}"))
                    continue
                await self._queue.put(msg)
        finally:
            code: int | None = None
            if self.proc is not None:
                try:
                    code = await asyncio.wait_for(self.proc.wait(), 5.0)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        self.proc.kill()
                    code = await self.proc.wait()
                # let the stderr drain catch up with the last lines
                await asyncio.sleep(0.05)
            self._running = False
            tail = "\n".join(list(self._stderr)[-12:])
            await self._queue.put(Closed(code, tail, self._closing))
