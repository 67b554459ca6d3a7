"""The GPU sweep's side measurements: machine facts, copy bandwidth, a tuning probe of the
Triton decode kernel, and what NSA/MoBA decode reads against a dense pass (imports torch)."""

from __future__ import annotations

import functools
import platform
import statistics
import subprocess
from typing import Any


def _smi(query: str) -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def environment(torch: Any) -> dict[str, Any]:
    from kernels_bridge.worker.bench import backend_availability

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "machine": platform.machine(),
    }
    try:
        import triton

        env["triton"] = triton.__version__
    except Exception as exc:  # reported, not fatal: the Triton rows say why
        env["triton"] = f"not importable: {type(exc).__name__}"
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        env |= {
            "device": torch.cuda.get_device_name(0),
            "sm_count": props.multi_processor_count,
            "memory_gib": round(props.total_memory / 2**30, 1),
            "l2_mb": round(getattr(props, "L2_cache_size", 0) / 1e6, 1),
            "driver": _smi("driver_version"),
            "clocks": _smi("clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem"),
        }
    kind = "cuda" if torch.cuda.is_available() else "cpu"
    env["backends"] = {b: why or "available" for b, why in backend_availability(kind).items()}
    return env


def _events_median(torch: Any, fn: Any, iters: int) -> float:
    """Median seconds of fn() between CUDA events, after two warm-up calls."""
    fn()
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    return statistics.median(samples)


def copy_bandwidth(torch: Any, dev: Any, tiny: bool = False) -> dict[str, Any]:
    """Device-to-device copy of a 4 GiB buffer, counting bytes read plus written (the ceiling
    a decode kernel's achieved GB/s is compared with)."""
    if dev.type != "cuda":
        return {"note": "no GPU: not measured"}
    n = (64 << 20) if tiny else (4 << 30)
    src = torch.randn(n // 2, device=dev, dtype=torch.float32).to(torch.bfloat16)
    dst = torch.empty_like(src)
    seconds = _events_median(torch, functools.partial(dst.copy_, src), 20)
    moved = 2 * src.numel() * src.element_size()
    return {"bytes": moved, "seconds": seconds, "gbps": moved / seconds / 1e9}


# (block_n, num_warps, num_stages, block_h) tried per shape, after the kernel's defaults
_GQA_TRIES = [(64, 4, 4, None), (128, 4, 3, None), (128, 8, 3, None), (64, 2, 3, None)]
_MLA_TRIES = [
    (32, 8, 1, None),  # the latent defaults before this sweep
    (32, 8, 2, None),
    (64, 4, 2, None),
    (64, 8, 3, None),
    (128, 8, 2, None),
    (32, 4, 3, None),
    (64, 4, 3, None),
    (64, 8, 1, None),
]
# (name, variant, whole-model shape key in specs or a per-device shape, tensor parallel)
_PROBE_SHAPES = [
    ("default-gqa", "gqa", _GQA_TRIES),
    ("default-mla", "mla", _MLA_TRIES),
    ("sim-70b-mla", "mla", _MLA_TRIES),
    ("sim-deepseek-v3", "mla", _MLA_TRIES),
]


def _sizes(sweep: Any) -> tuple[int, tuple[int, ...]]:
    return (2, (64, 96)) if sweep.args.tiny else (128, (16384, 65536))


def probe(sweep: Any, shapes: list[Any]) -> list[dict[str, Any]]:
    """Launch settings of the Triton split-K kernel at batch 128, KV 64K for GQA and three MLA
    per-device shapes: how far the defaults are from the best setting tried."""
    by_name = {n: s for s in shapes for n in s.names}
    out: list[dict[str, Any]] = []
    batch, kvs = _sizes(sweep)
    for name, variant, configs in _PROBE_SHAPES:
        if name not in by_name:
            continue
        shape = by_name[name].shape
        if sweep.args.tiny:
            shape, configs = sweep.tiny(shape), [(16, 4, 2, None)]
        if sweep.left_s() < 15:
            return out
        for entry in _probe_one(sweep, variant, shape, batch, kvs[-1], configs):
            out.append(entry | {"shape": by_name[name].key, "name": name})
    return out


def _probe_one(
    sweep: Any, variant: str, shape: Any, batch: int, kv: int, configs: list[Any]
) -> list[dict[str, Any]]:
    from kernels_bridge.worker import reference
    from kernels_bridge.worker.timing import measure
    from kernels_bridge.worker.triton_kernels import flash_decode

    torch = sweep.torch
    inp = reference.make_inputs(shape, batch, kv, 1, sweep.dtype, sweep.dev, 1)
    kv_bytes = sum(t.numel() * t.element_size() for k, t in inp.tensors.items() if k != "q")
    d_c = shape.latent_dim

    def call(kw: dict[str, int]) -> Any:
        if variant == "gqa":
            return flash_decode(inp.q, inp["k"], inp["v"], inp.scale, **kw)
        lat = inp["latent"]
        return flash_decode(
            inp.q, lat[..., :d_c], None, inp.scale, k2=lat[..., d_c:], v_is_k1=True, **kw
        )

    ref = call({}).float()
    out: list[dict[str, Any]] = []
    for cfg in [None, *configs]:
        if sweep.left_s() < 10:
            break
        kw = {} if cfg is None else {"block_n": cfg[0], "num_warps": cfg[1], "num_stages": cfg[2]}
        if cfg is not None and cfg[3] is not None:
            kw["block_h"] = cfg[3]
        entry: dict[str, Any] = {"variant": variant, "kv_len": kv, "batch": batch}
        entry["config"] = "default" if cfg is None else kw
        try:
            got = call(kw).float()
            err = torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref)
            entry["rel_err_vs_default"] = err.item()
            t = measure(functools.partial(call, kw), sweep.dev, warmup=2, iters=10)
            entry["latency_us"] = t.median_s * 1e6
            entry["kv_gbps"] = kv_bytes / t.median_s / 1e9
        except Exception as exc:  # a setting the compiler refuses is a finding, not a stop
            entry["error"] = f"{type(exc).__name__}: {exc}"[:200]
        out.append(entry)
        print(f"probe {entry}", flush=True)
    if sweep.on_gpu:
        torch.cuda.empty_cache()
    return out


def sparse_fractions(sweep: Any, shapes: list[Any]) -> list[dict[str, Any]]:
    """NSA and MoBA at batch 128: the decode's time over a dense pass over the same K/V (the
    fraction of KV it effectively reads), beside the analytic model's fraction of KV bytes."""
    out: list[dict[str, Any]] = []
    batch, kvs = _sizes(sweep)
    for entry in shapes:
        if entry.shape.kind not in ("NSA", "MoBA"):
            continue
        shape = sweep.tiny(entry.shape) if sweep.args.tiny else entry.shape
        for kv in kvs:
            if sweep.left_s() < 15:
                return out
            item = _sparse_one(sweep, shape, batch, kv)
            item["shape"] = entry.key
            out.append(item)
            print(f"sparse {item}", flush=True)
    return out


def _sparse_one(sweep: Any, shape: Any, batch: int, kv: int) -> dict[str, Any]:
    import dataclasses

    from kernels_bridge.variants import decode_kv_bytes_read
    from kernels_bridge.worker import reference, triton_kernels
    from kernels_bridge.worker.timing import measure

    inp = reference.make_inputs(shape, batch, kv, 1, sweep.dtype, sweep.dev, 2)
    sparse = measure(functools.partial(triton_kernels.decode, inp), sweep.dev, warmup=2, iters=10)
    dense_call = functools.partial(
        triton_kernels.flash_decode, inp.q, inp["k"], inp["v"], inp.scale
    )
    dense = measure(dense_call, sweep.dev, warmup=2, iters=10)
    kernels = measure(_sparse_kernels(inp), sweep.dev, warmup=2, iters=10)
    dense_shape = dataclasses.replace(shape, kind="GQA")
    predicted = decode_kv_bytes_read(shape, kv, layers=1) / decode_kv_bytes_read(
        dense_shape, kv, layers=1
    )
    if sweep.on_gpu:
        sweep.torch.cuda.empty_cache()
    return {
        "kv_len": kv,
        "batch": batch,
        "sparse_us": sparse.median_s * 1e6,
        "dense_us": dense.median_s * 1e6,
        "kernels_us": kernels.median_s * 1e6,
        "time_fraction": sparse.median_s / dense.median_s,
        "kernels_fraction": kernels.median_s / dense.median_s,
        "predicted_fraction": predicted,
    }


def _sparse_kernels(inp: Any) -> Any:
    """The sparse step's attention kernels alone, with its block selection made beforehand:
    what it reads of the cache, without the selection's own small torch operations."""
    from kernels_bridge.worker.reference import moba_select_blocks, nsa_select_blocks
    from kernels_bridge.worker.triton_kernels import flash_decode, sparse_decode

    shape, q, pos = inp.shape, inp.q, inp.kv_len - 1
    k, v = inp["k"], inp["v"]
    if shape.kind == "MoBA":
        blocks = moba_select_blocks(q[:, 0], inp["pooled"], shape, pos)
        return functools.partial(sparse_decode, q, k, v, blocks, shape.moba_block, inp.scale)
    blocks = nsa_select_blocks(q[:, 0], inp["k_cmp"], shape, pos, inp.scale)
    start = max(0, inp.kv_len - shape.nsa_window)

    def three_branches() -> Any:
        flash_decode(q, inp["k_cmp"], inp["v_cmp"], inp.scale)
        sparse_decode(q, k, v, blocks, shape.nsa_select_block, inp.scale)
        return flash_decode(q, k, v, inp.scale, kv_start=start)

    return three_branches


def compiled_kernels() -> list[dict[str, Any]]:
    """Registers, spills and shared memory of each Triton kernel compiled in this process (the
    compiler's own report; empty when this Triton keeps its cache elsewhere)."""
    import importlib

    # the package exports a function named `decode`: fetch the module of that name
    kernels = importlib.import_module("kernels_bridge.worker.triton_kernels.decode")

    out: list[dict[str, Any]] = []
    for name in ("_split_kernel", "_sparse_kernel", "_combine_kernel"):
        fn = getattr(kernels, name)
        caches = getattr(fn, "device_caches", {}) or {}
        for cache in caches.values():
            table = cache[0] if isinstance(cache, tuple) else cache
            for compiled in getattr(table, "values", lambda: [])():
                meta = getattr(compiled, "metadata", None)
                out.append(
                    {
                        "kernel": name,
                        "n_regs": getattr(compiled, "n_regs", None),
                        "n_spills": getattr(compiled, "n_spills", None),
                        "shared": getattr(meta, "shared", None),
                        "num_warps": getattr(meta, "num_warps", None),
                        "num_stages": getattr(meta, "num_stages", None),
                        "constants": str(getattr(meta, "constants", ""))[:300],
                    }
                )
    return out
