"""FlashInfer, flash-attn and FlashMLA adapters: on only when importable on a CUDA device.

Written against their public APIs (flash_attn.flash_attn_with_kvcache; flashinfer's
BatchDecodeWithPagedKVCacheWrapper with one page per sequence; flash_mla's get_mla_metadata +
flash_mla_with_kvcache on 64-token pages). They run only on a GPU box and have not been run in
CI; when a call fails the row carries the error and the sweep goes on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import torch

from kernels_bridge.worker.reference import DecodeInputs


def _import(module: str) -> tuple[Any | None, str | None]:
    try:
        return importlib.import_module(module), None
    except Exception as exc:  # ImportError, or a CUDA/ABI error while loading
        return None, f"{module} is not importable ({type(exc).__name__}: {exc})"[:300]


def _need_cuda(device_kind: str, module: str) -> str | None:
    if device_kind != "cuda":
        return f"{module} needs a CUDA device"
    return _import(module)[1]


# --- flash-attn -------------------------------------------------------------------------------


def flash_attn_availability(device_kind: str) -> str | None:
    return _need_cuda(device_kind, "flash_attn")


def flash_attn_prepare(inp: DecodeInputs) -> Callable[[], torch.Tensor]:
    kind = inp.shape.kind
    if kind not in ("MHA", "MQA", "GQA"):
        raise NotImplementedError(f"flash-attn adapter covers MHA/MQA/GQA, not {kind}")
    if inp.q.dtype == torch.float32:
        raise NotImplementedError("flash-attn needs fp16 or bf16")
    mod, _ = _import("flash_attn")
    assert mod is not None
    k = inp["k"].transpose(1, 2)  # [B, L, H_kv, d] view: flash-attn's cache layout
    v = inp["v"].transpose(1, 2)
    seqlens = torch.full((inp.batch,), inp.kv_len, dtype=torch.int32, device=inp.q.device)
    q, scale = inp.q, inp.scale

    def run() -> torch.Tensor:
        return mod.flash_attn_with_kvcache(
            q, k, v, cache_seqlens=seqlens, softmax_scale=scale, causal=True
        )

    return run


# --- FlashInfer -------------------------------------------------------------------------------


def flashinfer_availability(device_kind: str) -> str | None:
    return _need_cuda(device_kind, "flashinfer")


def flashinfer_prepare(inp: DecodeInputs) -> Callable[[], torch.Tensor]:
    kind = inp.shape.kind
    if kind not in ("MHA", "MQA", "GQA"):
        raise NotImplementedError(f"flashinfer adapter covers MHA/MQA/GQA, not {kind}")
    if inp.q_len != 1:
        raise NotImplementedError("flashinfer decode wrapper takes q_len 1")
    fi, _ = _import("flashinfer")
    assert fi is not None
    dev = inp.q.device
    b, L = inp.batch, inp.kv_len
    hq, hkv, d = inp.shape.q_heads, inp.shape.kv_heads, inp.shape.head_dim
    # one page per sequence, HND: k [B, H_kv, L, d] is [pages, heads, page_size, d]
    workspace = torch.empty(128 * 1024 * 1024, dtype=torch.uint8, device=dev)
    wrapper = fi.BatchDecodeWithPagedKVCacheWrapper(workspace, "HND")
    indptr = torch.arange(b + 1, dtype=torch.int32, device=dev)
    indices = torch.arange(b, dtype=torch.int32, device=dev)
    last = torch.full((b,), L, dtype=torch.int32, device=dev)
    wrapper.plan(
        indptr,
        indices,
        last,
        hq,
        hkv,
        d,
        L,
        sm_scale=inp.scale,
        q_data_type=inp.q.dtype,
        kv_data_type=inp["k"].dtype,
    )
    q = inp.q[:, 0].contiguous()
    kv = (inp["k"], inp["v"])

    def run() -> torch.Tensor:
        return wrapper.run(q, kv)

    return run


# --- FlashMLA ---------------------------------------------------------------------------------


def flashmla_availability(device_kind: str) -> str | None:
    return _need_cuda(device_kind, "flash_mla")


def flashmla_prepare(inp: DecodeInputs) -> Callable[[], torch.Tensor]:
    shape = inp.shape
    if shape.kind != "MLA" or shape.latent_dim != 512 or shape.rope_dim != 64:
        raise NotImplementedError("FlashMLA covers MLA with a 512 + 64 latent only")
    if inp.q.dtype != torch.bfloat16 or inp.kv_len % 64:
        raise NotImplementedError("FlashMLA needs bf16 and a KV length that is a multiple of 64")
    fm, _ = _import("flash_mla")
    assert fm is not None
    dev = inp.q.device
    b, L = inp.batch, inp.kv_len
    page = 64
    kcache = inp["latent"].reshape(b * L // page, page, 1, 576)  # [B,1,L,576] is contiguous
    block_table = torch.arange(b * L // page, dtype=torch.int32, device=dev).view(b, L // page)
    seqlens = torch.full((b,), L, dtype=torch.int32, device=dev)
    meta, splits = fm.get_mla_metadata(seqlens, inp.q_len * shape.q_heads, 1)
    q = inp.q

    def run() -> torch.Tensor:
        out, _lse = fm.flash_mla_with_kvcache(
            q,
            kcache,
            block_table,
            seqlens,
            512,
            meta,
            splits,
            softmax_scale=inp.scale,
            causal=True,
        )
        return out

    return run
