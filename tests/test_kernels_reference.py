"""The PyTorch reference of every variant against naive attention written here from scratch."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from kernels_bridge.variants import AttentionShape
from kernels_bridge.worker import reference as ref

SHAPES = {
    "MHA": AttentionShape("MHA", 1, 4, 4, 16),
    "MQA": AttentionShape("MQA", 1, 4, 1, 16),
    "GQA": AttentionShape("GQA", 1, 8, 2, 16),
    "GTA": AttentionShape("GTA", 1, 8, 2, 16, rope_dim=8),
    "MLA": AttentionShape("MLA", 1, 8, 1, 16, latent_dim=32, rope_dim=8),
    "GLA": AttentionShape("GLA", 1, 8, 2, 16, latent_dim=16, rope_dim=8),
    "NSA": AttentionShape(
        "NSA",
        1,
        4,
        2,
        16,
        nsa_block=8,
        nsa_stride=4,
        nsa_select_block=16,
        nsa_selected=2,
        nsa_window=12,
    ),
    "MoBA": AttentionShape("MoBA", 1, 4, 2, 16, moba_block=16, moba_top_k=2),
}


def softmax_attend(q, keys, values, scale):
    """q [d], keys [n, d], values [n, dv] -> [dv], float64, plain softmax."""
    if keys.shape[0] == 0:
        return torch.zeros(values.shape[-1], dtype=torch.float64)
    s = (keys.double() @ q.double()) * scale
    w = torch.exp(s - s.max())
    return (w / w.sum()) @ values.double()


def naive(inp):
    shape, t = inp.shape, inp.tensors
    b_n, q_len, hq = inp.batch, inp.q_len, shape.q_heads
    group = hq // shape.kv_heads
    out = []
    for b in range(b_n):
        per_step = []
        for i in range(q_len):
            pos = inp.kv_len - q_len + i
            heads = []
            for h in range(hq):
                g = h // group
                q = t["q"][b, i, h]
                if shape.kind in ("MHA", "MQA", "GQA"):
                    k, v = t["k"][b, g, : pos + 1], t["v"][b, g, : pos + 1]
                elif shape.kind == "GTA":
                    st = t["state"][b, g, : pos + 1]
                    d_nope = shape.head_dim - shape.rope_dim
                    k = torch.cat([st[:, :d_nope], t["kr"][b, : pos + 1]], dim=1)
                    v = st
                elif shape.kind in ("MLA", "GLA"):
                    lat = t["latent"][b, g, : pos + 1]
                    k, v = lat, lat[:, : shape.latent_dim]
                else:
                    k = v = None
                if k is not None:
                    heads.append(softmax_attend(q, k, v, inp.scale))
                    continue
                heads.append(naive_sparse(inp, b, i, h, g, pos))
            per_step.append(torch.stack(heads))
        out.append(torch.stack(per_step))
    return torch.stack(out)


def naive_sparse(inp, b, i, h, g, pos):
    shape, t = inp.shape, inp.tensors
    q = t["q"][b, i, h]
    k_all, v_all = t["k"][b, g], t["v"][b, g]
    q_all = t["q"][:, i]
    if shape.kind == "MoBA":
        bs = shape.moba_block
        blocks = ref.moba_select_blocks(q_all, t["pooled"], shape, pos)[b, g].tolist()
        toks = [n for blk in blocks for n in range(blk * bs, blk * bs + bs) if n <= pos]
        return softmax_attend(q, k_all[toks], v_all[toks], inp.scale)
    # NSA: compressed, selected, window, gated
    ls, st = shape.nsa_block, shape.nsa_stride
    n_c = max(0, (inp.kv_len - ls) // st)
    kc = torch.stack([k_all[j * st : j * st + ls].double().mean(0) for j in range(n_c)])
    vc = torch.stack([v_all[j * st : j * st + ls].double().mean(0) for j in range(n_c)])
    vis = [j for j in range(n_c) if j * st + ls <= pos + 1]
    o_cmp = softmax_attend(q, kc[vis], vc[vis], inp.scale)
    bs = shape.nsa_select_block
    blocks = ref.nsa_select_blocks(q_all, t["k_cmp"], shape, pos, inp.scale)[b, g].tolist()
    assert 0 in blocks and pos // bs in blocks
    toks = [n for blk in blocks for n in range(blk * bs, blk * bs + bs) if n <= pos]
    o_slc = softmax_attend(q, k_all[toks], v_all[toks], inp.scale)
    lo = max(0, pos + 1 - shape.nsa_window)
    o_win = softmax_attend(q, k_all[lo : pos + 1], v_all[lo : pos + 1], inp.scale)
    gates = t["gates"][b, i, h].double()
    return gates[0] * o_cmp + gates[1] * o_slc + gates[2] * o_win


@pytest.mark.parametrize("kind", list(SHAPES))
@pytest.mark.parametrize("q_len", [1, 3])
def test_reference_matches_naive(kind, q_len):
    inp = ref.make_inputs(SHAPES[kind], batch=2, kv_len=53, q_len=q_len, dtype="fp32", seed=3)
    got = ref.decode(inp).double()
    want = naive(inp)
    assert got.shape == want.shape
    assert torch.allclose(got, want, atol=2e-5, rtol=1e-4), (got - want).abs().max()


def test_moba_gate_picks_top_scoring_blocks():
    shape = SHAPES["MoBA"]
    inp = ref.make_inputs(shape, batch=1, kv_len=80, q_len=1, seed=5)
    pos = 79
    q = inp.q[0, 0]
    for g in range(shape.kv_heads):
        rows = q[g * 2 : g * 2 + 2]
        scores = []
        for blk in range(pos // 16 + 1):
            mean_k = inp["k"][0, g, blk * 16 : min(blk * 16 + 16, 80)].mean(0)
            scores.append(float((rows @ mean_k).sum()))
        scores[-1] = math.inf
        want = sorted(sorted(range(len(scores)), key=lambda j: -scores[j])[:2])
        got = ref.moba_select_blocks(inp.q[:, 0], inp["pooled"], shape, pos)[0, g].tolist()
        assert got == want


def test_half_precision_inputs_run_on_cpu():
    for dtype in ("fp16", "bf16"):
        inp = ref.make_inputs(SHAPES["GQA"], batch=1, kv_len=20, dtype=dtype)
        out = ref.decode(inp)
        assert out.dtype == ref.TORCH_DTYPES[dtype]
        want = ref.decode(
            dataclasses.replace(inp, tensors={k: v.float() for k, v in inp.tensors.items()})
        )
        assert torch.allclose(out.float(), want, atol=1e-2)
