"""Attention variants: shapes, KV-cache bytes per token, tokens read and FLOPs of a decode step.

Pure Python, no torch. docs/attention.md explains every figure here, and each formula names
its source. Units: bytes and FLOPs as plain numbers; `elem_bytes` is the size of
one cached element (2 for bf16/fp16, 1 for fp8).

Sharding under tensor parallelism of degree T (docs/attention.md, "Per device under tensor
parallelism"):
- MHA/MQA/GQA/GTA/NSA/MoBA: K/V heads split across min(T, h_kv) devices, replicated beyond.
- MLA: the shared latent (d_c + d_R) is replicated on every device.
- GLA: the h_c latent heads split across min(T, h_c) devices.
Query heads always split across all T devices (Megatron-style column parallelism), so the
attention FLOPs of one device are its share of the query heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

KINDS: tuple[str, ...] = ("MHA", "MQA", "GQA", "GTA", "MLA", "GLA", "NSA", "MoBA")

# Kinds whose cache is a K and a V per KV head (GQA layout); NSA and MoBA keep that layout as
# their base cache (NSA paper §3; MoBA paper §2).
_HEAD_LAYOUT = frozenset({"MHA", "MQA", "GQA", "NSA", "MoBA"})
_LATENT = frozenset({"MLA", "GLA"})


@dataclass(frozen=True)
class AttentionShape:
    """The attention of one model, as far as decode cost is concerned.

    `kv_heads` is the number of K/V heads; for GLA the number of latent heads h_c; for MLA 1.
    `latent_dim` is MLA's d_c (512) or GLA's width per latent head (256 for GLA-2).
    `head_dim` is the per-head Q/K width (for MLA/GLA the non-RoPE "nope" width, used in
    prefill where the latent is expanded); `v_head_dim` defaults to `head_dim`.
    """

    kind: str
    layers: int
    q_heads: int
    kv_heads: int
    head_dim: int
    latent_dim: int = 0
    rope_dim: int = 64
    v_head_dim: int | None = None
    sliding_window: int | None = None
    # NSA (Yuan et al. 2025, arXiv 2502.11089, §3 and its memory-access model in §6):
    # compression block l, stride d, selection block l', n selected blocks, window w.
    nsa_block: int = 32
    nsa_stride: int = 16
    nsa_select_block: int = 64
    nsa_selected: int = 16
    nsa_window: int = 512
    # MoBA (Lu et al. 2025, arXiv 2502.13189): block size and top-k blocks per query.
    # Defaults are the paper's scaling-law setting (block 512, top-k 3).
    moba_block: int = 512
    moba_top_k: int = 3

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown attention kind {self.kind!r}; expected one of {KINDS}")
        for name in ("layers", "q_heads", "kv_heads", "head_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"{self.kind}: {name} must be >= 1, got {getattr(self, name)}")
        if self.kind == "MHA" and self.kv_heads != self.q_heads:
            raise ValueError(f"MHA needs kv_heads == q_heads, got {self.kv_heads}/{self.q_heads}")
        if self.kind == "MQA" and self.kv_heads != 1:
            raise ValueError(f"MQA needs kv_heads == 1, got {self.kv_heads}")
        if self.kind == "MLA" and self.kv_heads != 1:
            raise ValueError(f"MLA has one shared latent: kv_heads must be 1, got {self.kv_heads}")
        if self.kind in _LATENT and self.latent_dim < 1:
            raise ValueError(f"{self.kind} needs latent_dim >= 1")
        if self.kind in ("MLA", "GLA", "GTA") and self.rope_dim < 0:
            raise ValueError(f"{self.kind} needs rope_dim >= 0")
        if self.q_heads % self.kv_heads != 0:
            raise ValueError(
                f"{self.kind}: q_heads {self.q_heads} is not a multiple of kv_heads {self.kv_heads}"
            )
        if self.sliding_window is not None and self.sliding_window < 1:
            raise ValueError("sliding_window must be >= 1 when given")
        if self.v_head_dim is not None and self.v_head_dim < 1:
            raise ValueError("v_head_dim must be >= 1 when given")
        if min(self.nsa_block, self.nsa_stride, self.nsa_select_block, self.nsa_window) < 1:
            raise ValueError("NSA block, stride, selection block and window must be >= 1")
        if self.nsa_selected < 0 or self.moba_block < 1 or self.moba_top_k < 1:
            raise ValueError("NSA selected count >= 0, MoBA block and top_k >= 1 required")

    @property
    def v_dim(self) -> int:
        return self.v_head_dim if self.v_head_dim is not None else self.head_dim


class AttentionCost(NamedTuple):
    """Algorithmic bytes moved (KV read + q + out) and FLOPs of one attention step."""

    bytes: float
    flops: float


# ---------------------------------------------------------------------------------------------
# KV cache per token
# ---------------------------------------------------------------------------------------------


def _head_split(heads: int, tensor_parallel: int) -> int:
    """Heads one device holds: heads split over min(T, heads) devices, replicated beyond.

    ceil() so a head count T does not divide still gives the most-loaded device; it equals
    heads / min(T, heads) whenever that divides (all docs/attention.md examples).
    """
    if tensor_parallel < 1:
        raise ValueError(f"tensor_parallel must be >= 1, got {tensor_parallel}")
    return math.ceil(heads / min(tensor_parallel, heads))


def _bytes_per_token_per_layer_on(shape: AttentionShape, kv_heads: int, elem_bytes: int) -> int:
    """Stored bytes per token per layer when a device holds `kv_heads` of the K/V heads."""
    k = shape.kind
    if k in ("MHA", "MQA", "GQA"):
        # 2·h_kv·d·e: one K and one V per KV head (GQA, Ainslie et al. 2023, arXiv 2305.13245).
        return kv_heads * (shape.head_dim + shape.v_dim) * elem_bytes
    if k == "GTA":
        # (h_kv·d + d_R)·e: one tied K/V state per group plus one shared RoPE key head
        # (GTA, Zadouri, Strauss, Dao 2025, arXiv 2505.21487 §3.1). The RoPE head is shared
        # by all groups, so every device keeps it whole.
        return (kv_heads * shape.head_dim + shape.rope_dim) * elem_bytes
    if k == "MLA":
        # (d_c + d_R)·e = (512 + 64)·2 = 1152 B (DeepSeek-V2, arXiv 2405.04434 §2.1.3).
        return (shape.latent_dim + shape.rope_dim) * elem_bytes
    if k == "GLA":
        # h_c·(d_c' + d_R)·e, the FA3 benchmark layout of the GLA paper (arXiv 2505.21487 §3.2).
        return kv_heads * (shape.latent_dim + shape.rope_dim) * elem_bytes
    base = kv_heads * (shape.head_dim + shape.v_dim) * elem_bytes
    if k == "NSA":
        # Raw GQA-layout cache plus one compressed token per stride d: base·(1 + 1/d)
        # (NSA, arXiv 2502.11089 §3.3.1: a compressed cache of about 1/16 on top).
        return base + math.ceil(base / shape.nsa_stride)
    # MoBA: base cache plus one mean-pooled key per block per KV head (arXiv 2502.13189 §2.2).
    return base + math.ceil(kv_heads * shape.head_dim * elem_bytes / shape.moba_block)


def kv_bytes_per_token_per_layer(shape: AttentionShape, elem_bytes: int = 2) -> int:
    """Bytes of KV cache one token adds to one layer, whole model (no sharding)."""
    return _bytes_per_token_per_layer_on(shape, shape.kv_heads, elem_bytes)


def kv_bytes_per_token(shape: AttentionShape, elem_bytes: int = 2) -> int:
    """Bytes of KV cache one token adds across all layers (no sharding)."""
    return kv_bytes_per_token_per_layer(shape, elem_bytes) * shape.layers


def kv_heads_per_device(shape: AttentionShape, tensor_parallel: int) -> int:
    """K/V heads (GLA: latent heads) one device holds under tensor parallelism T."""
    if shape.kind == "MLA":
        _head_split(1, tensor_parallel)  # validates T
        return 1  # the latent is replicated on every device
    return _head_split(shape.kv_heads, tensor_parallel)


def kv_bytes_per_token_per_layer_per_device(
    shape: AttentionShape, tensor_parallel: int, elem_bytes: int = 2
) -> int:
    """Bytes of KV cache one token adds to one layer on one device under TP degree T."""
    heads = kv_heads_per_device(shape, tensor_parallel)
    return _bytes_per_token_per_layer_on(shape, heads, elem_bytes)


def kv_bytes_per_token_per_device(
    shape: AttentionShape, tensor_parallel: int, elem_bytes: int = 2
) -> int:
    """Bytes of KV cache one token adds on one device, all layers, under TP degree T.

    docs/attention.md, per-device sharding: head-split kinds divide by min(T, h_kv); MLA is
    replicated (same as the whole-model figure whatever T); GLA divides by min(T, h_c).
    """
    return kv_bytes_per_token_per_layer_per_device(shape, tensor_parallel, elem_bytes) * (
        shape.layers
    )


def kv_tokens_stored(shape: AttentionShape, kv_len: int) -> int:
    """Tokens the cache must hold at length kv_len: a sliding window keeps only the last w
    (Mistral-7B's rolling buffer cache, arXiv 2310.06825 §2)."""
    if kv_len < 0:
        raise ValueError(f"kv_len must be >= 0, got {kv_len}")
    if shape.sliding_window is not None:
        return min(kv_len, shape.sliding_window)
    return kv_len


# ---------------------------------------------------------------------------------------------
# What one decode step reads
# ---------------------------------------------------------------------------------------------


def decode_tokens_read(shape: AttentionShape, kv_len: int) -> int:
    """Cached tokens (or token-sized entries) one decode step reads per layer at length kv_len.

    - dense kinds: all kv_len tokens; with a sliding window min(kv_len, w).
    - NSA: ⌊(L−l)/d⌋ compressed + n·l′ selected + w window tokens, the paper's memory-access
      model (arXiv 2502.11089 §6, Table 4): 5630 at L = 65536 → 11.6× fewer. The selected and
      window terms are capped at L so short contexts never read more than they hold.
    - MoBA: top_k·block tokens of the chosen blocks + ⌈L/block⌉ pooled keys for the gate
      (arXiv 2502.13189 §2.2; MoBA reports prefill, using it for decode is our extension).
    """
    if kv_len < 0:
        raise ValueError(f"kv_len must be >= 0, got {kv_len}")
    if shape.kind == "NSA":
        compressed = max(0, (kv_len - shape.nsa_block) // shape.nsa_stride)
        selected = min(shape.nsa_selected * shape.nsa_select_block, kv_len)
        window = min(shape.nsa_window, kv_len)
        return compressed + selected + window
    if shape.kind == "MoBA":
        chosen = min(shape.moba_top_k * shape.moba_block, kv_len)
        return chosen + math.ceil(kv_len / shape.moba_block)
    return kv_tokens_stored(shape, kv_len)


def decode_kv_bytes_read(
    shape: AttentionShape,
    kv_len: int,
    tensor_parallel: int = 1,
    elem_bytes: int = 2,
    layers: int | None = None,
) -> float:
    """KV bytes one sequence's decode step reads on one device (all layers unless given).

    NSA's compressed and selected entries are token-sized in the base (GQA) layout; MoBA's
    pooled gate keys are K only, half a token's K+V.
    """
    n_layers = shape.layers if layers is None else layers
    heads = kv_heads_per_device(shape, tensor_parallel)
    if shape.kind in ("NSA", "MoBA"):
        per_token = heads * (shape.head_dim + shape.v_dim) * elem_bytes
        if shape.kind == "NSA":
            read = decode_tokens_read(shape, kv_len) * per_token
        else:
            chosen = min(shape.moba_top_k * shape.moba_block, kv_len)
            pooled = math.ceil(kv_len / shape.moba_block)
            read = chosen * per_token + pooled * heads * shape.head_dim * elem_bytes
        return float(read * n_layers)
    per_token = _bytes_per_token_per_layer_on(shape, heads, elem_bytes)
    return float(decode_tokens_read(shape, kv_len) * per_token * n_layers)


def decode_head_dims(shape: AttentionShape) -> tuple[int, int]:
    """(d_qk, d_v) of the decode kernel.

    MLA/GLA run in absorbed form (DeepSeek-V2 §2.1.3; FlashMLA: d 576, dv 512):
    d_qk = latent + rope, d_v = latent. GTA: key = half the tied state + a RoPE half, so
    d_qk = d_v = head_dim (arXiv 2505.21487 §3.1). Others: head_dim and v_head_dim.
    """
    if shape.kind in _LATENT:
        return shape.latent_dim + shape.rope_dim, shape.latent_dim
    if shape.kind == "GTA":
        return shape.head_dim, shape.head_dim
    return shape.head_dim, shape.v_dim


def prefill_head_dims(shape: AttentionShape) -> tuple[int, int]:
    """(d_qk, d_v) of prefill, where MLA/GLA expand the latent per head (non-absorbed):
    d_qk = nope + rope (128 + 64 = 192 for DeepSeek-V3), d_v = v_head_dim."""
    if shape.kind in _LATENT:
        return shape.head_dim + shape.rope_dim, shape.v_dim
    return decode_head_dims(shape)


def q_heads_per_device(shape: AttentionShape, tensor_parallel: int) -> int:
    """Query heads on the most-loaded device: q heads always split across all T devices."""
    if tensor_parallel < 1:
        raise ValueError(f"tensor_parallel must be >= 1, got {tensor_parallel}")
    return math.ceil(shape.q_heads / tensor_parallel)


def decode_bytes_and_flops(
    shape: AttentionShape,
    batch: int,
    kv_len: int,
    q_len: int = 1,
    elem_bytes: int = 2,
    *,
    tensor_parallel: int = 1,
    layers: int | None = None,
) -> AttentionCost:
    """Algorithmic bytes and FLOPs of the attention part of one decode step.

    bytes = KV read + q + out (docs/attention.md, "How kernels are measured"; split-K scratch is not
    counted); FLOPs = 2·s_q·Σs_k·h_q·(d_qk + d_v) with Σs_k = batch · tokens read, the
    convention of FlashAttention / FlashMLA benchmarks. MLA/GLA use the absorbed dims.
    With tensor_parallel > 1 the figures are one device's share (its q heads, its KV).
    All layers of the shape unless `layers` is given (a kernel benchmark times one layer).
    """
    if batch < 1 or q_len < 1:
        raise ValueError(f"batch and q_len must be >= 1, got {batch} and {q_len}")
    n_layers = shape.layers if layers is None else layers
    d_qk, d_v = decode_head_dims(shape)
    h_q = q_heads_per_device(shape, tensor_parallel)
    s_k = decode_tokens_read(shape, kv_len)
    kv = batch * decode_kv_bytes_read(shape, kv_len, tensor_parallel, elem_bytes, n_layers)
    q_out = batch * q_len * h_q * (d_qk + d_v) * elem_bytes * n_layers
    flops = 2.0 * q_len * (batch * s_k) * h_q * (d_qk + d_v) * n_layers
    return AttentionCost(bytes=kv + q_out, flops=flops)


def arithmetic_intensity(shape: AttentionShape, q_len: int = 1, elem_bytes: int = 2) -> float:
    """FLOPs per byte of KV read at query length q_len (q and out bytes excluded).

    The convention of docs/attention.md's table (MHA ≈ 1, GQA-8 ≈ 8, MLA-128 ≈ 242, GLA-2 ≈ 115):
    2·q_len·h_q·(d_qk + d_v) / KV bytes per token per layer, whole model, bf16.
    """
    d_qk, d_v = decode_head_dims(shape)
    flops = 2.0 * q_len * shape.q_heads * (d_qk + d_v)
    per_token = decode_kv_bytes_read(shape, 1 << 20, 1, elem_bytes, 1) / decode_tokens_read(
        shape, 1 << 20
    )
    return flops / per_token


def causal_keys_sum(shape: AttentionShape, n_tokens: int) -> float:
    """Σ over the n prompt positions of the keys each query attends in causal prefill.

    Dense: n(n+1)/2; sliding window w: Σ min(i, w); NSA/MoBA: Σ decode_tokens_read(i),
    summed exactly for short prompts and by a 512-point midpoint rule for long ones.
    """
    if n_tokens <= 0:
        return 0.0
    w = shape.sliding_window
    if shape.kind not in ("NSA", "MoBA"):
        if w is None or n_tokens <= w:
            return n_tokens * (n_tokens + 1) / 2
        return w * (w + 1) / 2 + (n_tokens - w) * w
    if n_tokens <= 4096:
        return float(sum(decode_tokens_read(shape, i) for i in range(1, n_tokens + 1)))
    steps = 512
    width = n_tokens / steps
    mids = ((k + 0.5) * width for k in range(steps))
    return sum(decode_tokens_read(shape, max(1, round(m))) for m in mids) * width
