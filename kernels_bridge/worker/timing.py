"""Timing of one kernel launch (worker side; imports torch).

CUDA: warm-up, then the step is captured in a CUDA graph and replayed, as a serving engine
replays its decode step, so the CPU's launch cost (Triton's Python launcher takes ~100 µs for
a split-K step, measured on an H200, benchmarks/results/gpu_decode.md) does not count; when
capture fails (a host sync inside the step) the launches are timed directly. Per launch an L2
flush (writing a buffer of max(2 × L2, 256 MB)), CUDA events around it, the median of the
launches (docs/attention.md, "How kernels are measured"). CPU: wall clock (perf_counter)
median, labelled "wall-clock".
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

MIN_FLUSH_BYTES = 256 * 10**6


class Cancelled(Exception):
    """The job was cancelled between launches."""


@dataclass
class Timing:
    median_s: float
    samples: int
    method: str  # cuda-events | cuda-graph | wall-clock


_flush_buffers: dict[str, torch.Tensor] = {}


def l2_flush_buffer(device: torch.device, l2_bytes: int | None = None) -> torch.Tensor:
    if l2_bytes is None:
        try:
            l2_bytes = int(torch.cuda.get_device_properties(device).L2_cache_size)
        except (AttributeError, RuntimeError):
            l2_bytes = 60 * 10**6
    size = max(2 * l2_bytes, MIN_FLUSH_BYTES)
    key = str(device)
    buf = _flush_buffers.get(key)
    if buf is None or buf.numel() * 4 < size:
        buf = torch.empty(size // 4, dtype=torch.int32, device=device)
        _flush_buffers[key] = buf
    return buf


WALL_WARMUP_S = 0.3  # the least a wall-clock measurement warms up for, before its first sample
WALL_WARMUP_CALLS = 100  # ... unless this many calls came first


def measure(
    fn: Callable[[], object],
    device: torch.device,
    *,
    warmup: int = 3,
    iters: int = 20,
    cancelled: Callable[[], bool] = lambda: False,
    flush_l2: bool = True,
    cuda_graphs: bool = True,
) -> Timing:
    """Median seconds of fn(); raises Cancelled when `cancelled()` turns true between launches."""
    if device.type == "cuda":
        return _measure_cuda(fn, device, warmup, iters, cancelled, flush_l2, cuda_graphs)
    return _measure_wall(fn, warmup, iters, cancelled)


def _measure_wall(
    fn: Callable[[], object], warmup: int, iters: int, cancelled: Callable[[], bool]
) -> Timing:
    # warm up for a while, not a count: a CPU's first calls of a shape (thread pool, allocator,
    # page faults) ran for ~10 calls, and GQA at 1K once timed 56,055 µs against 8,309 at 4K
    start, calls = time.perf_counter(), 0
    while calls < warmup or (
        calls < WALL_WARMUP_CALLS and time.perf_counter() - start < WALL_WARMUP_S
    ):
        if cancelled():
            raise Cancelled
        fn()
        calls += 1
    samples = []
    for _ in range(iters):
        if cancelled():
            raise Cancelled
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return Timing(statistics.median(samples), len(samples), "wall-clock")


def _measure_cuda(
    fn: Callable[[], object],
    device: torch.device,
    warmup: int,
    iters: int,
    cancelled: Callable[[], bool],
    flush_l2: bool,
    cuda_graphs: bool,
) -> Timing:
    with torch.cuda.device(device):
        flush = l2_flush_buffer(device) if flush_l2 else None
        for _ in range(max(1, warmup)):
            if cancelled():
                raise Cancelled
            fn()
        torch.cuda.synchronize()
        launch: Callable[[], object] = fn
        method = "cuda-events"
        if cuda_graphs:
            try:
                stream = torch.cuda.Stream()
                stream.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(stream):
                    fn()  # warm the side stream (allocator) before capture
                torch.cuda.current_stream().wait_stream(stream)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    fn()
                launch = graph.replay
                method = "cuda-graph"
            except Exception:  # capture can fail (host syncs in the fn): fall back to events
                torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        for i in range(iters):
            if cancelled():
                torch.cuda.synchronize()
                raise Cancelled
            if flush is not None:
                flush.zero_()
            starts[i].record()
            launch()
            ends[i].record()
            if i % 8 == 7:
                ends[i].synchronize()  # keep the queue short so a cancel lands quickly
        torch.cuda.synchronize()
        samples = [s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends, strict=True)]
    return Timing(statistics.median(samples), len(samples), method)
