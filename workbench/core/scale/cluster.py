"""Workers as Ray actors across a cluster's nodes: `workbench bench --cluster ADDRESS`.

Ray is an optional extra (`pip install 'attention-workbench[cluster]'`): it is imported here,
inside functions, and nothing else in the app imports this module at start-up, so the app,
the GUI and the packaged binary never load it.

Placement: one actor per share, one CPU each, spread over the nodes (Ray's SPREAD strategy);
each node's share of the concurrency is printed at the start. Results stream back as they
finish: the coordinator polls each actor's `take()` (a few ms apart); an actor whose node or
process died answers with an error, and what it still owed becomes `worker_lost` rows.

Clocks: TTFT and token times are differences of one process's `perf_counter_ns` and need no
correction. For the run's timeline (`started_at`) each actor's wall-clock offset is measured
NTP-style: over `CLOCK_ROUNDS` round trips, the actor's `time.time()` against the midpoint of
the coordinator's send and receive; the round with the shortest trip wins, and half that trip
is the offset's uncertainty (well under a millisecond on one LAN).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.scale.shards import Job, ShardRun
from workbench.core.system.private_files import private_file

INSTALL_HINT = "pip install 'attention-workbench[cluster]'"
CLOCK_ROUNDS = 5
POLL_S = 0.02  # an idle actor is asked again this often
Message = tuple[Any, ...]


class ClusterError(Exception):
    """The cluster cannot be used; the message names the cause and the fix."""


def ray_module() -> Any:
    """Ray, or ClusterError naming the install command."""
    _token_auth_when_available()  # read when Ray is imported
    try:
        import ray
    except ImportError as exc:
        raise ClusterError(
            f"--cluster needs Ray, which is not installed ({exc}). Fix: {INSTALL_HINT}"
        ) from None
    return ray


def address_of(text: str) -> str:
    """What ray.init takes: `auto`, `ray://HOST:PORT` (Ray Client) or `HOST:PORT` (the GCS)."""
    text = text.strip()
    if text == "auto" or text.startswith("ray://"):
        return text
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ClusterError(
            f"--cluster {text!r} is not an address. Fix: give ray://HOST:PORT, HOST:PORT "
            "(the head node's GCS port, 6379 by default) or auto"
        )
    return text


def _token_auth_when_available() -> None:
    """Send the cluster token when there is one. Ray (2.60) makes a new cluster use token
    authentication, but a driver joining one does not send its token unless RAY_AUTH_MODE says
    so; a cluster without authentication ignores the token. Only this process's environment.
    The token file, when it is ours and others may read it, is made owner-only (0600)."""
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")
    if Path(path).is_file():  # `ray start` writes it 0644: a secret of ours others may read
        private_file(Path(path))
    if os.environ.get("RAY_AUTH_MODE"):
        return  # the user's choice
    if os.environ.get("RAY_AUTH_TOKEN") or Path(path).is_file():
        os.environ["RAY_AUTH_MODE"] = "token"


class _ShardActor:
    """One worker inside a Ray actor: the same ShardRun as a local worker process."""

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self.end: Message | None = None
        self.run: ShardRun | None = None

    async def clock(self) -> float:
        return time.time()

    async def where(self) -> str:
        import socket

        return socket.gethostname()

    async def prepare(self, job: Job) -> None:
        self.rows, self.end = [], None
        self.run = ShardRun(job, self.rows.append)

    async def go(self, start_at: float) -> None:
        assert self.run is not None
        asyncio.get_running_loop().create_task(self._run(self.run, start_at))

    async def _run(self, run: ShardRun, start_at: float) -> None:
        try:
            status, message = await run.run(start_at)
        except Exception as exc:  # a bug of ours: the round ends failed, with what broke
            status, message = "failed", f"worker error: {type(exc).__name__}: {exc}"
        self.end = ("end", status, message)

    async def take(self) -> tuple[list[Any], Message | None]:
        rows, self.rows = self.rows, []
        if self.run is not None:
            self.run.emit = self.rows.append
        return rows, self.end if not rows else None

    async def cancel(self) -> None:
        if self.run is not None:
            self.run.cancel()


class RayWorkers:
    """Ray actors on the cluster at `address`: `wanted` of them (default: the cluster's CPUs),
    never more than `limit` (the plan's concurrency)."""

    def __init__(self, address: str, wanted: int | None, limit: int) -> None:
        self.ray = ray_module()
        self.address = address_of(address)
        self.wanted, self.limit = wanted, limit
        self.count = 0
        self.messages: asyncio.Queue[tuple[int, Message]] = asyncio.Queue()
        self._actors: dict[int, Any] = {}
        self._offsets: dict[int, tuple[float, float]] = {}
        self._hosts: dict[int, str] = {}
        self._lost: dict[int, str] = {}
        self._polls: dict[int, asyncio.Task[None]] = {}

    def connect(self) -> None:
        """Join the cluster and place the actors; ClusterError when it cannot be reached."""
        ray = self.ray
        try:
            if not ray.is_initialized():
                ray.init(address=self.address, log_to_driver=False, logging_level="ERROR")
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.count = max(1, min(self.limit, self.wanted or cpus))
            actor = ray.remote(num_cpus=1, max_restarts=0, scheduling_strategy="SPREAD")(
                _ShardActor
            )
            self._actors = {i: actor.remote() for i in range(self.count)}
            hosts = ray.get([a.where.remote() for a in self._actors.values()])
            self._hosts = dict(zip(self._actors, hosts, strict=True))
        except ClusterError:
            raise
        except Exception as exc:
            raise ClusterError(
                f"cannot use the Ray cluster at {self.address}: {type(exc).__name__}: {exc}. "
                "Fix: start it (`ray start --head`) or pass its address"
            ) from None
        for i, handle in self._actors.items():
            self._offsets[i] = self._measure_offset(handle)

    def _measure_offset(self, handle: Any) -> tuple[float, float]:
        """(offset, uncertainty) in seconds: the actor's wall clock minus ours."""
        best: tuple[float, float] | None = None
        for _ in range(CLOCK_ROUNDS):
            sent = time.time()
            theirs = self.ray.get(handle.clock.remote())
            back = time.time()
            trip = back - sent
            if best is None or trip / 2 < best[1]:
                best = (theirs - (sent + back) / 2, trip / 2)
        assert best is not None
        return best

    def describe(self, shares: Sequence[int]) -> str:
        """Each node: its actors, their concurrency (`shares[i]` is actor i's) and clock offset."""
        nodes: dict[str, list[int]] = {}
        for i, host in self._hosts.items():
            nodes.setdefault(host, []).append(i)
        parts = []
        for host, ids in nodes.items():
            offset = max((self._offsets[i][0] for i in ids), key=abs) * 1e3
            error = max(self._offsets[i][1] for i in ids) * 1e3
            concurrency = sum(shares[i] for i in ids if i < len(shares))
            parts.append(
                f"{host}: {len(ids)} actor(s), concurrency {concurrency}, "
                f"clock offset {offset:+.1f} ms ± {error:.1f} ms"
            )
        return f"{self.count} Ray actors at {self.address} ({'; '.join(parts)})"

    def offset_s(self, index: int) -> float:
        return self._offsets.get(index, (0.0, 0.0))[0]

    async def start(self, jobs: Sequence[Job]) -> None:
        for job in jobs:
            i = job.shard.index
            if i in self._lost:
                self.messages.put_nowait((i, ("lost", self._lost[i])))
                continue
            try:
                await self._actors[i].prepare.remote(job)
            except Exception as exc:
                self._lose(i, exc)

    def go(self, start_at: float) -> None:
        for i, handle in self._actors.items():
            if i in self._lost:
                continue
            offset = self.offset_s(i)
            handle.go.remote(start_at + offset)  # the start in the actor's own wall clock
            self._polls[i] = asyncio.get_running_loop().create_task(self._poll(i, handle))

    async def _poll(self, index: int, handle: Any) -> None:
        while True:
            try:
                rows, end = await handle.take.remote()
            except Exception as exc:  # the actor (or its node) died
                self._lose(index, exc)
                return
            for row in rows:
                self.messages.put_nowait((index, ("row", row)))
            if end is not None:
                self.messages.put_nowait((index, end))
                return
            if not rows:
                await asyncio.sleep(POLL_S)

    def _lose(self, index: int, exc: BaseException) -> None:
        why = f"Ray actor {index} on {self._hosts.get(index, '?')} died ({type(exc).__name__})"
        self._lost[index] = why
        self.messages.put_nowait((index, ("lost", why)))

    def ended(self, index: int, lost: str | None = None) -> None:
        if lost is not None:
            self._lost[index] = lost

    def cancel(self) -> None:
        for i, handle in self._actors.items():
            if i not in self._lost:
                handle.cancel.remote()

    async def close(self) -> None:
        for task in self._polls.values():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for handle in self._actors.values():
            with contextlib.suppress(Exception):
                self.ray.kill(handle)
        self._actors.clear()
