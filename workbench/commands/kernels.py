"""`workbench kernels`: a headless decode-kernel sweep through the kernel worker (table + CSV).

torch is never imported here: the sweep runs in `python -m kernels_bridge.worker`, spawned with
--worker PYTHON (or an auto-detected one) or reached with --connect HOST:PORT, the token from
$WORKBENCH_KERNEL_TOKEN or --token-file (never the command line, where `ps` shows it).
`--analytic` prints the roofline of each combination for a --gpu profile, with no worker.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from pathlib import Path

from kernels_bridge.client.jobs import build_run, target_device, write_rows_csv
from kernels_bridge.client.launcher import WorkerError
from kernels_bridge.client.run_controller import (
    CANCELLED,
    FAILED,
    KernelRunController,
    WorkerChoice,
    WorkerCrash,
)
from kernels_bridge.protocol import Hello, ResultRow
from kernels_bridge.specs import VARIANTS, canonical_dtype, shape_for, shape_to_dict, with_q_heads
from workbench.commands.common import fail, gpu_profile, int_in, parse_int_list

_MAX_COUNT = 1_000_000  # any kernel count flag beyond this is a typo


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "kernels",
        help="benchmark decode-attention kernels per variant (GPU, or CPU reference)",
        description="Sweep decode-attention kernels over variants × KV lengths on a local GPU "
        "(or the CPU reference), print a table with the analytic roofline and write a CSV.",
    )
    _add_sweep_flags(p)
    _add_output_and_worker_flags(p)
    p.set_defaults(func=run)


def _add_sweep_flags(p: argparse.ArgumentParser) -> None:
    """What to measure: backends, variants, shapes, dtype and launch counts."""
    p.add_argument(
        "--backend",
        action="append",
        default=None,
        metavar="NAME",
        help="reference, triton, torch-sdpa, flash-attn, flashinfer, flashmla "
        "(repeatable; default reference)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=None,
        choices=VARIANTS,
        help="attention variant (repeatable; default gqa)",
    )
    p.add_argument(
        "--kv",
        type=parse_int_list,
        default=None,
        metavar="N[,N…]",
        help="KV lengths, e.g. 1K,4K,16K (default 4K,16K; 1K,4K on CPU)",
    )
    p.add_argument(
        "--batch",
        type=int_in(1, _MAX_COUNT, "batch"),
        default=None,
        help="sequences per step (default 128 on a GPU, 1 on the CPU)",
    )
    p.add_argument(
        "--q-len",
        type=int_in(1, _MAX_COUNT, "q-len"),
        default=1,
        help="query tokens per step (default 1)",
    )
    p.add_argument(
        "--dtype", default=None, help="bf16, fp16 or fp32 (default bf16 on a GPU, fp32 on the CPU)"
    )
    p.add_argument(
        "--heads",
        type=int_in(1, _MAX_COUNT, "heads"),
        default=None,
        help="override the q-head count",
    )
    p.add_argument(
        "--iters", type=int_in(1, _MAX_COUNT, "iters"), default=None, help="timed launches per row"
    )
    p.add_argument(
        "--warmup",
        type=int_in(0, _MAX_COUNT, "warmup"),
        default=None,
        help="warm-up launches per row",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="compare every backend with the reference (max_abs_err column)",
    )


def _add_output_and_worker_flags(p: argparse.ArgumentParser) -> None:
    """Where rows go, the roofline's profile, and which worker runs the sweep."""
    p.add_argument("--csv", type=Path, default=None, metavar="PATH", help="write rows here")
    p.add_argument(
        "--gpu",
        type=gpu_profile,
        default="H200",
        help="hardware profile for the roofline when the device has none, and for "
        "--analytic (H100, H200, H800, A100, RTX4090)",
    )
    p.add_argument(
        "--analytic", action="store_true", help="print roofline numbers only; no worker, no torch"
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--worker", metavar="PYTHON", help="Python interpreter that runs the worker")
    where.add_argument("--connect", metavar="HOST:PORT", help="a worker started with --listen")
    p.add_argument(
        "--token-file",
        metavar="PATH",
        help="file holding the worker's token, for --connect (else $WORKBENCH_KERNEL_TOKEN)",
    )
    p.add_argument("--token", help=argparse.SUPPRESS)  # refused: argv is visible in `ps`
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N")


EXIT_SOME_FAILED = 3  # the sweep finished but some rows carry an error


def _worker_problem(worker: str) -> str | None:
    """Why --worker cannot be run, in words; None when it names an executable file."""
    found = shutil.which(worker) if os.sep not in worker else worker
    path = Path(found or worker).expanduser()
    if not path.is_file():
        return (
            f"--worker {worker}: no such file; give the path to a Python that has torch, "
            f"e.g. --worker ~/venvs/torch/bin/python"
        )
    if not os.access(path, os.X_OK):
        return f"--worker {worker}: the file is not executable (chmod +x, or pick another)"
    return None


def _shapes(args: argparse.Namespace, variants: list[str]) -> dict[str, dict[str, object]]:
    if args.heads is None:
        return {}
    return {v: shape_to_dict(with_q_heads(shape_for(v), args.heads)) for v in variants}


def run(args: argparse.Namespace) -> int:
    variants = args.variant or ["gqa"]
    backends = args.backend or ["reference"]
    try:
        dtype = canonical_dtype(args.dtype) if args.dtype else None
        shapes = _shapes(args, variants)
    except ValueError as exc:
        fail(str(exc))
        return 2
    if args.analytic:
        return _analytic(args, variants, shapes, dtype or "bf16")
    return asyncio.run(_sweep(args, variants, backends, shapes, dtype))


def _analytic(
    args: argparse.Namespace,
    variants: list[str],
    shapes: dict[str, dict[str, object]],
    dtype: str,
) -> int:
    from kernels_bridge.analytic import get_profile
    from kernels_bridge.bench_rows import analytic_row

    try:
        profile = get_profile(args.gpu)
    except ValueError as exc:
        fail(str(exc))
        return 2
    rows = [
        analytic_row(v, dtype, args.batch or 128, kv, args.q_len, profile, shapes)
        for v in variants
        for kv in (args.kv or [1024, 4096, 16384, 65536])
    ]
    print(
        f"analytic roofline on {profile.name} ({profile.mem_bandwidth_tbs} TB/s, "
        f"{profile.peak_bf16_tflops} TFLOP/s bf16), one layer"
    )
    print(
        f"{'variant':<6} {'batch':>5} {'kv':>7} {'KV B/tok':>9} {'MB read':>9} "
        f"{'GFLOP':>9} {'roofline µs':>12} {'bound':>7}"
    )
    for r in rows:
        bound = (
            "memory"
            if r.bytes / profile.mem_bandwidth_tbs >= r.flops / (profile.peak_bf16_tflops * 1e3)
            else "compute"
        )
        print(
            f"{r.variant:<6} {r.batch:>5} {r.kv_len:>7} {r.kv_bytes_per_token:>9} "
            f"{r.bytes / 1e6:>9.2f} {r.flops / 1e9:>9.2f} {r.roofline_us or 0:>12.2f} "
            f"{bound:>7}"
        )
    if args.csv:
        write_csv(args.csv, rows)
        print(f"wrote {len(rows)} rows to {args.csv}")
    return 0


def write_csv(path: Path, rows: list[ResultRow]) -> None:
    write_rows_csv(path, rows)


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def print_row(r: ResultRow) -> None:
    pct = "-" if r.frac_peak_bw is None else f"{100 * r.frac_peak_bw:.0f}%"
    line = (
        f"{r.variant:<5} {r.backend:<11} {r.dtype:<5} {r.batch:>5} {r.kv_len:>7} {r.q_len:>3} "
        f"{_fmt(r.latency_us, '.1f'):>11} {_fmt(r.achieved_gbps, '.1f'):>9} "
        f"{_fmt(r.achieved_tflops, '.2f'):>8} {pct:>6} {_fmt(r.roofline_us, '.2f'):>11}"
    )
    if r.error:
        line += f"  {r.error}"
    print(line, flush=True)


def _connect_token(args: argparse.Namespace) -> str | None:
    """The worker's token from --token-file or the environment; None after saying why not."""
    from kernels_bridge.protocol import TOKEN_ENV, read_token_file

    if args.token is not None:
        fail(
            "--token is gone: a token on the command line shows in `ps` to every user of this "
            f"machine. Set ${TOKEN_ENV}, or put it in a file (chmod 600) and pass --token-file"
        )
        return None
    if args.token_file:
        try:
            return read_token_file(args.token_file)
        except ValueError as exc:
            fail(str(exc))
            return None
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        fail(f"--connect needs the worker's token: set ${TOKEN_ENV} or pass --token-file PATH")
        return None
    return token


class _PrintingListener:
    """What the worker says, as the terminal shows it: rows on stdout, trouble on stderr."""

    def __init__(self) -> None:
        self.rows: list[ResultRow] = []
        self.errors = 0
        self.crash: WorkerCrash | None = None

    def worker_starting(self) -> None:
        pass  # the hello is described once it comes

    def worker_stopped(self) -> None:
        pass  # only this command stops it, at its end

    def worker_crashed(self, crash: WorkerCrash) -> None:
        self.crash = crash
        fail(f"the worker exited (code {crash.exit_code}): {crash.stderr_tail}")

    def worker_error(self, message: str) -> None:
        self.errors += 1
        fail(message)

    def job_progress(self, done: int, total: int, message: str) -> None:
        pass  # each row is printed as it comes

    def job_row(self, row: ResultRow) -> None:
        self.rows.append(row)
        print_row(row)


def _worker_choice(args: argparse.Namespace) -> WorkerChoice | None:
    """The worker the flags ask for; None after saying what is wrong with them."""
    if args.connect:
        host, _, port = args.connect.rpartition(":")
        if not port.isdigit():
            fail(f"--connect expects HOST:PORT, got {args.connect!r}")
            return None
        token = _connect_token(args)
        if token is None:
            return None
        return WorkerChoice("connect", connect=(host or "127.0.0.1", int(port)), token=token)
    if args.worker is not None:
        problem = _worker_problem(args.worker)
        if problem:
            fail(problem)
            return None
        return WorkerChoice("python", python=args.worker)
    return WorkerChoice("auto")


async def _sweep(
    args: argparse.Namespace,
    variants: list[str],
    backends: list[str],
    shapes: dict[str, dict[str, object]],
    dtype: str | None,
) -> int:
    choice = _worker_choice(args)
    if choice is None:
        return 2
    listener = _PrintingListener()
    controller = KernelRunController(listener)
    try:
        hello = await controller.ensure_worker(choice)
        assert hello is not None  # nothing here cancels the start
        return await _drive(args, controller, hello, variants, backends, shapes, dtype)
    except WorkerError as exc:
        fail(f"kernel worker: {exc}")
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("interrupted: cancelling", file=sys.stderr)
        return 130
    finally:
        await controller.aclose(timeout_s=5.0)
        if args.csv and listener.rows:
            write_csv(args.csv, listener.rows)
            print(f"wrote {len(listener.rows)} rows to {args.csv}")


def _describe_worker(hello: Hello, backends: list[str]) -> None:
    devs = ", ".join(d.get("name", "?") for d in hello.devices)
    print(
        f"worker: torch {hello.torch_version}, triton {hello.triton_version}; devices: {devs}; "
        f"backends: {', '.join(hello.backends) or 'none'}",
        file=sys.stderr,
    )
    for b, why in hello.unavailable.items():
        if b in backends:
            print(f"  {b}: {why}", file=sys.stderr)
    for note in hello.notes:
        print(f"  note: {note}", file=sys.stderr)


async def _drive(
    args: argparse.Namespace,
    controller: KernelRunController,
    hello: Hello,
    variants: list[str],
    backends: list[str],
    shapes: dict[str, dict[str, object]],
    dtype: str | None,
) -> int:
    device = target_device(hello, args.device)
    on_cpu = device == "cpu"
    _describe_worker(hello, backends)
    if hello.torch_version is None:
        fail("the worker's Python has no torch; pass --worker PATH to one that has it")
        return 1
    job = build_run(
        variants,
        backends,
        on_cpu=on_cpu,
        kv_lens=args.kv,
        batch=args.batch,
        q_len=args.q_len,
        dtype=dtype,
        warmup=args.warmup,
        iters=args.iters,
        device=args.device,
        shapes=shapes,
        check=args.check,
        gpu_profile=args.gpu,
    )
    label = "CPU (wall clock)" if on_cpu else device
    print(
        f"{job.combos()} rows on {label}; roofline column: "
        f"{'the device profile' if not on_cpu else args.gpu + ' (analytic)'}"
    )
    print(
        f"{'var':<5} {'backend':<11} {'dtype':<5} {'batch':>5} {'kv':>7} {'q':>3} "
        f"{'latency µs':>11} {'GB/s':>9} {'TFLOP/s':>8} {'%BW':>6} {'roofline µs':>11}"
    )
    outcome = await controller.run(job)
    listener = controller.listener
    assert isinstance(listener, _PrintingListener)
    if outcome == CANCELLED:
        return 130
    if outcome == FAILED or listener.errors:
        return 1
    rows = listener.rows
    failed = sum(1 for r in rows if r.error)
    if failed:
        fail(f"{failed} of {len(rows)} row(s) failed (see the error column)")
        return EXIT_SOME_FAILED
    return 0
