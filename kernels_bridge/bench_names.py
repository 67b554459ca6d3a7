"""Backend names, importable without torch (the worker's hello when torch is missing)."""

from __future__ import annotations

BACKENDS: tuple[str, ...] = (
    "reference",
    "triton",
    "torch-sdpa",
    "flash-attn",
    "flashinfer",
    "flashmla",
)
