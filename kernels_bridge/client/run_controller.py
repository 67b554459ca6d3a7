"""One kernel worker's life cycle and event pump, shared by the Kernels tab and `workbench kernels`.

No Qt, no torch: the faces give a `RunListener` and words; this module decides what happens.

    controller = KernelRunController(listener)
    hello = await controller.ensure_worker(WorkerChoice("auto"))   # None: the start was cancelled
    outcome = await controller.run(job)      # "finished" | "cancelled" | "failed"
    await controller.cancel()                # from elsewhere: cancel the start or the job
    await controller.aclose()

A started worker gets one pump task that reads its events until it closes: rows, progress and
the worker's error messages go to the listener as they come; `Done`, a job's (or a fatal)
`Error`, or the worker's death end the running job. A worker that dies on its own reaches the
listener as a `WorkerCrash`; one stopped on purpose as `worker_stopped()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from dataclasses import dataclass
from typing import Protocol

from kernels_bridge.client.connection import Closed, Event, KernelClient
from kernels_bridge.client.launcher import WorkerError
from kernels_bridge.protocol import Done, Error, Hello, Progress, Result, ResultRow, Run

log = logging.getLogger(__name__)

FINISHED, CANCELLED, FAILED = "finished", "cancelled", "failed"
CANCEL_GRACE_S = 0.6  # after this the worker is stopped: a launch can outlast one cancel check


@dataclass(frozen=True)
class WorkerChoice:
    """Which worker to use: auto-detected Python, a given Python, or a TCP address."""

    mode: str  # auto | python | connect
    python: str | None = None
    connect: tuple[str, int] | None = None
    token: str = ""

    def client(self) -> KernelClient:
        if self.connect is not None:
            return KernelClient(connect=self.connect, token=self.token)
        return KernelClient(self.python)


@dataclass(frozen=True)
class WorkerCrash:
    """A worker that ended without being asked to: its exit code and the last of its stderr."""

    exit_code: int | None
    stderr_tail: str

    @property
    def signal_name(self) -> str | None:
        """SIGKILL and the like when a signal ended it (a negative exit code), else None."""
        if self.exit_code is None or self.exit_code >= 0:
            return None
        try:
            return signal.Signals(-self.exit_code).name
        except ValueError:
            return None


class RunListener(Protocol):
    """What a face shows of the worker; called on the event loop, in event order."""

    def worker_starting(self) -> None: ...

    def worker_stopped(self) -> None: ...  # stopped on purpose (a restart, aclose)

    def worker_crashed(self, crash: WorkerCrash) -> None: ...

    def worker_error(self, message: str) -> None: ...  # an `error` message of the worker

    def job_progress(self, done: int, total: int, message: str) -> None: ...

    def job_row(self, row: ResultRow) -> None: ...


class KernelRunController:
    """At most one worker and one job at a time."""

    def __init__(self, listener: RunListener) -> None:
        self.listener = listener
        self.client: KernelClient | None = None
        self.hello: Hello | None = None
        self.job: Run | None = None
        self._choice: WorkerChoice | None = None
        self._pump: asyncio.Task[None] | None = None
        self._starting: asyncio.Task[Hello] | None = None
        self._job_done: asyncio.Future[str] | None = None
        self._lock = asyncio.Lock()

    @property
    def starting(self) -> bool:
        return self._starting is not None

    def is_running_as(self, choice: WorkerChoice) -> bool:
        """Whether the running worker is the one `choice` asks for (no start needed). One
        without torch is asked again: torch may have been installed since its hello."""
        client, hello = self.client, self.hello
        if hello is not None and hello.torch_version is None:
            return False
        return client is not None and client.is_running and choice == self._choice

    async def ensure_worker(self, choice: WorkerChoice) -> Hello | None:
        """The hello of a running worker as `choice` asks, started (or restarted) if needed;
        None when cancel() stopped the start. WorkerError says why it could not start."""
        async with self._lock:
            if self.is_running_as(choice) and self.hello is not None:
                return self.hello
            await self.stop_worker()
            self.listener.worker_starting()
            client = choice.client()
            starting = asyncio.ensure_future(client.start())
            self._starting = starting
            try:
                await asyncio.wait({starting})
            except asyncio.CancelledError:
                starting.cancel()
                await _discard(client)
                raise
            finally:
                self._starting = None
            if starting.cancelled():
                await _discard(client)
                return None
            failure = starting.exception()
            if failure is not None:
                await _discard(client)
                if isinstance(failure, OSError):  # e.g. a --worker path that cannot execute
                    raise WorkerError(str(failure)) from failure
                raise failure
            self.client, self._choice, self.hello = client, choice, starting.result()
            self._pump = asyncio.ensure_future(self._pump_events(client))
            return self.hello

    async def stop_worker(self, timeout_s: float = 5.0) -> None:
        """Shut the worker down (bye, then kill after timeout_s); the listener hears of it."""
        client, pump = self.client, self._pump
        self.client, self._pump, self._choice = None, None, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.shutdown(timeout_s=timeout_s)
        if pump is not None:
            try:
                await asyncio.wait_for(pump, 1.0)
            except (TimeoutError, asyncio.CancelledError):
                pump.cancel()
        if client is not None:
            self.listener.worker_stopped()

    async def run(self, job: Run) -> str:
        """Send `job` to the running worker and wait for its end: finished, cancelled or
        failed. Rows and progress reach the listener meanwhile. WorkerError when none runs."""
        if self.client is None:
            raise WorkerError("the worker is not running")
        self.job = job
        self._job_done = asyncio.get_running_loop().create_future()
        try:
            await self.client.run(job)
            return await self._job_done
        finally:
            self.job, self._job_done = None, None

    async def cancel(self, grace_s: float = CANCEL_GRACE_S) -> None:
        """Stop a start in progress, or the running job within grace_s: the worker is asked,
        and stopped if it is slower (a fresh one starts next time)."""
        if self._starting is not None:
            self._starting.cancel()
            return
        job, done, client = self.job, self._job_done, self.client
        if job is None or done is None or client is None:
            return
        with contextlib.suppress(WorkerError):
            await client.cancel(job.job_id)
        try:
            await asyncio.wait_for(asyncio.shield(done), grace_s)
        except TimeoutError:
            # one launch outlasts the grace (a long CPU step)
            await self.stop_worker(timeout_s=0.1)
            self._finish_job(CANCELLED)

    async def aclose(self, timeout_s: float = 2.0) -> None:
        """Cancel what runs and stop the worker. Idempotent."""
        if self._starting is not None:
            self._starting.cancel()
        self._finish_job(CANCELLED)
        await self.stop_worker(timeout_s=timeout_s)

    def _finish_job(self, outcome: str) -> None:
        if self._job_done is not None and not self._job_done.done():
            self._job_done.set_result(outcome)

    async def _pump_events(self, client: KernelClient) -> None:
        async for ev in client.events():
            try:
                self._on_event(client, ev)
            except Exception:  # a bad message (or listener) must not end the good ones' stream
                log.exception("kernel worker: bad event %r", ev)

    def _on_event(self, client: KernelClient, ev: Event) -> None:
        job_id = self.job.job_id if self.job else None
        if isinstance(ev, Closed):
            if client is self.client:  # it died on its own; a stop we asked for is not news
                self.client, self._choice, self._pump, self.hello = None, None, None, None
                self.listener.worker_crashed(WorkerCrash(ev.exit_code, ev.stderr_tail.strip()))
                self._finish_job(FAILED)
            return
        if isinstance(ev, Progress) and ev.job_id == job_id:
            self.listener.job_progress(ev.done, ev.total, ev.message)
        elif isinstance(ev, Result) and ev.job_id == job_id:
            self.listener.job_row(ev.result_row)
        elif isinstance(ev, Done) and ev.job_id == job_id:
            self._finish_job(CANCELLED if ev.cancelled else FINISHED)
        elif isinstance(ev, Error):
            self.listener.worker_error(ev.message)
            if job_id is not None and (ev.job_id == job_id or ev.fatal):
                self._finish_job(FAILED)


async def _discard(client: KernelClient) -> None:
    with contextlib.suppress(Exception):
        await client.shutdown(timeout_s=0.2)
