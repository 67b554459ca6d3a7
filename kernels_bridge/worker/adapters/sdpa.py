"""`torch-sdpa`: torch.nn.functional.scaled_dot_product_attention, what a user would pick.

GQA/MQA use `enable_gqa=True` (torch >= 2.5) or repeat_interleave of K/V before the timed call;
MLA/GLA run in the absorbed shapes (q [B, H_q, Q, 576] against the latent as one K head with
V = its first 512). GTA's key (state part ‖ shared RoPE key) is materialized once before
timing, as a user of SDPA would have to cache it: that reads more bytes than GTA needs, which
is the point of the comparison. NSA and MoBA have no SDPA form.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import torch
import torch.nn.functional as F

from kernels_bridge.worker.reference import DecodeInputs, gta_keys_values, latent_keys_values


def availability(device_kind: str) -> str | None:
    return None


def _has_enable_gqa() -> bool:
    try:
        return "enable_gqa" in inspect.signature(F.scaled_dot_product_attention).parameters
    except (TypeError, ValueError):
        return False


def prepare(inp: DecodeInputs) -> Callable[[], torch.Tensor]:
    kind = inp.shape.kind
    if kind in ("NSA", "MoBA"):
        raise NotImplementedError(f"torch-sdpa has no {kind} form (block-sparse)")
    if kind == "GTA":
        k, v = gta_keys_values(inp)
        k = k.contiguous()
    elif kind in ("MLA", "GLA"):
        k, v = latent_keys_values(inp)
    else:
        k, v = inp["k"], inp["v"]
    q = inp.q.transpose(1, 2)  # [B, H_q, Q, d]
    hq, hkv = q.shape[1], k.shape[1]
    q_len, kv_len = inp.q_len, inp.kv_len
    mask = None
    if q_len > 1:
        steps = torch.arange(q_len, device=q.device)[:, None]
        mask = torch.arange(kv_len, device=q.device)[None, :] <= kv_len - q_len + steps
    scale = inp.scale
    if hq != hkv and not _has_enable_gqa():
        k = k.repeat_interleave(hq // hkv, dim=1)
        v = v.repeat_interleave(hq // hkv, dim=1)
    gqa = hq != k.shape[1]

    def run() -> torch.Tensor:
        if gqa:
            out = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, scale=scale, enable_gqa=True
            )
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
        return out.transpose(1, 2)

    return run
