"""The per-device attention shapes a kernel sweep measures, and the key that names each (no torch).

A kernel benchmark times one layer on one device, so a model's shape is measured as one device
holds it under its tensor-parallel degree: its q heads split T ways, its K/V (or latent) heads
split as variants.kv_heads_per_device says (MLA's latent replicated). `shape_key` names such a
shape in the kernel CSV's `shape` column; the built-in provider looks a simulated model up by
the same key (workbench/local/kernel_preset.py), so a model is timed by the kernel of its own
shape when the CSV has it.

Three sets:
- `default`: specs.DEFAULT_SHAPES, the shapes `workbench kernels` uses;
- `twin`: the 70B twins (80 layers, 64 q heads of 128, bf16 at tensor parallel 2) in all
  eight variants, resources/models.toml's sim-70b-*: MHA, MQA, GQA-8, GTA-8, MLA, GLA-2, and
  NSA and MoBA on the GQA-8 layout;
- `model`: every simulated model of the catalog at its own deployment (built from the catalog
  on the client side; benchmarks/gpu_decode_shapes.json holds the list for a GPU machine).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kernels_bridge.specs import DEFAULT_SHAPES, shape_from_dict, shape_to_dict
from kernels_bridge.variants import AttentionShape, kv_heads_per_device, q_heads_per_device

TWIN_TENSOR_PARALLEL = 2
# The 70B twins' whole-model shapes (resources/models.toml's sim-70b-*); GTA's tied state keeps
# GQA-8's head count.
TWIN_SHAPES: dict[str, AttentionShape] = {
    "mha": AttentionShape("MHA", 80, 64, 64, 128),
    "mqa": AttentionShape("MQA", 80, 64, 1, 128),
    "gqa": AttentionShape("GQA", 80, 64, 8, 128),
    "gta": AttentionShape("GTA", 80, 64, 8, 128, rope_dim=64),
    "mla": AttentionShape("MLA", 80, 64, 1, 128, latent_dim=512, rope_dim=64),
    "gla": AttentionShape("GLA", 80, 64, 2, 128, latent_dim=256, rope_dim=64),
    "nsa": AttentionShape("NSA", 80, 64, 8, 128),
    "moba": AttentionShape("MoBA", 80, 64, 8, 128),
}


@dataclasses.dataclass(frozen=True)
class SweepShape:
    """One per-device shape to measure and the names it stands for ("sim-70b-gqa", …)."""

    variant: str
    shape: AttentionShape
    names: tuple[str, ...]

    @property
    def key(self) -> str:
        return shape_key(self.shape)

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "names": list(self.names),
            "shape": shape_to_dict(self.shape),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepShape:
        return cls(str(data["variant"]), shape_from_dict(data["shape"]), tuple(data["names"]))


def per_device_shape(shape: AttentionShape, tensor_parallel: int) -> AttentionShape:
    """One layer of `shape` as one device of a tensor-parallel group holds it."""
    q = q_heads_per_device(shape, tensor_parallel)
    kv = kv_heads_per_device(shape, tensor_parallel)
    if shape.kind == "MHA":
        kv = q
    # a head count the degree does not divide leaves q a non-multiple of kv: keep the group whole
    if q % kv:
        q = kv * -(-q // kv)
    return dataclasses.replace(shape, layers=1, q_heads=q, kv_heads=kv)


def shape_key(shape: AttentionShape) -> str:
    """A stable name of what a decode kernel sees: kind, heads, widths, sparsity settings."""
    parts = [shape.kind.lower(), f"q{shape.q_heads}", f"kv{shape.kv_heads}"]
    if shape.kind in ("MLA", "GLA"):
        parts.append(f"c{shape.latent_dim}+r{shape.rope_dim}")
    else:
        parts.append(f"d{shape.head_dim}")
        if shape.v_head_dim is not None and shape.v_head_dim != shape.head_dim:
            parts.append(f"v{shape.v_head_dim}")
    if shape.kind == "GTA":
        parts.append(f"r{shape.rope_dim}")
    if shape.kind == "NSA":
        s = shape
        parts.append(
            f"nsa{s.nsa_block}/{s.nsa_stride}/{s.nsa_select_block}x{s.nsa_selected}/w{s.nsa_window}"
        )
    if shape.kind == "MoBA":
        parts.append(f"moba{shape.moba_block}x{shape.moba_top_k}")
    return ":".join(parts)


def default_set() -> list[SweepShape]:
    return [
        SweepShape(v, dataclasses.replace(s, layers=1), (f"default-{v}",))
        for v, s in DEFAULT_SHAPES.items()
    ]


def twin_set() -> list[SweepShape]:
    return [
        SweepShape(v, per_device_shape(s, TWIN_TENSOR_PARALLEL), (f"sim-70b-{v}",))
        for v, s in TWIN_SHAPES.items()
    ]


def merged(*sets: list[SweepShape]) -> list[SweepShape]:
    """The shapes of all sets in order, one entry per key, carrying every name it stands for."""
    out: dict[str, SweepShape] = {}
    for entries in sets:
        for entry in entries:
            seen = out.get(entry.key)
            if seen is None:
                out[entry.key] = entry
            else:
                names = seen.names + tuple(n for n in entry.names if n not in seen.names)
                out[entry.key] = dataclasses.replace(seen, names=names)
    return list(out.values())
