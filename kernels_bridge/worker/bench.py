"""Running a Run message in the worker: inputs, backends, timing, result rows (imports torch).

Backends: `reference` (worker/reference.py), `triton` (worker/triton_kernels/), `torch-sdpa`,
`flash-attn`, `flashinfer`, `flashmla` (worker/adapters/). A backend that cannot run a
combination gives a row whose `error` says why; the sweep goes on.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from typing import Any

import torch

from kernels_bridge.analytic import HardwareProfile, get_profile, profile_for_device
from kernels_bridge.bench_names import BACKENDS
from kernels_bridge.bench_rows import analytic_row
from kernels_bridge.protocol import Done, Message, Progress, Result, ResultRow, Run
from kernels_bridge.specs import DTYPES, canonical_dtype, canonical_variant, shape_for
from kernels_bridge.variants import AttentionShape
from kernels_bridge.worker import reference
from kernels_bridge.worker.timing import Cancelled, measure


def _triton_availability(device_kind: str) -> str | None:
    try:
        import triton  # noqa: F401
    except Exception as exc:
        return f"triton is not importable ({type(exc).__name__}: {exc})"[:300]
    if device_kind == "cuda":
        return None
    if os.environ.get("TRITON_INTERPRET") == "1":
        return None
    return "triton needs a CUDA device (or TRITON_INTERPRET=1 for its CPU interpreter)"


def backend_availability(device_kind: str) -> dict[str, str | None]:
    """backend -> None when usable on this device kind, else the reason it is not."""
    from kernels_bridge.worker.adapters import external, sdpa

    return {
        "reference": None,
        "triton": _triton_availability(device_kind),
        "torch-sdpa": sdpa.availability(device_kind),
        "flash-attn": external.flash_attn_availability(device_kind),
        "flashinfer": external.flashinfer_availability(device_kind),
        "flashmla": external.flashmla_availability(device_kind),
    }


def prepare(backend: str, inp: reference.DecodeInputs) -> Callable[[], torch.Tensor]:
    """A zero-argument launch of one decode step on `backend`."""
    if backend == "reference":
        return lambda: reference.decode(inp)
    if backend == "triton":
        from kernels_bridge.worker import triton_kernels

        if inp.shape.kind in ("NSA", "MoBA") and inp.q_len != 1:
            raise NotImplementedError(f"triton {inp.shape.kind} decodes q_len 1 only")
        if inp.q.device.type == "cpu" and inp.q.dtype == torch.bfloat16:
            raise NotImplementedError("the Triton CPU interpreter has no bf16")
        return lambda: triton_kernels.decode(inp)
    from kernels_bridge.worker.adapters import external, sdpa

    table: dict[str, Callable[[reference.DecodeInputs], Callable[[], torch.Tensor]]] = {
        "torch-sdpa": sdpa.prepare,
        "flash-attn": external.flash_attn_prepare,
        "flashinfer": external.flashinfer_prepare,
        "flashmla": external.flashmla_prepare,
    }
    if backend not in table:
        raise ValueError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    return table[backend](inp)


def resolve_device(name: str) -> torch.device:
    if name in ("", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(name)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("CUDA was asked for but torch sees no CUDA device")
    return dev


def device_label(dev: torch.device) -> str:
    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    return "cpu"


def _short_error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    return text[:300]


def fill_metrics(
    row: ResultRow, seconds: float | None, device_profile: HardwareProfile | None
) -> None:
    """latency, achieved GB/s and TFLOP/s (decimal), fractions of the device's peak."""
    if seconds is None or seconds <= 0:
        return
    row.latency_us = seconds * 1e6
    row.achieved_gbps = row.bytes / seconds / 1e9
    row.achieved_tflops = row.flops / seconds / 1e12
    if device_profile is not None:
        row.frac_peak_bw = row.achieved_gbps / (device_profile.mem_bandwidth_tbs * 1e3)
        row.frac_peak_tflops = row.achieved_tflops / device_profile.peak_bf16_tflops


def base_row(
    variant: str,
    backend: str,
    device: str,
    dtype: str,
    batch: int,
    kv_len: int,
    q_len: int,
    roofline_profile: HardwareProfile | None,
    shapes: dict[str, dict[str, Any]] | None = None,
) -> ResultRow:
    """A row with the analytic columns filled (bytes, FLOPs, KV bytes/token, roofline)."""
    return analytic_row(
        variant, dtype, batch, kv_len, q_len, roofline_profile, shapes, backend, device
    )


def run_job(run: Run, emit: Callable[[Message], None], cancelled: Callable[[], bool]) -> Done:
    """Execute a validated Run, emitting Progress and Result messages; returns the Done."""
    t0 = time.monotonic()
    dev = resolve_device(run.device)
    label = device_label(dev)
    dev_profile = profile_for_device(label) if dev.type == "cuda" else None
    roof_profile = dev_profile
    if roof_profile is None and run.gpu_profile:
        roof_profile = get_profile(run.gpu_profile)
    avail = backend_availability(dev.type)
    total = run.combos()
    done = 0
    rows = 0
    free_bytes = torch.cuda.mem_get_info(dev)[0] if dev.type == "cuda" else None

    def progress(message: str) -> None:
        emit(Progress(run.job_id, done, total, message))

    try:
        for variant in run.variants:
            v = canonical_variant(variant)
            shape = shape_for(v, run.shapes)
            for dtype_name in run.dtypes:
                dtype = canonical_dtype(dtype_name)
                for batch in run.batches:
                    for kv_len in run.kv_lens:
                        for q_len in run.q_lens:
                            inp, setup_error = _make_inputs(
                                shape, (batch, kv_len, q_len), dtype, dev, run.seed, free_bytes
                            )
                            expected = None
                            if run.check and inp is not None:
                                expected = reference.decode(inp).float()
                            for backend in run.backends:
                                if cancelled():
                                    raise Cancelled
                                row = base_row(
                                    v,
                                    backend,
                                    label,
                                    dtype,
                                    batch,
                                    kv_len,
                                    q_len,
                                    roof_profile,
                                    run.shapes,
                                )
                                progress(
                                    f"{v} {backend} {dtype} batch {batch} kv {kv_len} q {q_len}"
                                )
                                why = avail.get(backend, f"unknown backend {backend!r}")
                                if setup_error:
                                    row.error = setup_error
                                elif why is not None:
                                    row.error = f"unavailable: {why}"
                                else:
                                    assert inp is not None
                                    _time_row(
                                        row,
                                        backend,
                                        inp,
                                        run,
                                        dev,
                                        dev_profile,
                                        cancelled,
                                        expected,
                                    )
                                done += 1
                                rows += 1
                                emit(Result(run.job_id, row.to_dict()))
                            del inp, expected
                            if dev.type == "cuda":
                                gc.collect()
                                torch.cuda.empty_cache()
    except Cancelled:
        return Done(run.job_id, rows, True, time.monotonic() - t0)
    progress("done")
    return Done(run.job_id, rows, False, time.monotonic() - t0)


def _make_inputs(
    shape: AttentionShape,
    sizes: tuple[int, int, int],
    dtype: str,
    dev: torch.device,
    seed: int,
    free_bytes: int | None,
) -> tuple[reference.DecodeInputs | None, str]:
    """One combination's inputs, or None and why not: skipped when they would take over 60%
    of the free GPU memory (the backends need room besides), or the error making them raised."""
    batch, kv_len, q_len = sizes
    need = reference.estimate_input_bytes(shape, batch, kv_len, DTYPES[dtype])
    if free_bytes is not None and need > 0.6 * free_bytes:
        return None, f"skipped: inputs need {need / 1e9:.1f} GB of {free_bytes / 1e9:.1f} GB free"
    try:
        return reference.make_inputs(shape, batch, kv_len, q_len, dtype, dev, seed), ""
    except Exception as exc:
        return None, _short_error(exc)


def _time_row(
    row: ResultRow,
    backend: str,
    inp: reference.DecodeInputs,
    run: Run,
    dev: torch.device,
    dev_profile: HardwareProfile | None,
    cancelled: Callable[[], bool],
    expected: torch.Tensor | None,
) -> None:
    try:
        fn = prepare(backend, inp)
        if expected is not None:
            diff = fn().float() - expected
            row.max_abs_err = float(diff.abs().max().item())
            ref = float(torch.linalg.vector_norm(expected).item())
            row.rel_err = float(torch.linalg.vector_norm(diff).item()) / (ref or 1.0)
        timing = measure(
            fn,
            dev,
            warmup=run.warmup,
            iters=run.iters,
            cancelled=cancelled,
            flush_l2=run.flush_l2,
            cuda_graphs=run.cuda_graphs,
        )
    except Cancelled:
        raise
    except NotImplementedError as exc:
        row.error = f"unsupported: {exc}"
        return
    except Exception as exc:
        row.error = _short_error(exc)
        if dev.type == "cuda" and isinstance(exc, torch.cuda.OutOfMemoryError):
            torch.cuda.empty_cache()
        return
    row.timing = timing.method
    fill_metrics(row, timing.median_s, dev_profile)
