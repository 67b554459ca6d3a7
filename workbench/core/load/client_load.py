"""How busy the measuring client itself was: its CPU over the run, and its event loop's lateness.

A client whose loop runs late stamps tokens when it gets to them, not when they arrived, so a
saturated client reports the server faster or slower than it is (issue 28: 64 workers on 2
cores reported decode 15x the one-worker figure). The run records these figures in run.json
(`client`), and `saturated` says the run's timings are the client's as much as the server's.
See docs/metrics.md and docs/scale.md.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from workbench.core.foundation.metrics import percentile

LAG_SAMPLE_S = 0.05  # one look at the loop's lateness every 50 ms
# p90 lateness (sustained, not one pause such as starting the workers) over which a token's
# stamp is often late by several decode intervals of a fast server (6 ms at 163 tok/s)
SATURATED_LAG_MS = 20.0
SATURATED_CPU_SHARE = 0.9  # of the cores the client's processes could use
# a second of looks at the least: in a shorter run one pause (its first connection, an import)
# is the p90, and start-up is most of its CPU; such a run is not judged
MIN_JUDGED_SAMPLES = 20


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows: no affinity call
        return os.cpu_count() or 1


def _cpu_s() -> tuple[float, float]:
    """CPU seconds of this process (every thread), and of its children that have ended and been
    waited for (the workers; 0 on Windows)."""
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


class ClientLoad:
    """`async with ClientLoad(processes) as load:` around a run; then `load.figures()`.

    `processes`: the client's processes (1, or the workers plus this coordinator); its CPU is this
    process's (every thread) plus that of children waited for before the end, i.e. the workers.
    """

    def __init__(self, processes: int = 1) -> None:
        self.processes = max(1, processes)
        self.lags_ms: list[float] = []
        self._task: asyncio.Task[None] | None = None
        self._start = (0.0, 0.0, 0.0)
        self._end = (0.0, 0.0, 0.0)

    @staticmethod
    def _clock() -> tuple[float, float, float]:
        return time.perf_counter(), *_cpu_s()

    async def _sample(self) -> None:
        while True:
            due = time.perf_counter() + LAG_SAMPLE_S
            await asyncio.sleep(LAG_SAMPLE_S)
            self.lags_ms.append(max(0.0, (time.perf_counter() - due) * 1000))

    async def __aenter__(self) -> ClientLoad:
        self._start = self._clock()
        self._task = asyncio.create_task(self._sample(), name="client-load")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._end = self._clock()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def figures(self) -> dict[str, Any]:
        """The `client` object of run.json (docs/json.md)."""
        wall = max(1e-9, self._end[0] - self._start[0])
        cpu = (self._end[1] - self._start[1]) + (self._end[2] - self._start[2])
        cores = usable_cores()
        busy = cpu / wall
        share = busy / min(cores, self.processes)
        lag90 = percentile(self.lags_ms, 90)
        reasons = []
        judged = len(self.lags_ms) >= MIN_JUDGED_SAMPLES  # else one pause could be the p90
        if judged and share >= SATURATED_CPU_SHARE:
            reasons.append(f"its CPU was {busy:.2f} of {min(cores, self.processes)} core(s)")
        if judged and lag90 is not None and lag90 > SATURATED_LAG_MS:
            reasons.append(f"its event loop ran {lag90:.0f} ms late (p90)")
        return {
            "usable_cores": cores,
            "processes": self.processes,
            "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3),
            "cpu_cores_busy": round(busy, 3),
            "cpu_share": round(share, 3),
            "loop_lag_p50_ms": _ms(percentile(self.lags_ms, 50)),
            "loop_lag_p90_ms": _ms(lag90),
            "loop_lag_p99_ms": _ms(percentile(self.lags_ms, 99)),
            "loop_lag_max_ms": _ms(max(self.lags_ms) if self.lags_ms else None),
            "saturated": bool(reasons),
            "saturated_because": "; ".join(reasons) or None,
        }


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
