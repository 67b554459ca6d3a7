"""Measured kernel timings for the built-in provider: named presets and per-model shapes.

`--kernel-csv` takes a path to a kernel CSV or the name of a preset shipped with the app
(`h200`: benchmarks/gpu_decode.py's sweep on one H200, resources/kernels/h200_decode.csv).
`model_sweep_shapes()` lists each simulated model's per-device attention shape, the `model`
set of that sweep (kernels_bridge/shape_sets.py), so each model finds the kernel of its own
shape in the CSV.
"""

from __future__ import annotations

from pathlib import Path

from kernels_bridge.shape_sets import SweepShape, per_device_shape
from workbench.core.models.catalog import Catalog, load_catalog
from workbench.resources import resource

PRESETS: dict[str, str] = {"h200": "kernels/h200_decode.csv"}


def resolve_kernel_csv(value: str) -> Path:
    """A preset's shipped CSV, or `value` as a path (checked by the caller when opened)."""
    name = value.strip().lower()
    if name in PRESETS:
        return resource(PRESETS[name])
    return Path(value).expanduser()


def model_sweep_shapes(catalog: Catalog | None = None) -> list[SweepShape]:
    """One entry per simulated model: its shape as one device of its deployment holds it."""
    cat = catalog or load_catalog()
    out = []
    for model in cat.simulated():
        assert model.deployment is not None  # simulated() lists deployed models only
        shape = per_device_shape(model.shape, model.deployment.tensor_parallel)
        out.append(SweepShape(model.shape.kind.lower(), shape, (model.id,)))
    return out
