"""Default per-variant shapes of the kernel benchmark (one layer each), pure Python.

The shapes follow docs/attention.md's benchmark settings: GQA 32 q / 8 kv heads of 128 (Llama-3-8B),
MLA 128 q heads on one 512 + 64 latent (DeepSeek-V3, FlashMLA's test), GLA-2 (2 latent heads
of 256 + 64 RoPE, 128 q heads: the GLA paper's benchmark), NSA 64 q / 4 kv heads (the NSA
paper's 27B model) and MoBA on the GQA layout (block 512, top-k 3). docs/kernels.md lists them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kernels_bridge.variants import AttentionShape

VARIANTS: tuple[str, ...] = ("mha", "mqa", "gqa", "gta", "mla", "gla", "nsa", "moba")

DEFAULT_SHAPES: dict[str, AttentionShape] = {
    "mha": AttentionShape("MHA", 1, 32, 32, 128),
    "mqa": AttentionShape("MQA", 1, 32, 1, 128),
    "gqa": AttentionShape("GQA", 1, 32, 8, 128),
    "gta": AttentionShape("GTA", 1, 32, 8, 128, rope_dim=64),
    "mla": AttentionShape("MLA", 1, 128, 1, 128, latent_dim=512, rope_dim=64),
    "gla": AttentionShape("GLA", 1, 128, 2, 128, latent_dim=256, rope_dim=64),
    "nsa": AttentionShape("NSA", 1, 64, 4, 128),
    "moba": AttentionShape("MoBA", 1, 32, 8, 128),
}

DTYPES: dict[str, int] = {"fp32": 4, "fp16": 2, "bf16": 2}
_DTYPE_ALIASES = {
    "float32": "fp32",
    "float": "fp32",
    "f32": "fp32",
    "float16": "fp16",
    "half": "fp16",
    "f16": "fp16",
    "bfloat16": "bf16",
}


def canonical_dtype(name: str) -> str:
    """'bfloat16' -> 'bf16'; raises ValueError on an unknown name."""
    key = _DTYPE_ALIASES.get(name.lower(), name.lower())
    if key not in DTYPES:
        raise ValueError(f"unknown dtype {name!r}; expected one of {', '.join(DTYPES)}")
    return key


def canonical_variant(name: str) -> str:
    key = name.lower()
    if key not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; expected one of {' '.join(VARIANTS)}")
    return key


def shape_to_dict(shape: AttentionShape) -> dict[str, Any]:
    return dataclasses.asdict(shape)


def shape_from_dict(data: dict[str, Any]) -> AttentionShape:
    """An AttentionShape from a JSON object; unknown fields are an error (ValueError)."""
    fields = {f.name for f in dataclasses.fields(AttentionShape)}
    unknown = sorted(set(data) - fields)
    if unknown:
        raise ValueError(f"unknown shape field(s): {', '.join(unknown)}")
    try:
        return AttentionShape(**data)
    except TypeError as exc:
        raise ValueError(f"bad shape: {exc}") from exc


def with_q_heads(shape: AttentionShape, q_heads: int) -> AttentionShape:
    """The shape with `q_heads` query heads (MHA keeps kv == q; others keep their kv heads)."""
    if shape.kind == "MHA":
        return dataclasses.replace(shape, q_heads=q_heads, kv_heads=q_heads)
    return dataclasses.replace(shape, q_heads=q_heads)


def shape_for(variant: str, overrides: dict[str, dict[str, Any]] | None = None) -> AttentionShape:
    """The shape a job uses for `variant`: an override from the run message, else the default."""
    key = canonical_variant(variant)
    if overrides and key in overrides:
        shape = shape_from_dict(overrides[key])
        expected = DEFAULT_SHAPES[key].kind
        if shape.kind != expected:
            raise ValueError(f"shape for {key} has kind {shape.kind}, expected {expected}")
        return shape
    return DEFAULT_SHAPES[key]
