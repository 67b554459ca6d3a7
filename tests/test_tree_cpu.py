"""benchmarks/tree_cpu.py: a process tree's CPU, its exited grandchildren's included."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from tree_cpu import TreeSampler

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

# a child that starts a grandchild burning 0.6 s of CPU, waits for it, then idles for 1 s
BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"
PARENT = (
    "import subprocess, sys, time\n"
    f"subprocess.run([sys.executable, '-c', {BURN!r}], check=True)\n"
    "time.sleep(1.0)\n"
)


async def test_a_grandchilds_cpu_counts_and_idling_adds_none() -> None:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", PARENT)
    async with TreeSampler(proc.pid, interval_s=0.05) as sampler:
        await proc.wait()
    assert proc.returncode == 0
    whole = sampler.cpu_between(sampler.times_ns[0], sampler.times_ns[-1])
    assert whole is not None and whole >= 0.55  # the burn, counted once it was sampled
    assert whole < 0.6 + 2.0  # two interpreters' start-up at most, nothing counted twice
    idle_from = sampler.times_ns[-1] - 500_000_000  # the last half second: the parent sleeps
    idle = sampler.cpu_between(idle_from, sampler.times_ns[-1])
    assert idle is not None and idle < 0.05


def test_no_figure_outside_the_samples() -> None:
    sampler = TreeSampler(1)
    assert sampler.cpu_between(0, time.perf_counter_ns()) is None
