"""Worker lifecycle through the asyncio client: hello, a CPU job, cancel, a killed worker,
restart, and a TCP client with a wrong token."""

from __future__ import annotations

import asyncio
import csv
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernels_bridge.client.connection import Closed, KernelClient, WorkerError
from kernels_bridge.protocol import Done, Error, Progress, Result, Run

ROOT = Path(__file__).resolve().parent.parent
TINY = {"gqa": {"kind": "GQA", "layers": 1, "q_heads": 4, "kv_heads": 2, "head_dim": 16}}


def tiny_run(job_id: str, iters: int = 3, kv=(32, 48)) -> Run:
    return Run(
        job_id=job_id,
        variants=["gqa"],
        kv_lens=list(kv),
        dtypes=["fp32"],
        backends=["reference", "torch-sdpa", "triton"],
        warmup=1,
        iters=iters,
        shapes=TINY,
        check=True,
        gpu_profile="H200",
    )


async def collect(client: KernelClient, timeout: float = 60) -> list:
    out = []
    async with asyncio.timeout(timeout):
        async for ev in client.events():
            out.append(ev)
            if isinstance(ev, (Done, Closed)) or (isinstance(ev, Error) and ev.job_id):
                break
    return out


async def test_lifecycle_job_cancel_kill_restart():
    client = KernelClient(sys.executable)
    hello = await client.start()
    assert client.is_running
    assert hello.torch_version and "reference" in hello.backends
    assert hello.default_device in ("cpu", "cuda")
    if not hello.cuda_available:
        assert "triton" in hello.unavailable  # says why (no CUDA, no interpreter)

    # a small CPU job: rows for every backend, errors in rows rather than a dead worker
    await client.run(tiny_run("small"))
    events = await collect(client)
    rows = [e.result_row for e in events if isinstance(e, Result)]
    assert isinstance(events[-1], Done) and not events[-1].cancelled
    assert len(rows) == 6
    ref_rows = [r for r in rows if r.backend == "reference"]
    assert all(r.latency_us and r.latency_us > 0 and not r.error for r in ref_rows)
    assert all(r.device == "cpu" or hello.cuda_available for r in rows)
    assert all(r.roofline_us and r.profile == "H200" for r in rows)
    sdpa = [r for r in rows if r.backend == "torch-sdpa"]
    assert all(r.max_abs_err is not None and r.max_abs_err < 1e-4 for r in sdpa)

    # a bad job: an error message, the worker stays up
    await client.run(Run(job_id="bad", variants=["nope"], kv_lens=[8]))
    events = await collect(client)
    assert isinstance(events[-1], Error) and "unknown variant" in events[-1].message
    assert client.is_running

    # cancel stops a long job within a second
    await client.run(tiny_run("long", iters=100000, kv=(32,)))
    async with asyncio.timeout(30):
        while not isinstance(await client.next_event(), Progress):
            pass  # the worker now times the first row: 100000 launches, unless cancelled
    t0 = time.monotonic()
    await client.cancel("long")
    events = await collect(client, timeout=10)
    assert isinstance(events[-1], Done) and events[-1].cancelled
    assert time.monotonic() - t0 < 1.0

    # killed mid-job: reported with its exit code, then restartable
    await client.run(tiny_run("doomed", iters=100000, kv=(32,)))
    async with asyncio.timeout(30):
        while not isinstance(await client.next_event(), Progress):
            pass  # mid-job now: timing its first row
    assert client.pid is not None
    os.kill(client.pid, signal.SIGKILL)
    events = await collect(client, timeout=15)
    closed = events[-1]
    assert isinstance(closed, Closed) and closed.exit_code == -signal.SIGKILL
    assert not closed.expected
    assert not client.is_running
    await client.shutdown()
    hello2 = await client.start()
    assert hello2.torch_version == hello.torch_version
    await client.shutdown()
    assert not client.is_running


async def test_tcp_wrong_token_is_refused_right_token_works():
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kernels_bridge.worker",
            "--listen",
            "127.0.0.1:0",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT), WORKBENCH_KERNEL_TOKEN="s3cret-of-16-bytes+"),
    )
    try:
        assert proc.stderr is not None
        line = await asyncio.wait_for(asyncio.to_thread(proc.stderr.readline), 30)
        port = int(re.search(r":(\d+)\s*$", line).group(1))
        bad = KernelClient(connect=("127.0.0.1", port), token="wrong")
        with pytest.raises(WorkerError, match="refused"):
            await bad.start()
        await bad.shutdown()
        good = KernelClient(connect=("127.0.0.1", port), token="s3cret-of-16-bytes+")
        hello = await good.start()
        assert hello.torch_version
        await good.run(tiny_run("tcp", kv=(16,)))
        events = await collect(good)
        assert isinstance(events[-1], Done)
        await good.shutdown()
    finally:
        proc.kill()
        proc.wait(timeout=10)


async def test_dead_python_is_reported_not_awaited_forever(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'no worker here' >&2\nexit 3\n")
    fake.chmod(0o755)
    client = KernelClient(str(fake), hello_timeout_s=20)
    with pytest.raises(WorkerError, match="code 3"):
        await client.start()
    assert not client.is_running


def test_cli_reference_run_on_cpu_writes_csv(tmp_path):
    out = tmp_path / "k.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "kernels",
            "--backend",
            "reference",
            "--variant",
            "gqa",
            "--variant",
            "mla",
            "--kv",
            "64,100",
            "--heads",
            "8",
            "--device",
            "cpu",
            "--iters",
            "2",
            "--warmup",
            "0",
            "--csv",
            str(out),
            "--worker",
            sys.executable,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text().splitlines()
    header = lines[0].split(",")
    for col in (
        "variant",
        "backend",
        "device",
        "dtype",
        "batch",
        "kv_len",
        "q_len",
        "latency_us",
        "achieved_gbps",
        "achieved_tflops",
        "kv_bytes_per_token",
        "roofline_us",
        "error",
    ):
        assert col in header
    assert len(lines) == 5
    assert "roofline" in proc.stdout and "mla" in proc.stdout


def test_gpu_decode_script_refuses_cpu_unless_allowed(tmp_path):
    script = ROOT / "benchmarks" / "gpu_decode.py"
    import torch

    if not torch.cuda.is_available():
        proc = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=ROOT
        )
        assert proc.returncode == 2 and "--allow-cpu" in proc.stderr
    proc = subprocess.run(
        [
            sys.executable,
            str(script),
            "--allow-cpu",
            "--tiny",
            "--no-extras",
            "--sets",
            "twin",
            "--variant",
            "gqa",
            "--variant",
            "mla",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    with (tmp_path / "gpu_decode.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # the twins' per-device shapes at two batches and two lengths, on two backends
    assert {r["shape"] for r in rows} == {"gqa:q32:kv4:d128", "mla:q32:kv1:c512+r64"}
    assert len(rows) == 2 * 2 * 2 * 2
    sdpa = [r for r in rows if r["backend"] == "torch-sdpa"]
    assert all(not r["error"] and float(r["rel_err"]) < 1e-4 for r in sdpa)
    triton = [r for r in rows if r["backend"] == "triton"]
    assert all("triton needs a CUDA device" in r["error"] for r in triton)
    md = (tmp_path / "gpu_decode.md").read_text(encoding="utf-8")
    assert "| gqa:q32:kv4:d128 (sim-70b-gqa) | torch-sdpa |" in md
