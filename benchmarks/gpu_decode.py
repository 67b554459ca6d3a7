"""Decode-attention sweep on one GPU: every variant's per-device shapes × batch {128, 1} × KV
1K–64K, bf16, on Triton and torch SDPA, each checked against the reference. Writes into --out:
gpu_decode.csv (the kernel CSV, one row per shape × batch × KV × backend), gpu_decode.json
(machine, versions, measured copy bandwidth, tuning probe, sparse read fractions, goals) and
gpu_decode.md (the summary). Stops itself when --budget-s runs out, keeping every finished row.

    python benchmarks/gpu_decode.py --out DIR                 # on a GPU machine (~3-5 min, H200)
    python benchmarks/gpu_decode.py --allow-cpu --tiny --out DIR   # smoke run on the CPU
    python benchmarks/gpu_decode.py --write-shapes   # refresh the shape list (needs the app)

Shapes (kernels_bridge/shape_sets.py): the 70B twins at tensor parallel 2 in all eight
variants, the default shapes of `workbench kernels`, and every simulated model of the catalog
at its own deployment. The catalog is read where the app is installed (--write-shapes writes
benchmarks/gpu_decode_shapes.json); a GPU machine reads that file, so it needs only torch and
triton. Correctness: ‖out − ref‖ / ‖ref‖ against the reference (fp32 on upcast inputs up to
2 GB, the reference's own bf16-matmul path beyond); above 2e-2, or NaN, the row is an error.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _checkout_resources() -> None:
    """Make `workbench._resources` importable from a bare checkout (a GPU machine where the app
    is not installed: pyproject maps resources/ to that name only in an install)."""
    import importlib.util

    try:
        import workbench._resources  # noqa: F401
    except ModuleNotFoundError:
        init = ROOT / "resources" / "__init__.py"
        spec = importlib.util.spec_from_file_location(
            "workbench._resources", init, submodule_search_locations=[str(init.parent)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["workbench._resources"] = module
        spec.loader.exec_module(module)


_checkout_resources()
SHAPES_FILE = Path(__file__).resolve().parent / "gpu_decode_shapes.json"
KV = [1024, 4096, 16384, 65536]
BATCHES = [128, 1]
BACKENDS = ["triton", "torch-sdpa"]
REL_ERR_LIMIT = 2e-2
FP32_CHECK_BYTES = 2 * 10**9


def iters_for(kv_len: int, batch: int) -> tuple[int, int]:
    if kv_len <= 4096 or batch == 1:
        return 3, 30
    if kv_len <= 16384:
        return 2, 15
    return 2, 8


def load_shapes(sets: list[str]) -> list[Any]:
    from kernels_bridge.shape_sets import SweepShape, default_set, merged, twin_set

    chosen = []
    for name in sets:
        if name == "twin":
            chosen.append(twin_set())
        elif name == "default":
            chosen.append(default_set())
        elif name == "model":
            data = json.loads(SHAPES_FILE.read_text(encoding="utf-8"))
            chosen.append([SweepShape.from_dict(d) for d in data["model"]])
        else:
            raise SystemExit(f"unknown shape set {name!r}; expected twin, default, model")
    return merged(*chosen)


def write_shapes() -> int:
    from workbench.local.kernel_preset import model_sweep_shapes

    data = {
        "about": "benchmarks/gpu_decode.py --write-shapes: each simulated model's per-device "
        "attention shape, from resources/models.toml",
        "model": [s.to_dict() for s in model_sweep_shapes()],
    }
    SHAPES_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(data['model'])} shapes to {SHAPES_FILE}")
    return 0


def tiny(shape: Any) -> Any:
    """A CPU-sized stand-in with the same kind and grouping (smoke runs)."""
    import dataclasses

    kv = 4 if shape.kind == "MHA" else min(shape.kv_heads, 2)
    q = 4 if shape.kind == "MHA" else kv * min(4, shape.q_heads // shape.kv_heads)
    return dataclasses.replace(
        shape,
        q_heads=q,
        kv_heads=kv,
        head_dim=16,
        latent_dim=32 if shape.latent_dim else 0,
        rope_dim=8,
        nsa_select_block=16,
        nsa_window=32,
        moba_block=16,
    )


class ContextLost(Exception):
    """A kernel faulted: nothing more can run in this process."""


class Sweep:
    """The measuring loop: one combination at a time, each row written as it finishes."""

    def __init__(self, args: argparse.Namespace, torch: Any) -> None:
        from kernels_bridge.analytic import get_profile, profile_for_device

        self.args, self.torch = args, torch
        self.on_gpu = torch.cuda.is_available()
        self.dev = torch.device("cuda" if self.on_gpu else "cpu")
        self.device = torch.cuda.get_device_name(0) if self.on_gpu else "cpu"
        # the device's own profile gives %-of-peak; a CPU smoke run keeps the H200 roofline
        self.profile = profile_for_device(self.device) if self.on_gpu else None
        self.roof = self.profile or get_profile("H200")
        self.dtype = "fp32" if args.tiny else "bf16"
        self.t0 = time.monotonic()
        self.rows: list[Any] = []
        self.stopped = ""
        self.tiny = tiny
        from kernels_bridge.worker.bench import backend_availability

        self.avail = backend_availability(self.dev.type)
        self.lost = False

    def left_s(self) -> float:
        return self.args.budget_s - (time.monotonic() - self.t0)

    def run(self, shapes: list[Any], out_csv: Path) -> None:
        from kernels_bridge.protocol import RESULT_COLUMNS

        kv_lens = [64, 96] if self.args.tiny else KV
        batches = [1, 2] if self.args.tiny else BATCHES
        with out_csv.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(RESULT_COLUMNS)
            for entry in shapes:
                for batch in batches:
                    for kv in kv_lens:
                        if self.left_s() < self.args.reserve_s:
                            self.stopped = f"budget reached before {entry.key} b{batch} kv{kv}"
                            return
                        try:
                            rows = self.combination(entry, batch, kv)
                        except ContextLost as exc:
                            self.stopped = (
                                f"CUDA context lost at {entry.key} b{batch} kv{kv}: {exc}"
                            )
                            self.lost = True
                            return
                        for row in rows:
                            self.rows.append(row)
                            writer.writerow(row.csv_values())
                            f.flush()

    def combination(self, entry: Any, batch: int, kv: int) -> list[Any]:
        from kernels_bridge.specs import shape_to_dict
        from kernels_bridge.worker.bench import _make_inputs, base_row

        torch = self.torch
        shape = self.tiny(entry.shape) if self.args.tiny else entry.shape
        shapes = {entry.variant: shape_to_dict(shape)}
        free = torch.cuda.mem_get_info()[0] if self.on_gpu else None
        inp, why = _make_inputs(shape, (batch, kv, 1), self.dtype, self.dev, 0, free)
        expected = None if inp is None else self.expected(inp)
        rows = []
        for backend in BACKENDS:
            row = base_row(
                entry.variant, backend, self.device, self.dtype, batch, kv, 1, self.roof, shapes
            )
            row.shape = entry.key
            unavailable = self.avail.get(backend)
            if inp is None:
                row.error = why
            elif unavailable is not None:
                row.error = f"unavailable: {unavailable}"
            else:
                self.measure(row, backend, inp, expected)
            rows.append(row)
            lat = "-" if row.latency_us is None else f"{row.latency_us:9.1f} µs"
            bw = "" if row.achieved_gbps is None else f"{row.achieved_gbps:6.0f} GB/s"
            err = "" if row.rel_err is None else f"err {row.rel_err:.1e}"
            print(
                f"{entry.key:38} {backend:10} b{batch:<3} kv{kv:<6} {lat} {bw} {err} "
                f"{row.error[:60]}",
                flush=True,
            )
        del inp, expected
        if self.on_gpu:
            torch.cuda.empty_cache()
        return rows

    def expected(self, inp: Any) -> Any:
        """The reference output in fp32: on upcast inputs when they are small enough."""
        from kernels_bridge.worker import reference

        # sparse kinds choose blocks discretely: an fp32 reference can choose other blocks
        # than the bf16 step on near-ties, so they are checked on the same inputs
        if inp.nbytes() <= FP32_CHECK_BYTES and inp.shape.kind not in ("NSA", "MoBA"):
            up = reference.DecodeInputs(
                inp.shape,
                inp.batch,
                inp.kv_len,
                inp.q_len,
                inp.scale,
                {k: v.float() for k, v in inp.tensors.items()},
            )
            return reference.decode(up).float()
        return reference.decode(inp).float()

    def measure(self, row: Any, backend: str, inp: Any, expected: Any) -> None:
        from kernels_bridge.worker.bench import _short_error, fill_metrics, prepare
        from kernels_bridge.worker.timing import measure

        torch = self.torch
        try:
            fn = prepare(backend, inp)
            got = fn().float()
            diff = torch.linalg.vector_norm(got - expected).item()
            ref = torch.linalg.vector_norm(expected).item()
            row.rel_err = diff / ref if ref > 0 else diff
            row.max_abs_err = (got - expected).abs().max().item()
            if not row.rel_err < REL_ERR_LIMIT:  # NaN fails too
                row.error = f"wrong result: relative error {row.rel_err:.2e} against the reference"
                return
            warm, iters = (0, 2) if not self.on_gpu else iters_for(inp.kv_len, inp.batch)
            timing = measure(fn, self.dev, warmup=warm, iters=iters)
        except NotImplementedError as exc:
            row.error = f"unsupported: {exc}"
            return
        except Exception as exc:
            row.error = _short_error(exc)
            if self.on_gpu and "illegal memory access" in str(exc):
                raise ContextLost(row.error) from exc  # the CUDA context is gone for good
            if self.on_gpu:
                torch.cuda.empty_cache()
            return
        row.timing = timing.method
        fill_metrics(row, timing.median_s, self.profile)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gpu_decode")
    ap.add_argument(
        "--budget-s", type=float, default=480.0, help="stop the sweep after this long (default 480)"
    )
    ap.add_argument(
        "--reserve-s", type=float, default=20.0, help="time kept for the report (default 20)"
    )
    ap.add_argument("--sets", default="twin,default,model", help="shape sets, in order")
    ap.add_argument(
        "--variant", action="append", help="only these variants (repeatable; default all eight)"
    )
    ap.add_argument("--allow-cpu", action="store_true", help="run on the CPU (smoke test)")
    ap.add_argument(
        "--tiny", action="store_true", help="tiny shapes and lengths, fp32 (smoke test)"
    )
    ap.add_argument(
        "--no-extras", action="store_true", help="skip the copy, probe and sparse phases"
    )
    ap.add_argument(
        "--write-shapes", action="store_true", help="refresh gpu_decode_shapes.json and exit"
    )
    args = ap.parse_args(argv)
    if args.write_shapes:
        return write_shapes()

    import torch

    from benchmarks.gpu_decode_extras import (
        compiled_kernels,
        copy_bandwidth,
        environment,
        probe,
        sparse_fractions,
    )
    from benchmarks.gpu_decode_report import goals, markdown

    if not torch.cuda.is_available() and not args.allow_cpu:
        print(
            "gpu_decode.py measures GPU kernels and found no CUDA device; "
            "pass --allow-cpu --tiny for a CPU smoke run.",
            file=sys.stderr,
        )
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    sweep = Sweep(args, torch)
    given = argv if argv is not None else sys.argv[1:]
    # the output folder is the caller's machine's: recorded as $OUT, never as its path
    shown = [
        "--out=$OUT" if a.startswith("--out=") else "$OUT" if i and given[i - 1] == "--out" else a
        for i, a in enumerate(given)
    ]
    meta: dict[str, Any] = {"command": " ".join(["python", "benchmarks/gpu_decode.py", *shown])}
    meta["environment"] = environment(torch)
    print(json.dumps(meta["environment"], indent=1), flush=True)
    if not args.no_extras:
        meta["copy"] = copy_bandwidth(torch, sweep.dev, tiny=args.tiny)
        print(f"copy bandwidth: {meta['copy']}", flush=True)
    shapes = load_shapes(args.sets.split(","))
    if args.variant:
        shapes = [s for s in shapes if s.variant in {v.lower() for v in args.variant}]
    meta["shapes"] = [s.to_dict() | {"key": s.key} for s in shapes]
    sweep.run(shapes, args.out / "gpu_decode.csv")
    meta["stopped"] = sweep.stopped
    if not args.no_extras and not sweep.lost:
        meta["sparse"] = sparse_fractions(sweep, shapes)
    if not args.no_extras and not sweep.lost:
        meta["probe"] = probe(sweep, shapes)
    try:
        meta["compiled"] = compiled_kernels()
    except Exception as exc:  # the compiler's report is a bonus, never a failure
        meta["compiled"] = [{"error": f"{type(exc).__name__}: {exc}"}]
    meta["elapsed_s"] = round(time.monotonic() - sweep.t0, 1)
    meta["goals"] = goals(sweep.rows, meta)
    (args.out / "gpu_decode.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    (args.out / "gpu_decode.md").write_text(markdown(sweep.rows, meta), encoding="utf-8")
    print(f"{len(sweep.rows)} rows in {meta['elapsed_s']} s; wrote {args.out}", flush=True)
    for line in meta["goals"]:
        print(line["text"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
