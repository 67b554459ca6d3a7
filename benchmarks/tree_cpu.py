"""CPU seconds a process and all its descendants have used, sampled over time (Linux /proc).

A client that runs worker processes (guidellm, AIPerf) spends its CPU in several of them, and
its start-up and report are no part of sending requests: sampling the whole tree lets a
benchmark take only the CPU spent between two moments (its first and last request).
"""

from __future__ import annotations

import asyncio
import bisect
import os
import time
from pathlib import Path

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds the process itself has used), or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the name may hold spaces and parentheses
    # after the name, 0-based: state(0) ppid(1) ... utime(11) stime(12)
    return int(fields[1]), (int(fields[11]) + int(fields[12])) * TICK_S


def tree_cpu_by_pid(root: int) -> dict[int, float]:
    """CPU seconds of `root` and of each of its live descendants, by pid."""
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat is not None:
                stats[int(name)] = stat
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            found[pid] = stats[pid][1]
            todo.extend(children.get(pid, ()))
    return found


class TreeSampler:
    """`async with TreeSampler(pid):` samples the tree's CPU every `interval_s` until the block
    ends; `cpu_between(a_ns, b_ns)` interpolates the CPU used between two perf_counter_ns."""

    def __init__(self, root: int, interval_s: float = 0.1) -> None:
        self.root = root
        self.interval_s = interval_s
        self.times_ns: list[int] = []
        self.cpu_s: list[float] = []
        self._last: dict[int, float] = {}
        self._task: asyncio.Task[None] | None = None

    def sample(self) -> None:
        # each process keeps the CPU it was last seen with, so one that exits (or is reparented)
        # still counts; one that lives less than a sampling interval may be missed
        self._last.update(tree_cpu_by_pid(self.root))
        self.times_ns.append(time.perf_counter_ns())
        self.cpu_s.append(sum(self._last.values()))

    async def _run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.interval_s)

    async def __aenter__(self) -> TreeSampler:
        self._task = asyncio.ensure_future(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.sample()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def _at(self, t_ns: int) -> float:
        i = bisect.bisect_left(self.times_ns, t_ns)
        if i == 0:
            return self.cpu_s[0]
        if i == len(self.times_ns):
            return self.cpu_s[-1]
        t0, t1 = self.times_ns[i - 1], self.times_ns[i]
        c0, c1 = self.cpu_s[i - 1], self.cpu_s[i]
        return c0 + (c1 - c0) * (t_ns - t0) / (t1 - t0)

    def cpu_between(self, start_ns: int, end_ns: int) -> float | None:
        """CPU seconds the tree used from start to end; None without samples spanning them."""
        if len(self.times_ns) < 2 or start_ns < self.times_ns[0] or end_ns > self.times_ns[-1]:
            return None
        return self._at(end_ns) - self._at(start_ns)
