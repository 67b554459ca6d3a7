"""Triton decode kernels for every variant (imports torch and triton; worker side only).

`decode(inp)` runs one decode step of any variant through the kernels of `decode.py`:
MHA/MQA/GQA/GTA on the head-layout split-K kernel, MLA/GLA on its latent (absorbed) form,
NSA and MoBA on the block-sparse kernel (their block selection is the reference's torch code,
so both pick the same blocks). Set TRITON_INTERPRET=1 before importing to run on CPU tensors.
"""

from __future__ import annotations

import torch

from kernels_bridge.worker.reference import DecodeInputs, moba_select_blocks, nsa_select_blocks
from kernels_bridge.worker.triton_kernels.decode import flash_decode, sparse_decode

__all__ = ["decode", "flash_decode", "sparse_decode"]


def decode(inp: DecodeInputs, num_splits: int | None = None) -> torch.Tensor:
    """One decode step of inp.shape's variant on the Triton kernels: [B, Q, H_q, d_v]."""
    shape = inp.shape
    kind = shape.kind
    q = inp.q
    if kind in ("MHA", "MQA", "GQA"):
        return flash_decode(q, inp["k"], inp["v"], inp.scale, num_splits=num_splits)
    if kind == "GTA":
        state, kr = inp["state"], inp["kr"]
        d_nope = state.shape[-1] - kr.shape[-1]
        rope = kr[:, None]  # [B, 1, L, d_R]; head stride forced to 0 below
        rope = rope.expand(-1, state.shape[1], -1, -1)
        return flash_decode(
            q, state[..., :d_nope], state, inp.scale, k2=rope, num_splits=num_splits
        )
    if kind in ("MLA", "GLA"):
        lat = inp["latent"]
        d_c = shape.latent_dim
        return flash_decode(
            q,
            lat[..., :d_c],
            None,
            inp.scale,
            k2=lat[..., d_c:],
            v_is_k1=True,
            num_splits=num_splits,
        )
    if inp.q_len != 1:
        raise NotImplementedError(f"triton {kind} decodes q_len 1 only (the reference does more)")
    pos = inp.kv_len - 1
    if kind == "NSA":
        k, v = inp["k"], inp["v"]
        k_cmp, v_cmp = inp["k_cmp"], inp["v_cmp"]
        o_cmp = flash_decode(q, k_cmp, v_cmp, inp.scale, num_splits=num_splits)
        blocks = nsa_select_blocks(q[:, 0], k_cmp, shape, pos, inp.scale)
        o_slc = sparse_decode(
            q, k, v, blocks, shape.nsa_select_block, inp.scale, num_splits=num_splits
        )
        start = max(0, inp.kv_len - shape.nsa_window)
        o_win = flash_decode(q, k, v, inp.scale, kv_start=start, num_splits=num_splits)
        g = inp["gates"]
        out = g[..., 0:1] * o_cmp + g[..., 1:2] * o_slc + g[..., 2:3] * o_win
        return out.to(q.dtype)
    if kind == "MoBA":
        blocks = moba_select_blocks(q[:, 0], inp["pooled"], shape, pos)
        return sparse_decode(
            q, inp["k"], inp["v"], blocks, shape.moba_block, inp.scale, num_splits=num_splits
        )
    raise ValueError(f"unknown kind {kind}")
