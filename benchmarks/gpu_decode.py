"""Decode-attention sweep on one GPU: every variant × batch {128, 1} × KV 1K–64K, bf16, over
every backend present. Writes benchmarks/results/gpu_decode_<device>.csv and .md.

    .venv/bin/python benchmarks/gpu_decode.py            # on a GPU box (about 3-5 min on H200)
    .venv/bin/python benchmarks/gpu_decode.py --allow-cpu --tiny   # smoke test, CPU reference

Sizing (H200): 7 variants × 2 batches × 4 KV lengths × up to 5 backends ≈ 280 rows. Launches
per row: 3 warm-up + 40 timed at KV ≤ 4K, 2 + 15 at 16K, 2 + 8 at 64K; the longest launch (GQA
at batch 128, 64K: 34 GB of KV) is ≈ 8 ms at 4.3 TB/s, so the 64K rows cost ≈ 0.2 s each and
the whole sweep is dominated by input generation and Triton compilation (≈ 1-2 min). Shapes
whose inputs do not fit (MHA at batch 128 × 64K needs 137 GB) come back as "skipped" rows.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VARIANTS = ["mha", "gqa", "gta", "mla", "gla", "nsa", "moba"]
KV = [1024, 4096, 16384, 65536]
BATCHES = [128, 1]


def iters_for(kv_len: int) -> tuple[int, int]:
    if kv_len <= 4096:
        return 3, 40
    if kv_len <= 16384:
        return 2, 15
    return 2, 8


def markdown(rows: list, device: str) -> str:
    out = [
        f"# Decode attention on {device}",
        "",
        "One layer, bf16, query length 1. GB/s and TFLOP/s are algorithmic (decimal); "
        "%BW is of the spec-sheet bandwidth; %copy of the measured copy bandwidth when the "
        "profile has one.",
        "",
        "| variant | backend | batch | KV | latency µs | GB/s | %BW | %copy | TFLOP/s | "
        "roofline µs | note |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    from kernels_bridge.analytic import profile_for_device

    prof = profile_for_device(device)
    copy = prof.measured_bandwidth_tbs if prof else None
    for r in rows:

        def f(x, spec):
            return "" if x is None else format(x, spec)

        pct_copy = (
            ""
            if (copy is None or r.achieved_gbps is None)
            else (f"{100 * r.achieved_gbps / (copy * 1e3):.0f}%")
        )
        pct = "" if r.frac_peak_bw is None else f"{100 * r.frac_peak_bw:.0f}%"
        out.append(
            f"| {r.variant} | {r.backend} | {r.batch} | {r.kv_len} | "
            f"{f(r.latency_us, '.1f')} | {f(r.achieved_gbps, '.0f')} | {pct} | "
            f"{pct_copy} | {f(r.achieved_tflops, '.1f')} | {f(r.roofline_us, '.1f')} | "
            f"{r.error[:60]} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--allow-cpu", action="store_true", help="run on the CPU (smoke test)")
    ap.add_argument("--tiny", action="store_true", help="tiny shapes and lengths (smoke test)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--variant", action="append", choices=VARIANTS)
    args = ap.parse_args(argv)

    import torch

    from kernels_bridge.protocol import Done, Message, Result, ResultRow, Run
    from kernels_bridge.specs import shape_for, shape_to_dict
    from kernels_bridge.worker.bench import backend_availability, run_job

    on_gpu = torch.cuda.is_available()
    if not on_gpu and not args.allow_cpu:
        print(
            "gpu_decode.py measures GPU kernels and found no CUDA device; "
            "pass --allow-cpu --tiny for a CPU smoke run.",
            file=sys.stderr,
        )
        return 2
    device = torch.cuda.get_device_name(0) if on_gpu else "cpu"
    kind = "cuda" if on_gpu else "cpu"
    backends = [b for b, why in backend_availability(kind).items() if why is None]
    variants = args.variant or VARIANTS
    kv_lens, batches, dtype = KV, BATCHES, "bf16"
    shapes: dict[str, dict] = {}
    if args.tiny or not on_gpu:
        import dataclasses

        kv_lens, batches, dtype = [64, 96], [1], "fp32"
        for v in variants:
            s = shape_for(v)
            small = dataclasses.replace(
                s,
                q_heads=max(s.kv_heads, 4) if s.kind != "MHA" else 4,
                kv_heads=4 if s.kind == "MHA" else s.kv_heads,
                head_dim=16,
                latent_dim=32 if s.latent_dim else 0,
                rope_dim=8,
                nsa_select_block=16,
                nsa_window=32,
                moba_block=16,
            )
            shapes[v] = shape_to_dict(small)
    rows: list[ResultRow] = []
    t0 = time.monotonic()
    n_launch = 0
    for kv in kv_lens:
        w, it = iters_for(kv)
        n_launch += (w + it) * len(variants) * len(batches) * len(backends)
    print(
        f"{device}: {len(variants)} variants × {len(batches)} batches × {len(kv_lens)} KV "
        f"× {len(backends)} backends ({', '.join(backends)}); ≈ {n_launch} launches",
        flush=True,
    )

    def emit(msg: Message) -> None:
        if isinstance(msg, Result):
            r = msg.result_row
            rows.append(r)
            lat = "-" if r.latency_us is None else f"{r.latency_us:10.1f} µs"
            gbps = "" if r.achieved_gbps is None else f"{r.achieved_gbps:8.0f} GB/s"
            print(
                f"{r.variant:5} {r.backend:11} b{r.batch:<4} kv{r.kv_len:<6} {lat} {gbps} "
                f"{r.error[:70]}",
                flush=True,
            )

    for kv in kv_lens:
        warm, iters = iters_for(kv)
        if not on_gpu:
            warm, iters = 0, 2
        job = Run(
            job_id=f"kv{kv}",
            variants=variants,
            kv_lens=[kv],
            batches=batches,
            dtypes=[dtype],
            backends=backends,
            warmup=warm,
            iters=iters,
            shapes=shapes,
            gpu_profile="H200",
            device=kind,
        )
        done = run_job(job, emit, lambda: False)
        assert isinstance(done, Done)
    args.out.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9]+", "_", device).strip("_").lower()
    csv_path = args.out / f"gpu_decode_{tag}.csv"
    md_path = args.out / f"gpu_decode_{tag}.md"
    from workbench.commands.kernels_cmd import write_csv

    write_csv(csv_path, rows)
    md_path.write_text(markdown(rows, device), encoding="utf-8")
    print(f"wrote {csv_path} and {md_path} in {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
