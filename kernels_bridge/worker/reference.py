"""PyTorch reference decode step for every variant: the correctness oracle. Imports torch.

Layouts (one layer; B batch, Q query length, L cached tokens, H_q query heads):
- q: [B, Q, H_q, d_qk]; output: [B, Q, H_q, d_v].
- MHA/MQA/GQA (and the base cache of NSA/MoBA): k, v [B, H_kv, L, d] ("HND": one head's
  tokens contiguous, as SDPA and FlashInfer's HND layout take them).
- GTA: state [B, H_kv, L, d] is the tied K/V state; kr [B, L, d_R] is the one RoPE key shared
  by every group. Key of group g = state_g[:, :d − d_R] ‖ kr, value = state_g (arXiv 2505.21487).
- MLA/GLA in absorbed form: latent [B, H_c, L, d_c + d_R] (MLA H_c = 1); key = the whole row,
  value = its first d_c (FlashMLA: d 576, dv 512). q head h reads latent head h // (H_q / H_c).
- NSA (simplified, documented in docs/kernels.md): three branches, gated per q head:
  compressed (k_cmp/v_cmp [B, H_kv, N_c, d]: mean of K/V over windows of l tokens at stride d;
  the paper uses a learned MLP), selected (the top-n blocks of l' tokens ranked by the group's
  summed compressed-attention probabilities, the first and the current block always in, NSA
  §3.3.2), and a sliding window of the last w tokens; gates [B, Q, H_q, 3] (the paper's learned
  sigmoid gates, here random fixed inputs). The selection is shared by the q heads of a group.
- MoBA: pooled [B, H_kv, N_b, d] holds the mean key of each block; a query's group gates the
  blocks by summed q·pooled, keeps the top-k of the visible ones (the current block always in)
  and attends to their tokens with one softmax (arXiv 2502.13189 §2.2; per-group selection).

Queries sit at the last Q positions (p = L − Q + i): causal within the step (speculative
decoding). On CPU the math runs in fp32; on GPU matmuls run in the input dtype with fp32
softmax. `decode` returns the input dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from kernels_bridge.variants import AttentionShape

TORCH_DTYPES: dict[str, torch.dtype] = {
    "fp32": torch.float32,
    "fp16": torch.float16,
    "bf16": torch.bfloat16,
}


@dataclass
class DecodeInputs:
    shape: AttentionShape
    batch: int
    kv_len: int
    q_len: int
    scale: float
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)

    def __getitem__(self, name: str) -> torch.Tensor:
        return self.tensors[name]

    @property
    def q(self) -> torch.Tensor:
        return self.tensors["q"]

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.tensors.values())


def softmax_scale(shape: AttentionShape) -> float:
    """1/sqrt(d) of the un-absorbed q·k: head_dim; MLA/GLA nope + rope (192 for DeepSeek)."""
    if shape.kind in ("MLA", "GLA"):
        return 1.0 / math.sqrt(shape.head_dim + shape.rope_dim)
    return 1.0 / math.sqrt(shape.head_dim)


def nsa_compressed_count(shape: AttentionShape, kv_len: int) -> int:
    """Compressed entries at length L: ⌊(L − l)/d⌋, as variants.decode_tokens_read counts."""
    return max(0, (kv_len - shape.nsa_block) // shape.nsa_stride)


def estimate_input_bytes(shape: AttentionShape, batch: int, kv_len: int, elem: int) -> int:
    """Bytes make_inputs allocates (the caches dominate), to skip shapes that cannot fit."""
    b, L = batch, kv_len
    k = shape.kind
    if k in ("MLA", "GLA"):
        cache = b * shape.kv_heads * L * (shape.latent_dim + shape.rope_dim)
    elif k == "GTA":
        cache = b * (shape.kv_heads * L * shape.head_dim + L * shape.rope_dim)
    else:
        cache = b * shape.kv_heads * L * (shape.head_dim + shape.v_dim)
        if k == "NSA":
            cache += cache // shape.nsa_stride
    return cache * elem


def make_inputs(
    shape: AttentionShape,
    batch: int,
    kv_len: int,
    q_len: int = 1,
    dtype: str | torch.dtype = "fp32",
    device: str | torch.device = "cpu",
    seed: int = 0,
) -> DecodeInputs:
    """Random inputs of one decode step, deterministic for a seed (CPU generator, then moved
    for small tensors; big caches are drawn on the device)."""
    if q_len > kv_len:
        raise ValueError(f"q_len {q_len} > kv_len {kv_len}")
    dt = TORCH_DTYPES[dtype] if isinstance(dtype, str) else dtype
    dev = torch.device(device)
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)

    def rnd(*size: int) -> torch.Tensor:
        return torch.randn(*size, generator=gen, device=dev, dtype=torch.float32).to(dt)

    b, L, Q = batch, kv_len, q_len
    hq, hkv, d = shape.q_heads, shape.kv_heads, shape.head_dim
    t: dict[str, torch.Tensor] = {}
    kind = shape.kind
    if kind in ("MLA", "GLA"):
        width = shape.latent_dim + shape.rope_dim
        t["q"] = rnd(b, Q, hq, width)
        t["latent"] = rnd(b, hkv, L, width)
    elif kind == "GTA":
        t["q"] = rnd(b, Q, hq, d)
        t["state"] = rnd(b, hkv, L, d)
        t["kr"] = rnd(b, L, shape.rope_dim)
    else:
        t["q"] = rnd(b, Q, hq, d)
        t["k"] = rnd(b, hkv, L, d)
        t["v"] = rnd(b, hkv, L, shape.v_dim)
        if kind == "NSA":
            n_c = nsa_compressed_count(shape, L)
            t["k_cmp"] = _window_means(t["k"], shape.nsa_block, shape.nsa_stride, n_c)
            t["v_cmp"] = _window_means(t["v"], shape.nsa_block, shape.nsa_stride, n_c)
            t["gates"] = torch.sigmoid(rnd(b, Q, hq, 3).float()).to(dt)
        elif kind == "MoBA":
            t["pooled"] = block_means(t["k"], shape.moba_block)
    return DecodeInputs(shape, b, L, Q, softmax_scale(shape), t)


def _window_means(x: torch.Tensor, length: int, stride: int, count: int) -> torch.Tensor:
    """[B, H, L, d] -> [B, H, count, d]: mean of x[j·stride : j·stride + length]."""
    if count == 0:
        return x.new_zeros(x.shape[0], x.shape[1], 0, x.shape[3])
    windows = x.float().unfold(2, length, stride)[:, :, :count]  # [B, H, count, d, length]
    return windows.mean(-1).to(x.dtype).contiguous()


def block_means(k: torch.Tensor, block: int) -> torch.Tensor:
    """[B, H, L, d] -> [B, H, ceil(L/block), d]: mean key of each block (last one partial)."""
    b, h, L, d = k.shape
    n_b = -(-L // block)
    pad = n_b * block - L
    kf = torch.nn.functional.pad(k.float(), (0, 0, 0, pad))
    sums = kf.view(b, h, n_b, block, d).sum(3)
    counts = torch.full((n_b,), float(block), device=k.device)
    counts[-1] = float(L - (n_b - 1) * block)
    return (sums / counts[:, None]).to(k.dtype).contiguous()


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _cdtype(x: torch.Tensor) -> torch.dtype:
    return torch.float32 if x.device.type == "cpu" else x.dtype


def group_rows(q: torch.Tensor, groups: int) -> torch.Tensor:
    """[B, Q, H_q, d] -> [B, groups, Q·G, d]; row r = i·G + g is q head (group·G + g) at step i."""
    b, nq, hq, d = q.shape
    g = hq // groups
    return q.view(b, nq, groups, g, d).permute(0, 2, 1, 3, 4).reshape(b, groups, nq * g, d)


def ungroup_rows(o: torch.Tensor, q_len: int) -> torch.Tensor:
    """Inverse of group_rows: [B, groups, Q·G, d] -> [B, Q, groups·G, d]."""
    b, groups, rows, d = o.shape
    g = rows // q_len
    return o.view(b, groups, q_len, g, d).permute(0, 2, 1, 3, 4).reshape(b, q_len, groups * g, d)


def attend(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    scale: float,
    valid: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax attention: q [.., M, dk], k [.., N, dk], v [.., N, dv] -> (out fp32, probs fp32).

    Rows whose keys are all masked out (or N = 0) give zero output.
    """
    cd = _cdtype(q)
    scores = torch.matmul(q.to(cd), k.to(cd).transpose(-1, -2)).float() * scale
    if valid is not None:
        scores = scores.masked_fill(~valid, float("-inf"))
    if scores.shape[-1] == 0:
        out = torch.zeros(*scores.shape[:-1], v.shape[-1], device=q.device)
        return out, scores
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    denom = e.sum(-1, keepdim=True)
    probs = e / torch.where(denom > 0, denom, torch.ones_like(denom))
    out = torch.matmul(probs.to(cd), v.to(cd)).float()
    return out, probs


def _causal_valid(q_len: int, group: int, kv_len: int, device: torch.device) -> torch.Tensor:
    """[Q·G, L] bool: row r (step i = r // G) sees keys n <= L − Q + i."""
    steps = torch.arange(q_len * group, device=device) // group
    limit = kv_len - q_len + steps
    return torch.arange(kv_len, device=device)[None, :] <= limit[:, None]


# ---------------------------------------------------------------------------------------------
# dense variants
# ---------------------------------------------------------------------------------------------


def decode_dense_heads(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float
) -> torch.Tensor:
    """MHA/MQA/GQA (and MLA/GLA, GTA with explicit K/V): q [B,Q,Hq,dk], k/v [B,Hkv,L,d]."""
    _, nq, hq, _ = q.shape
    hkv, L = k.shape[1], k.shape[2]
    rows = group_rows(q, hkv)
    valid = None if nq == 1 else _causal_valid(nq, hq // hkv, L, q.device)
    out, _ = attend(rows, k, v, scale, valid)
    return ungroup_rows(out, nq)


def gta_keys_values(inp: DecodeInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """GTA's explicit K [B,Hkv,L,d] (state's first d − d_R ‖ shared RoPE key) and V (state)."""
    state, kr = inp["state"], inp["kr"]
    d_r = kr.shape[-1]
    nope = state[..., : state.shape[-1] - d_r]
    rope = kr[:, None, :, :].expand(-1, state.shape[1], -1, -1)
    return torch.cat([nope, rope], dim=-1), state


def latent_keys_values(inp: DecodeInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """MLA/GLA absorbed: K = the latent row (d_c + d_R), V = its first d_c (views, no copy)."""
    lat = inp["latent"]
    return lat, lat[..., : inp.shape.latent_dim]


# ---------------------------------------------------------------------------------------------
# sparse variants: the block selection is shared with the Triton backend
# ---------------------------------------------------------------------------------------------


def nsa_select_blocks(
    q_step: torch.Tensor, k_cmp: torch.Tensor, shape: AttentionShape, pos: int, scale: float
) -> torch.Tensor:
    """NSA selection for one query position `pos`: q_step [B, H_q, d] -> [B, H_kv, n] int64.

    Block importance = the group's summed compressed-attention probabilities, each compressed
    entry credited to the selection block holding its first token; the first block and the
    block holding `pos` are always chosen; only blocks starting at or before `pos` count.
    """
    b, hq, _ = q_step.shape
    hkv = k_cmp.shape[1]
    bs = shape.nsa_select_block
    n_blocks = pos // bs + 1
    n_c = k_cmp.shape[2]
    visible_c = torch.arange(n_c, device=q_step.device) * shape.nsa_stride + shape.nsa_block
    valid = (visible_c <= pos + 1)[None, None, None, :]
    rows = q_step.view(b, hkv, hq // hkv, -1)
    _, probs = attend(rows, k_cmp, k_cmp, scale, valid)  # probs [B, Hkv, G, N_c]
    score = torch.zeros(b, hkv, n_blocks, device=q_step.device)
    if n_c:
        owner = (torch.arange(n_c, device=q_step.device) * shape.nsa_stride // bs).clamp(
            max=n_blocks - 1
        )
        summed = probs.nan_to_num(0.0).sum(2)  # [B, Hkv, N_c]
        score.index_add_(2, owner, summed)
    score[:, :, 0] = float("inf")
    score[:, :, n_blocks - 1] = float("inf")
    n = min(shape.nsa_selected, n_blocks)
    return torch.topk(score, n, dim=-1).indices.sort(-1).values


def moba_select_blocks(
    q_step: torch.Tensor, pooled: torch.Tensor, shape: AttentionShape, pos: int
) -> torch.Tensor:
    """MoBA gate for one query position: q_step [B, H_q, d] -> [B, H_kv, k] int64 blocks."""
    b, hq, _ = q_step.shape
    hkv = pooled.shape[1]
    n_blocks = pos // shape.moba_block + 1
    rows = q_step.view(b, hkv, hq // hkv, -1).float()
    score = torch.matmul(rows, pooled[:, :, :n_blocks].float().transpose(-1, -2)).sum(2)
    score[:, :, n_blocks - 1] = float("inf")
    n = min(shape.moba_top_k, n_blocks)
    return torch.topk(score, n, dim=-1).indices.sort(-1).values


def gather_blocks(
    x: torch.Tensor, blocks: torch.Tensor, block: int, pos: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokens of the chosen blocks: x [B,H,L,d], blocks [B,H,n] -> ([B,H,n·block,d], valid)."""
    tok = (blocks[..., None] * block + torch.arange(block, device=x.device)).flatten(-2)
    valid = tok <= pos
    tok = tok.clamp(max=x.shape[2] - 1)
    picked = torch.gather(x, 2, tok[..., None].expand(-1, -1, -1, x.shape[-1]))
    return picked, valid


def _nsa_step(inp: DecodeInputs, i: int) -> torch.Tensor:
    shape = inp.shape
    q = inp.q[:, i]  # [B, Hq, d]
    b, hq, _ = q.shape
    hkv = shape.kv_heads
    pos = inp.kv_len - inp.q_len + i
    rows = q.view(b, hkv, hq // hkv, -1)
    k, v = inp["k"], inp["v"]
    # compressed branch
    n_c = inp["k_cmp"].shape[2]
    ends = torch.arange(n_c, device=q.device) * shape.nsa_stride + shape.nsa_block
    o_cmp, _ = attend(rows, inp["k_cmp"], inp["v_cmp"], inp.scale, (ends <= pos + 1)[None, None])
    # selected branch
    blocks = nsa_select_blocks(q, inp["k_cmp"], shape, pos, inp.scale)
    ks, valid = gather_blocks(k, blocks, shape.nsa_select_block, pos)
    vs, _ = gather_blocks(v, blocks, shape.nsa_select_block, pos)
    o_slc, _ = attend(rows, ks, vs, inp.scale, valid[:, :, None, :])
    # sliding window branch
    start = max(0, pos + 1 - shape.nsa_window)
    o_win, _ = attend(rows, k[:, :, start : pos + 1], v[:, :, start : pos + 1], inp.scale)
    g = inp["gates"][:, i].float().view(b, hkv, hq // hkv, 3)
    out = g[..., 0:1] * o_cmp + g[..., 1:2] * o_slc + g[..., 2:3] * o_win
    return out.reshape(b, hq, -1)


def _moba_step(inp: DecodeInputs, i: int) -> torch.Tensor:
    shape = inp.shape
    q = inp.q[:, i]
    b, hq, _ = q.shape
    hkv = shape.kv_heads
    pos = inp.kv_len - inp.q_len + i
    blocks = moba_select_blocks(q, inp["pooled"], shape, pos)
    ks, valid = gather_blocks(inp["k"], blocks, shape.moba_block, pos)
    vs, _ = gather_blocks(inp["v"], blocks, shape.moba_block, pos)
    out, _ = attend(q.view(b, hkv, hq // hkv, -1), ks, vs, inp.scale, valid[:, :, None, :])
    return out.reshape(b, hq, -1)


# ---------------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------------


def decode(inp: DecodeInputs) -> torch.Tensor:
    """One decode step of inp.shape's variant: [B, Q, H_q, d_v] in the input dtype."""
    kind = inp.shape.kind
    q = inp.q
    out: torch.Tensor
    if kind in ("MHA", "MQA", "GQA"):
        out = decode_dense_heads(q, inp["k"], inp["v"], inp.scale)
    elif kind == "GTA":
        k, v = gta_keys_values(inp)
        out = decode_dense_heads(q, k, v, inp.scale)
    elif kind in ("MLA", "GLA"):
        k, v = latent_keys_values(inp)
        out = decode_dense_heads(q, k, v, inp.scale)
    elif kind == "NSA":
        out = torch.stack([_nsa_step(inp, i) for i in range(inp.q_len)], dim=1)
    elif kind == "MoBA":
        out = torch.stack([_moba_step(inp, i) for i in range(inp.q_len)], dim=1)
    else:  # pragma: no cover - AttentionShape validates kinds
        raise ValueError(f"unknown kind {kind}")
    return out.to(q.dtype)
