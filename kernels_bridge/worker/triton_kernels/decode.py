"""Split-K flash-decoding in Triton (docs/attention.md, "How kernels are measured").

Stage 1 (`_split_kernel`), grid (batch, kv-head × q-row-blocks, splits): each program takes the
q rows of one KV head (its group of q heads × the query steps, padded to BLOCK_H ≥ 16 rows for
`tl.dot`), walks its token range in tiles of BLOCK_N, computes `tl.dot(q, kᵀ)`, keeps an online
softmax in fp32 (log2 domain) and writes a partial output and its log-sum-exp.
Stage 2 (`_combine_kernel`), grid (batch, q_len × q-heads): merges the splits by their LSE.

One kernel body serves two families through constexpr flags:
- head layout (MHA/MQA/GQA, and GTA where K = the tied state's first d − d_R columns ‖ a shared
  RoPE key given with head stride 0, V = the whole state);
- latent layout (MLA/GLA absorbed): K = latent[:, :d_c] ‖ latent[:, d_c:], and with V_IS_K1
  the latent tile already loaded as K serves as V, so the latent is read once per program;
  BLOCK_H q heads (64 on GPU) share it.
`_sparse_kernel` is block-sparse decode: each (batch, kv head) has a list of block indices
(NSA's selected blocks, MoBA's top-k); splits divide that list. Tokens past kv_len and
padding indices (< 0) are masked, so lengths need not be multiples of the tile.
"""

from __future__ import annotations

import math
import os

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


# one function: a @triton.jit kernel compiles as one unit, and splitting its loop body into
# jitted helpers would hide the tile loop that docs/attention.md walks through
@triton.jit
def _split_kernel(
    Q,
    K1,
    K2,
    V,
    OP,
    LSEP,
    sq_b,
    sq_s,
    sq_h,
    sk1_b,
    sk1_h,
    sk1_n,
    sk2_b,
    sk2_h,
    sk2_n,
    sv_b,
    sv_h,
    sv_n,
    so_b,
    so_s,
    so_q,
    so_h,
    sl_b,
    sl_s,
    sl_q,
    kv_start,
    kv_len,
    q_len,
    group,
    tokens_per_split,
    qk_scale,
    BLOCK_H: tl.constexpr,
    BLOCK_N: tl.constexpr,
    D1: tl.constexpr,
    D2: tl.constexpr,
    DV: tl.constexpr,
    BD1: tl.constexpr,
    BD2: tl.constexpr,
    BDV: tl.constexpr,
    HAS_K2: tl.constexpr,
    V_IS_K1: tl.constexpr,
):
    # 64-bit: at batch 128 a cache holds over 2^31 elements, and b × batch stride overflows i32
    b = tl.program_id(0).to(tl.int64)
    pid1 = tl.program_id(1)
    split = tl.program_id(2)
    n_rows = q_len * group
    row_blocks = tl.cdiv(n_rows, BLOCK_H)
    hkv = (pid1 // row_blocks).to(tl.int64)
    rb = pid1 % row_blocks
    rows = rb * BLOCK_H + tl.arange(0, BLOCK_H)
    row_ok = rows < n_rows
    step = rows // group
    head = hkv * group + rows % group
    d1 = tl.arange(0, BD1)
    q_base = Q + b * sq_b + step[:, None] * sq_s + head[:, None] * sq_h
    q1 = tl.load(q_base + d1[None, :], mask=row_ok[:, None] & (d1[None, :] < D1), other=0.0)
    if HAS_K2:
        d2 = tl.arange(0, BD2)
        q2 = tl.load(
            q_base + D1 + d2[None, :], mask=row_ok[:, None] & (d2[None, :] < D2), other=0.0
        )
    dv = tl.arange(0, BDV)
    limit = kv_len - q_len + step  # last key each row may see (causal inside the step)
    lo = kv_start + split * tokens_per_split
    hi = tl.minimum(lo + tokens_per_split, kv_len)
    m_i = tl.full([BLOCK_H], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_H], tl.float32)
    acc = tl.zeros([BLOCK_H, BDV], tl.float32)
    k1_base = K1 + b * sk1_b + hkv * sk1_h
    for start in range(lo, hi, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        n_ok = n < hi
        k1 = tl.load(
            k1_base + n[:, None] * sk1_n + d1[None, :],
            mask=n_ok[:, None] & (d1[None, :] < D1),
            other=0.0,
        )
        s = tl.dot(q1, tl.trans(k1))
        if HAS_K2:
            k2 = tl.load(
                K2 + b * sk2_b + hkv * sk2_h + n[:, None] * sk2_n + d2[None, :],
                mask=n_ok[:, None] & (d2[None, :] < D2),
                other=0.0,
            )
            s += tl.dot(q2, tl.trans(k2))
        s = s * qk_scale
        valid = n_ok[None, :] & (n[None, :] <= limit[:, None])
        s = tl.where(valid, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        if V_IS_K1:
            v = k1
        else:
            v = tl.load(
                V + b * sv_b + hkv * sv_h + n[:, None] * sv_n + dv[None, :],
                mask=n_ok[:, None] & (dv[None, :] < DV),
                other=0.0,
            )
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    has = l_i > 0
    out = acc / tl.where(has, l_i, 1.0)[:, None]
    lse = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), float("-inf"))
    o_ptr = OP + b * so_b + split * so_s + step[:, None] * so_q + head[:, None] * so_h + dv[None, :]
    tl.store(o_ptr, out, mask=row_ok[:, None] & (dv[None, :] < DV))
    tl.store(LSEP + b * sl_b + split * sl_s + step * sl_q + head, lse, mask=row_ok)


# one function: a @triton.jit kernel compiles as one unit, and splitting its loop body into
# jitted helpers would hide the tile loop that docs/attention.md walks through
@triton.jit
def _sparse_kernel(
    Q,
    K,
    V,
    IDX,
    OP,
    LSEP,
    sq_b,
    sq_h,
    sk_b,
    sk_h,
    sk_n,
    sv_b,
    sv_h,
    sv_n,
    si_b,
    si_h,
    so_b,
    so_s,
    so_h,
    sl_b,
    sl_s,
    n_sel,
    blocks_per_split,
    kv_len,
    group,
    qk_scale,
    BLOCK_SIZE: tl.constexpr,
    BLOCK_H: tl.constexpr,
    BLOCK_N: tl.constexpr,
    D: tl.constexpr,
    DV: tl.constexpr,
    BD: tl.constexpr,
    BDV: tl.constexpr,
):
    # 64-bit: at batch 128 a cache holds over 2^31 elements, and b × batch stride overflows i32
    b = tl.program_id(0).to(tl.int64)
    pid1 = tl.program_id(1)
    split = tl.program_id(2)
    row_blocks = tl.cdiv(group, BLOCK_H)
    hkv = (pid1 // row_blocks).to(tl.int64)
    rows = (pid1 % row_blocks) * BLOCK_H + tl.arange(0, BLOCK_H)
    row_ok = rows < group
    head = hkv * group + rows
    d = tl.arange(0, BD)
    dv = tl.arange(0, BDV)
    q = tl.load(
        Q + b * sq_b + head[:, None] * sq_h + d[None, :],
        mask=row_ok[:, None] & (d[None, :] < D),
        other=0.0,
    )
    m_i = tl.full([BLOCK_H], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_H], tl.float32)
    acc = tl.zeros([BLOCK_H, BDV], tl.float32)
    j_lo = split * blocks_per_split
    j_hi = tl.minimum(j_lo + blocks_per_split, n_sel)
    for j in range(j_lo, j_hi):
        blk = tl.load(IDX + b * si_b + hkv * si_h + j)
        base = blk * BLOCK_SIZE
        hi = tl.where(blk >= 0, tl.minimum(base + BLOCK_SIZE, kv_len), 0)
        for t in range(0, BLOCK_SIZE, BLOCK_N):
            n = base + t + tl.arange(0, BLOCK_N)
            n_ok = (n < hi) & (n >= 0)
            k = tl.load(
                K + b * sk_b + hkv * sk_h + n[:, None] * sk_n + d[None, :],
                mask=n_ok[:, None] & (d[None, :] < D),
                other=0.0,
            )
            s = tl.dot(q, tl.trans(k)) * qk_scale
            s = tl.where(n_ok[None, :], s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
            alpha = tl.exp2(m_i - m_safe)
            p = tl.exp2(s - m_safe[:, None])
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(
                V + b * sv_b + hkv * sv_h + n[:, None] * sv_n + dv[None, :],
                mask=n_ok[:, None] & (dv[None, :] < DV),
                other=0.0,
            )
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
    has = l_i > 0
    out = acc / tl.where(has, l_i, 1.0)[:, None]
    lse = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), float("-inf"))
    o_ptr = OP + b * so_b + split * so_s + head[:, None] * so_h + dv[None, :]
    tl.store(o_ptr, out, mask=row_ok[:, None] & (dv[None, :] < DV))
    tl.store(LSEP + b * sl_b + split * sl_s + head, lse, mask=row_ok)


@triton.jit
def _combine_kernel(
    OP,
    LSEP,
    O,  # noqa: E741
    so_b,
    so_s,
    so_q,
    so_h,
    sl_b,
    sl_s,
    sl_q,
    sO_b,
    sO_q,
    sO_h,
    n_splits,
    n_heads,
    DV: tl.constexpr,
    BDV: tl.constexpr,
    BLOCK_S: tl.constexpr,
):
    # 64-bit: at batch 128 a cache holds over 2^31 elements, and b × batch stride overflows i32
    b = tl.program_id(0).to(tl.int64)
    qh = tl.program_id(1)
    step = qh // n_heads
    head = qh % n_heads
    s = tl.arange(0, BLOCK_S)
    s_ok = s < n_splits
    lse = tl.load(LSEP + b * sl_b + s * sl_s + step * sl_q + head, mask=s_ok, other=float("-inf"))
    m = tl.max(lse, 0)
    m_safe = tl.where(m == float("-inf"), 0.0, m)
    w = tl.exp2(lse - m_safe)
    total = tl.sum(w, 0)
    dv = tl.arange(0, BDV)
    o = tl.load(
        OP + b * so_b + s[:, None] * so_s + step * so_q + head * so_h + dv[None, :],
        mask=s_ok[:, None] & (dv[None, :] < DV),
        other=0.0,
    )
    out = tl.sum(o * w[:, None], 0) / tl.where(total > 0, total, 1.0)
    o_ptr = O + b * sO_b + step * sO_q + head * sO_h + dv
    tl.store(o_ptr, out.to(O.dtype.element_ty), mask=dv < DV)


# ---------------------------------------------------------------------------------------------
# launch helpers
# ---------------------------------------------------------------------------------------------


def _p2(x: int, lo: int = 16) -> int:
    return max(lo, triton.next_power_of_2(max(1, x)))


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 4
    return int(torch.cuda.get_device_properties(device).multi_processor_count)


def _pick_splits(programs: int, span: int, block_n: int, device: torch.device) -> int:
    """Enough programs to fill the GPU twice over, at least 4 tiles per split, at most 64."""
    if span <= 0:
        return 1
    want = math.ceil(2 * _sm_count(device) / max(1, programs))
    return max(1, min(want, math.ceil(span / (4 * block_n)), 64))


def _combine(
    op: torch.Tensor, lse: torch.Tensor, out: torch.Tensor, n_splits: int, n_heads: int
) -> None:
    b, q_len = out.shape[0], out.shape[1]
    dv = out.shape[3]
    _combine_kernel[(b, q_len * n_heads)](
        op,
        lse,
        out,
        op.stride(0),
        op.stride(1),
        op.stride(2),
        op.stride(3),
        lse.stride(0),
        lse.stride(1),
        lse.stride(2),
        out.stride(0),
        out.stride(1),
        out.stride(2),
        n_splits,
        n_heads,
        DV=dv,
        BDV=_p2(dv),
        BLOCK_S=_p2(n_splits, 2),
    )


# one function: the launch passes every stride as its own kernel argument (one per line)
def flash_decode(
    q: torch.Tensor,
    k1: torch.Tensor,
    v: torch.Tensor | None,
    scale: float,
    *,
    k2: torch.Tensor | None = None,
    v_is_k1: bool = False,
    kv_start: int = 0,
    num_splits: int | None = None,
    block_h: int | None = None,
    block_n: int | None = None,
    num_warps: int | None = None,
    num_stages: int | None = None,
) -> torch.Tensor:
    """Split-K decode: q [B, Q, H_q, D1 (+ D2)], k1 [B, H_kv, L, D1] (any strides, last dim
    contiguous), optional k2 [B, H_kv or 1, L, D2] (head stride 0 for a shared RoPE key),
    v [B, H_kv, L, DV] or v_is_k1. Attends keys [kv_start, L), causal within the Q steps.
    Returns [B, Q, H_q, DV] in q's dtype."""
    b, q_len, hq, dq = q.shape
    _, hkv, kv_len, d1 = k1.shape
    if q.stride(-1) != 1:
        q = q.contiguous()
    d2 = 0 if k2 is None else k2.shape[-1]
    if dq != d1 + d2:
        raise ValueError(f"q width {dq} != key width {d1} + {d2}")
    if hq % hkv:
        raise ValueError(f"q heads {hq} not a multiple of kv heads {hkv}")
    if v_is_k1:
        v = k1
    assert v is not None
    d_v = v.shape[-1]
    for t in (k1, v) if k2 is None else (k1, v, k2):
        if t.stride(-1) != 1:
            raise ValueError("K/V need a contiguous last dimension")
    group = hq // hkv
    n_rows = q_len * group
    latent = v_is_k1
    on_gpu = q.device.type == "cuda"
    if block_h is None:
        cap = int(os.environ.get("KB_TRITON_LATENT_BLOCK_H", "64")) if latent else 64
        block_h = min(_p2(n_rows), cap)
    if block_n is None:
        block_n = 64 if (latent or max(d1, d_v) <= 128) else 32
        if not on_gpu:
            block_n = 16
    row_blocks = triton.cdiv(n_rows, block_h)
    span = max(0, kv_len - kv_start)
    out = torch.empty(b, q_len, hq, d_v, device=q.device, dtype=q.dtype)
    if span == 0:
        return out.zero_()
    if num_splits is None:
        num_splits = _pick_splits(b * hkv * row_blocks, span, block_n, q.device)
    tokens_per_split = triton.cdiv(triton.cdiv(span, num_splits), block_n) * block_n
    num_splits = triton.cdiv(span, tokens_per_split)
    op = torch.empty(b, num_splits, q_len, hq, d_v, device=q.device, dtype=torch.float32)
    lse = torch.empty(b, num_splits, q_len, hq, device=q.device, dtype=torch.float32)
    k2_t = k1 if k2 is None else k2
    kwargs: dict[str, int] = {}
    if on_gpu:
        # latent, measured on an H200 at batch 128, KV 64K (benchmarks/results/gpu_decode.md,
        # "launch settings"): up to 32 q rows, 4 warps and 3 stages of 64-token tiles (1.9-2.2x
        # the old 32/8/1; 177 registers a thread left 8 warps one block per SM); 64 rows (MLA's
        # 128 heads) do not fit 3 stages in shared memory and keep 8 warps, 2 stages
        wide = latent and block_h > 32
        kwargs["num_warps"] = num_warps or (8 if wide else 4)
        kwargs["num_stages"] = num_stages or (3 if latent and not wide else 2)
    _split_kernel[(b, hkv * row_blocks, num_splits)](
        q,
        k1,
        k2_t,
        v,
        op,
        lse,
        q.stride(0),
        q.stride(1),
        q.stride(2),
        k1.stride(0),
        k1.stride(1),
        k1.stride(2),
        k2_t.stride(0),
        k2_t.stride(1),
        k2_t.stride(2),
        v.stride(0),
        v.stride(1),
        v.stride(2),
        op.stride(0),
        op.stride(1),
        op.stride(2),
        op.stride(3),
        lse.stride(0),
        lse.stride(1),
        lse.stride(2),
        kv_start,
        kv_len,
        q_len,
        group,
        tokens_per_split,
        scale * LOG2E,
        BLOCK_H=block_h,
        BLOCK_N=block_n,
        D1=d1,
        D2=max(d2, 1),
        DV=d_v,
        BD1=_p2(d1),
        BD2=_p2(d2),
        BDV=_p2(d_v),
        HAS_K2=k2 is not None,
        V_IS_K1=v_is_k1,
        **kwargs,
    )
    _combine(op, lse, out, num_splits, hq)
    return out


# one function: the launch passes every stride as its own kernel argument (one per line)
def sparse_decode(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    block_idx: torch.Tensor,
    block_size: int,
    scale: float,
    kv_len: int | None = None,
    *,
    num_splits: int | None = None,
    block_n: int | None = None,
) -> torch.Tensor:
    """Block-sparse decode (query length 1): q [B, 1, H_q, D], k/v [B, H_kv, L, d],
    block_idx [B, H_kv, n] (int, −1 = padding). Returns [B, 1, H_q, DV]."""
    b, q_len, hq, d = q.shape
    if q_len != 1:
        raise ValueError("the block-sparse kernel decodes one query step (q_len 1)")
    _, hkv, L, _ = k.shape
    kv_len = L if kv_len is None else kv_len
    d_v = v.shape[-1]
    group = hq // hkv
    idx = block_idx.to(torch.int32).contiguous()
    n_sel = idx.shape[-1]
    if block_n is None:
        block_n = 64 if q.device.type == "cuda" else 16
    block_n = min(block_n, block_size)
    if block_size % block_n or block_n < 16:
        raise ValueError(f"block size {block_size} must be a multiple of a tile of >= 16")
    block_h = min(_p2(group), 64)
    row_blocks = triton.cdiv(group, block_h)
    if num_splits is None:
        num_splits = max(1, min(n_sel, math.ceil(2 * _sm_count(q.device) / (b * hkv))))
    num_splits = max(1, min(num_splits, max(1, n_sel)))
    per_split = triton.cdiv(max(1, n_sel), num_splits)
    num_splits = triton.cdiv(max(1, n_sel), per_split)
    q2 = q[:, 0]
    if q2.stride(-1) != 1:
        q2 = q2.contiguous()
    op = torch.empty(b, num_splits, 1, hq, d_v, device=q.device, dtype=torch.float32)
    lse = torch.empty(b, num_splits, 1, hq, device=q.device, dtype=torch.float32)
    kwargs: dict[str, int] = {}
    if q.device.type == "cuda":
        kwargs["num_warps"] = 4
        kwargs["num_stages"] = 2
    _sparse_kernel[(b, hkv * row_blocks, num_splits)](
        q2,
        k,
        v,
        idx,
        op,
        lse,
        q2.stride(0),
        q2.stride(1),
        k.stride(0),
        k.stride(1),
        k.stride(2),
        v.stride(0),
        v.stride(1),
        v.stride(2),
        idx.stride(0),
        idx.stride(1),
        op.stride(0),
        op.stride(1),
        op.stride(3),
        lse.stride(0),
        lse.stride(1),
        n_sel,
        per_split,
        kv_len,
        group,
        scale * LOG2E,
        BLOCK_SIZE=block_size,
        BLOCK_H=block_h,
        BLOCK_N=block_n,
        D=d,
        DV=d_v,
        BD=_p2(d),
        BDV=_p2(d_v),
        **kwargs,
    )
    out = torch.empty(b, 1, hq, d_v, device=q.device, dtype=q.dtype)
    _combine(op, lse, out, num_splits, hq)
    return out
