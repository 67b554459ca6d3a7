"""Triton kernels against the reference under TRITON_INTERPRET=1 (CPU tensors).

The interpreter flag must be set before triton_kernels is imported and must not leak into the
other tests, so the checks run in one subprocess: this file executed as a script prints one JSON
line per case, and the test reads them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cases():
    from kernels_bridge.variants import AttentionShape

    gqa = {  # group sizes 1, 4, 8
        "g1": AttentionShape("MHA", 1, 2, 2, 32),
        "g4": AttentionShape("GQA", 1, 8, 2, 32),
        "g8": AttentionShape("GQA", 1, 8, 1, 32),
    }
    cases = []
    for name, shape in gqa.items():
        for dtype in ("fp32", "fp16"):
            cases.append((name, shape, 37, 1, dtype))
    cases.append(("g4-q3", gqa["g4"], 45, 3, "fp32"))
    cases.append(("gta", AttentionShape("GTA", 1, 8, 2, 32, rope_dim=16), 41, 1, "fp16"))
    cases.append(("gta-q2", AttentionShape("GTA", 1, 8, 2, 32, rope_dim=16), 41, 2, "fp32"))
    mla = AttentionShape("MLA", 1, 16, 1, 16, latent_dim=64, rope_dim=16)
    gla2 = AttentionShape("GLA", 1, 16, 2, 16, latent_dim=32, rope_dim=16)
    for dtype in ("fp32", "fp16"):
        cases.append((f"mla-{dtype}", mla, 39, 1, dtype))
        cases.append((f"gla2-{dtype}", gla2, 39, 1, dtype))
    cases.append(("mla-q2", mla, 39, 2, "fp32"))
    nsa = AttentionShape(
        "NSA",
        1,
        8,
        2,
        32,
        nsa_block=8,
        nsa_stride=4,
        nsa_select_block=16,
        nsa_selected=2,
        nsa_window=20,
    )
    moba = AttentionShape("MoBA", 1, 8, 2, 32, moba_block=16, moba_top_k=2)
    for dtype in ("fp32", "fp16"):
        cases.append((f"nsa-{dtype}", nsa, 75, 1, dtype))
        cases.append((f"moba-{dtype}", moba, 75, 1, dtype))
    return cases


def _main() -> None:
    assert os.environ.get("TRITON_INTERPRET") == "1"
    import torch

    from kernels_bridge.worker import reference as ref
    from kernels_bridge.worker import triton_kernels as tk

    for name, shape, kv_len, q_len, dtype in _cases():
        inp = ref.make_inputs(shape, batch=1, kv_len=kv_len, q_len=q_len, dtype=dtype, seed=7)
        want = ref.decode(inp).float()
        got = tk.decode(inp, num_splits=3).float()
        err = float((got - want).abs().max())
        ok = bool(torch.isfinite(got).all()) and got.shape == want.shape
        print(json.dumps({"case": name, "dtype": dtype, "err": err, "ok": ok}), flush=True)


def test_triton_kernels_match_reference_in_interpreter():
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, __file__],
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(_cases())
    for r in results:
        tol = 1e-4 if r["dtype"] == "fp32" else 3e-3
        assert r["ok"] and r["err"] < tol, r


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    _main()
