"""Worker processes on this machine: `workbench bench --workers N` (N > 1).

Each worker is a spawned process with its own event loop that runs one `ShardRun` per round.
Messages go over a pipe as pickles: coordinator -> worker ("job", Job), ("go", start_at);
worker -> coordinator ("ready",), ("row", RequestResult) as each request finishes, and
("end", status, message) after each round. A worker whose pipe closes before its round's end
has died; the coordinator turns what it still owed into `worker_lost` rows.

Stopping: Ctrl-C reaches the whole process group, so workers ignore SIGINT and the coordinator
decides; it sends SIGTERM, on which a worker cancels its requests in flight (each becomes a
'cancelled' row that still comes back) and ends its round.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import signal
import threading
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from workbench.core.scale.shards import Job, ShardRun

READY_TIMEOUT_S = 120.0  # a worker that cannot start (import, memory) within this is lost
Message = tuple[Any, ...]


def child_main(conn: Connection) -> None:
    """A worker process: rounds until the coordinator says stop or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator decides; it sends SIGTERM
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # between rounds there is nothing to stop
    while True:
        message = _receive(conn)
        if message[0] != "job":
            return
        asyncio.run(_child_round(message[1], conn))


async def _child_round(job: Job, conn: Connection) -> None:
    loop = asyncio.get_running_loop()

    def send(message: Message) -> None:
        try:
            conn.send(message)
        except OSError:  # the coordinator is gone (killed): stop, nobody takes the rows
            run.cancel()

    run = ShardRun(job, lambda result: send(("row", result)))
    with contextlib.suppress(NotImplementedError):  # Windows: terminate() stops it outright
        loop.add_signal_handler(signal.SIGTERM, run.cancel)
    try:
        send(("ready",))
        go = await loop.run_in_executor(None, _receive, conn)
        if go[0] != "go":
            return
        status, message = await run.run(go[1])
        send(("end", status, message))
    finally:
        with contextlib.suppress(NotImplementedError):
            loop.remove_signal_handler(signal.SIGTERM)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _receive(conn: Connection) -> Message:
    try:
        message: Message = conn.recv()
        return message
    except (EOFError, OSError):
        return ("exit",)


class ProcessWorkers:
    """Up to `count` worker processes, started on the first round that needs them."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.messages: asyncio.Queue[tuple[int, Message]] = asyncio.Queue()
        self._context = multiprocessing.get_context("spawn")  # no inherited loop or threads
        self._procs: dict[int, tuple[BaseProcess, Connection]] = {}
        self._lost: dict[int, str] = {}
        self._busy: set[int] = set()

    def describe(self, shares: Sequence[int]) -> str:
        split = " + ".join(str(share) for share in shares)
        return f"{self.count} worker processes on this machine (concurrency {split})"

    def offset_s(self, index: int) -> float:
        return 0.0  # one machine, one wall clock

    def _spawn(self, index: int) -> None:
        loop = asyncio.get_running_loop()
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=child_main, args=(child,), name=f"workbench-worker-{index}", daemon=True
        )
        process.start()
        child.close()
        self._procs[index] = (process, parent)

        def post(message: Message) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody listens
                loop.call_soon_threadsafe(self.messages.put_nowait, (index, message))

        threading.Thread(target=self._read, args=(index, post), daemon=True).start()

    def _read(self, index: int, post: Any) -> None:
        process, conn = self._procs[index]
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                process.join(2.0)
                code = process.exitcode
                how = (
                    f"was killed by signal {-code}"
                    if code is not None and code < 0
                    else f"exited with code {code}"
                )
                post(("lost", f"worker process {index} (pid {process.pid}) {how}"))
                return
            post(message)

    async def start(self, jobs: Sequence[Job]) -> None:
        """Hand each worker its job; return once each is ready or lost."""
        waiting = set()
        for job in jobs:
            i = job.shard.index
            if i in self._lost:
                self.messages.put_nowait((i, ("lost", self._lost[i])))
                continue
            if i not in self._procs:
                self._spawn(i)
            try:
                self._procs[i][1].send(("job", job))
            except OSError:
                continue  # its reader thread reports it lost
            waiting.add(i)
        held: list[tuple[int, Message]] = []
        deadline = time.monotonic() + READY_TIMEOUT_S
        while waiting:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    i, message = await self.messages.get()
            except TimeoutError:
                for i in waiting:
                    self._kill(i)  # its reader thread then reports it lost
                break
            if message[0] == "ready":
                waiting.discard(i)
                self._busy.add(i)
                continue
            if message[0] == "lost":
                waiting.discard(i)
                self._lost[i] = message[1]
            held.append((i, message))
        for item in held:  # a loss is the round's news too
            self.messages.put_nowait(item)

    def go(self, start_at: float) -> None:
        for i in list(self._busy):
            with contextlib.suppress(OSError):
                self._procs[i][1].send(("go", start_at))

    def ended(self, index: int, lost: str | None = None) -> None:
        self._busy.discard(index)
        if lost is not None:
            self._lost[index] = lost

    def cancel(self) -> None:
        for i in self._busy:
            process = self._procs[i][0]
            if process.is_alive() and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()  # SIGTERM: the worker cancels its requests in flight

    def _kill(self, index: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._procs[index][0].kill()

    async def close(self) -> None:
        for _process, conn in self._procs.values():
            with contextlib.suppress(OSError):
                conn.send(("exit",))
        loop = asyncio.get_running_loop()
        for index, (process, conn) in self._procs.items():
            await loop.run_in_executor(None, process.join, 5.0)
            if process.is_alive():
                self._kill(index)
            conn.close()
        self._procs.clear()
