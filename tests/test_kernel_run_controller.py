"""The Qt-free kernel-run controller against a real worker subprocess on the CPU: start, rows,
reuse, cancel, a killed worker classified as a crash, and starts that fail or are cancelled.
The same controller drives `workbench kernels`, checked here through the real CLI."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kernels_bridge.client.launcher import WorkerError
from kernels_bridge.client.run_controller import KernelRunController, WorkerChoice, WorkerCrash
from kernels_bridge.protocol import ResultRow, Run

ROOT = Path(__file__).resolve().parent.parent
HERE = WorkerChoice("python", python=sys.executable)
TINY = {"gqa": {"kind": "GQA", "layers": 1, "q_heads": 4, "kv_heads": 2, "head_dim": 16}}


class Heard:
    """A listener that keeps what it is told, in order."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.rows: list[ResultRow] = []
        self.crashes: list[WorkerCrash] = []
        self.errors: list[str] = []
        self.progress: list[tuple[int, int]] = []

    def worker_starting(self) -> None:
        self.said.append("starting")

    def worker_stopped(self) -> None:
        self.said.append("stopped")

    def worker_crashed(self, crash: WorkerCrash) -> None:
        self.said.append("crashed")
        self.crashes.append(crash)

    def worker_error(self, message: str) -> None:
        self.errors.append(message)

    def job_progress(self, done: int, total: int, message: str) -> None:
        self.progress.append((done, total))

    def job_row(self, row: ResultRow) -> None:
        self.rows.append(row)


def tiny_job(job_id: str, iters: int = 2, kv: tuple[int, ...] = (32, 48)) -> Run:
    return Run(
        job_id=job_id,
        variants=["gqa"],
        kv_lens=list(kv),
        dtypes=["fp32"],
        backends=["reference"],
        warmup=1,
        iters=iters,
        shapes=TINY,
        gpu_profile="H200",
    )


async def _until_running(heard: Heard, timeout: float = 30) -> None:
    """Until the worker announces its first combination: it is timing that (endless) one now."""
    async with asyncio.timeout(timeout):
        while not heard.progress:
            await asyncio.sleep(0.02)


async def test_a_sweep_hands_every_row_to_the_listener_and_the_worker_is_reused() -> None:
    heard = Heard()
    controller = KernelRunController(heard)
    try:
        async with asyncio.timeout(90):
            hello = await controller.ensure_worker(HERE)
            assert hello is not None and hello.torch_version
            pid = controller.client.pid if controller.client else None
            assert await controller.run(tiny_job("one")) == "finished"
            assert [(r.kv_len, r.error) for r in heard.rows] == [(32, ""), (48, "")]
            assert all(r.latency_us and r.latency_us > 0 for r in heard.rows)
            assert controller.job is None
            # the same choice again: the same worker, no second start
            assert await controller.ensure_worker(HERE) is hello
            assert controller.client is not None and controller.client.pid == pid
            assert heard.said == ["starting"]
    finally:
        await controller.aclose()
    assert controller.client is None and heard.said == ["starting", "stopped"]


async def test_a_killed_worker_fails_the_job_as_a_classified_crash_and_restarts() -> None:
    heard = Heard()
    controller = KernelRunController(heard)
    try:
        async with asyncio.timeout(90):
            await controller.ensure_worker(HERE)
            run = asyncio.ensure_future(controller.run(tiny_job("endless", iters=1_000_000)))
            await _until_running(heard)
            assert controller.client is not None and controller.client.pid is not None
            os.kill(controller.client.pid, signal.SIGKILL)
            assert await run == "failed"
            assert heard.said == ["starting", "crashed"]
            (crash,) = heard.crashes
            assert crash.exit_code == -signal.SIGKILL and crash.signal_name == "SIGKILL"
            assert controller.client is None and controller.hello is None

            assert await controller.ensure_worker(HERE) is not None
            assert await controller.run(tiny_job("again", kv=(32,))) == "finished"
    finally:
        await controller.aclose()


async def test_cancel_ends_a_running_job_within_a_second() -> None:
    heard = Heard()
    controller = KernelRunController(heard)
    try:
        async with asyncio.timeout(90):
            await controller.ensure_worker(HERE)
            run = asyncio.ensure_future(controller.run(tiny_job("endless", iters=1_000_000)))
            await _until_running(heard)
            start = time.perf_counter()
            await controller.cancel()
            assert await run == "cancelled"
            assert time.perf_counter() - start < 1.0
    finally:
        await controller.aclose()


async def test_a_job_the_worker_refuses_fails_with_its_words() -> None:
    heard = Heard()
    controller = KernelRunController(heard)
    try:
        async with asyncio.timeout(90):
            await controller.ensure_worker(HERE)
            bad = tiny_job("bad")
            bad.variants = ["no-such-variant"]
            assert await controller.run(bad) == "failed"
            assert heard.errors and "no-such-variant" in heard.errors[0]
            assert controller.client is not None and controller.client.is_running
    finally:
        await controller.aclose()


async def test_cancel_during_a_slow_start_gives_no_worker(tmp_path: Path) -> None:
    slow = tmp_path / "slow-python"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")  # exec: no grandchild holding its pipes
    slow.chmod(0o755)
    controller = KernelRunController(Heard())
    async with asyncio.timeout(20):
        start = asyncio.ensure_future(
            controller.ensure_worker(WorkerChoice("python", python=str(slow)))
        )
        while not controller.starting:
            await asyncio.sleep(0.01)
        await controller.cancel()
        assert await start is None
    assert controller.client is None


async def test_a_python_that_cannot_run_is_a_worker_error_naming_it() -> None:
    controller = KernelRunController(Heard())
    missing = "/nonexistent/python3"
    try:
        async with asyncio.timeout(20):
            await controller.ensure_worker(WorkerChoice("python", python=missing))
    except WorkerError as exc:
        assert missing in str(exc)
    else:
        raise AssertionError("a missing Python started a worker")
    assert controller.client is None


def test_the_cli_reports_a_worker_that_dies_before_its_hello(tmp_path: Path) -> None:
    broken = tmp_path / "broken-python"
    broken.write_text("#!/bin/sh\necho 'cannot load libtorch' >&2\nexit 7\n")
    broken.chmod(0o755)
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "kernels", "--worker", str(broken), "--kv", "32"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "code 7" in proc.stderr and "cannot load libtorch" in proc.stderr
    assert "Traceback" not in proc.stderr
