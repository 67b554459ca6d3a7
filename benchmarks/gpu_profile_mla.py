"""One launch of the Triton latent (MLA) decode kernel for a profiler to read (ncu):

    ncu --clock-control none --kernel-name regex:_split_kernel --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        python3 benchmarks/gpu_profile_mla.py [--old]

The 70B twin's MLA at tensor parallel 2 (32 q heads on one 512 + 64 latent), batch 128, KV 16K,
bf16: the shape whose kernel reached only 27% of copy bandwidth in the first H200 sweep. Two
launches first (compile, warm), then the one profiled. `--old` uses the latent settings before
that sweep (32-token tiles, 8 warps, 1 stage). `--tiny --allow-cpu` checks it runs on a CPU.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", action="store_true", help="the latent settings before the sweep")
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (a CPU check)")
    args = ap.parse_args()

    import torch

    from kernels_bridge.shape_sets import twin_set
    from kernels_bridge.worker import reference
    from kernels_bridge.worker.triton_kernels import flash_decode

    shape = next(s.shape for s in twin_set() if s.variant == "mla")
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    batch, kv, dtype = (2, 64, "fp32") if args.tiny else (128, 16384, "bf16")
    if args.tiny:
        import dataclasses

        shape = dataclasses.replace(shape, q_heads=4, latent_dim=32, rope_dim=16)
    inp = reference.make_inputs(shape, batch, kv, 1, dtype, dev, 0)
    lat, d_c = inp["latent"], shape.latent_dim
    kw = {"block_n": 32, "num_warps": 8, "num_stages": 1} if args.old and dev.type == "cuda" else {}
    for _ in range(3):
        out = flash_decode(
            inp.q, lat[..., :d_c], None, inp.scale, k2=lat[..., d_c:], v_is_k1=True, **kw
        )
    if dev.type == "cuda":
        torch.cuda.synchronize()
    print(f"profiled launch done: out {tuple(out.shape)} finite={bool(out.isfinite().all())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
