"""Analytic result rows (no torch): what `workbench kernels --analytic` prints."""

from __future__ import annotations

from typing import Any

from kernels_bridge.analytic import HardwareProfile, roofline_seconds
from kernels_bridge.protocol import ResultRow
from kernels_bridge.specs import DTYPES, shape_for
from kernels_bridge.variants import decode_bytes_and_flops, kv_bytes_per_token_per_layer


def analytic_row(
    variant: str,
    dtype: str,
    batch: int,
    kv_len: int,
    q_len: int,
    profile: HardwareProfile | None,
    shapes: dict[str, dict[str, Any]] | None = None,
    backend: str = "analytic",
    device: str = "",
) -> ResultRow:
    """A row with bytes, FLOPs, KV bytes/token (one layer) and the roofline on `profile`."""
    shape = shape_for(variant, shapes)
    elem = DTYPES[dtype]
    cost = decode_bytes_and_flops(shape, batch, kv_len, q_len, elem, layers=1)
    row = ResultRow(
        variant, backend, device or (profile.key if profile else ""), dtype, batch, kv_len, q_len
    )
    row.kv_bytes_per_token = kv_bytes_per_token_per_layer(shape, elem)
    row.bytes, row.flops = cost.bytes, cost.flops
    if profile is not None:
        row.profile = profile.key
        row.roofline_us = roofline_seconds(cost.bytes, cost.flops, profile) * 1e6
    return row
