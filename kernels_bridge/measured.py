"""Measured decode-attention latencies from a kernel CSV, for the simulated models (no torch).

`load_measured_latencies(path)` reads the CSV `workbench kernels` or benchmarks/gpu_decode.py
wrote; `MeasuredTimings.latency_s(variant, kv_len, batch)` interpolates it: linearly in KV
length between measured points (and linearly extrapolated beyond them from the two nearest,
since decode latency is affine in the bytes read), then linearly in batch between the two
measured batches around the asked one (the nearest batch outside the measured range, scaled by
batch / measured batch). Rows with an error, and rows with q_len != 1 (unless asked), are left
out; where several backends measured the same point the fastest is kept (what a serving stack
would pick) unless `backend` is given. The value is one layer's attention time; a simulated
model multiplies by its layer count.

Shapes: a row's `shape` column (kernels_bridge/shape_sets.shape_key) names the per-device shape
it timed. `latency_s(..., shape=KEY)` uses that shape's rows when the CSV has them; the
variant's own rows are those of its default shape (specs.DEFAULT_SHAPES) or, in a CSV written
before the column existed, every row of the variant.
"""

from __future__ import annotations

import bisect
import csv
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from kernels_bridge.shape_sets import shape_key
from kernels_bridge.specs import DEFAULT_SHAPES


@dataclass
class MeasuredTimings:
    # (variant, batch) -> sorted [(kv_len, seconds)]: the variant's default shape
    points: dict[tuple[str, int], list[tuple[int, float]]] = field(default_factory=dict)
    # (shape key, batch) -> sorted [(kv_len, seconds)]: every shape the CSV names
    shape_points: dict[tuple[str, int], list[tuple[int, float]]] = field(default_factory=dict)
    device: str = ""
    source: str = ""

    def variants(self) -> list[str]:
        return sorted({v for v, _ in self.points})

    def has_shape(self, key: str) -> bool:
        return any(k == key for k, _ in self.shape_points)

    def latency_s(
        self, variant: str, kv_len: int, batch: int = 1, shape: str | None = None
    ) -> float:
        """Interpolated seconds of one layer's decode attention: of `shape` when the CSV
        measured it, else of the variant's default shape; KeyError if never measured."""
        table = self.points
        key = variant.lower()
        if shape is not None and self.has_shape(shape):
            table, key = self.shape_points, shape
        batches = sorted(b for k, b in table if k == key)
        if not batches:
            raise KeyError(f"no measured latencies for {variant!r} in {self.source or 'the CSV'}")
        if batch in batches:
            return _in_kv(table[(key, batch)], kv_len)
        i = bisect.bisect_left(batches, batch)
        if i == 0 or i == len(batches):
            near = batches[0] if i == 0 else batches[-1]
            return _in_kv(table[(key, near)], kv_len) * batch / near
        lo, hi = batches[i - 1], batches[i]
        t_lo, t_hi = _in_kv(table[(key, lo)], kv_len), _in_kv(table[(key, hi)], kv_len)
        return t_lo + (t_hi - t_lo) * (batch - lo) / (hi - lo)


def _in_kv(pts: list[tuple[int, float]], kv_len: int) -> float:
    if len(pts) == 1:
        kv0, t0 = pts[0]
        return t0 * kv_len / kv0
    kvs = [p[0] for p in pts]
    i = bisect.bisect_left(kvs, kv_len)
    if i < len(kvs) and kvs[i] == kv_len:
        return pts[i][1]
    j = min(max(i, 1), len(pts) - 1)
    (k0, t0), (k1, t1) = pts[j - 1], pts[j]
    return max(0.0, t0 + (t1 - t0) * (kv_len - k0) / (k1 - k0))


def load_measured_latencies(
    csv_path: str | Path, *, backend: str | None = None, q_len: int = 1
) -> MeasuredTimings:
    """Parse a kernel CSV (columns of kernels_bridge.protocol.RESULT_COLUMNS)."""
    path = Path(csv_path)
    best: dict[tuple[str, str, int, int], float] = {}
    devices: set[str] = set()
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        needed = {"variant", "backend", "batch", "kv_len", "q_len", "latency_us", "error"}
        missing = needed - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: not a kernel CSV (missing {', '.join(sorted(missing))})")
        for row in reader:
            if row["error"] or not row["latency_us"]:
                continue
            if backend is not None and row["backend"] != backend:
                continue
            if int(row["q_len"]) != q_len:
                continue
            key = (
                row["variant"].lower(),
                row.get("shape") or "",
                int(row["batch"]),
                int(row["kv_len"]),
            )
            seconds = float(row["latency_us"]) / 1e6
            if key not in best or seconds < best[key]:
                best[key] = seconds
            devices.add(row.get("device", ""))
    if not best:
        raise ValueError(f"{path}: no usable rows (errors only, or no q_len {q_len} rows)")
    out = MeasuredTimings(device=", ".join(sorted(d for d in devices if d)), source=str(path))
    defaults = {v: shape_key(dataclasses.replace(d, layers=1)) for v, d in DEFAULT_SHAPES.items()}
    for (v, shape, b, kv), seconds in sorted(best.items()):
        if shape:
            out.shape_points.setdefault((shape, b), []).append((kv, seconds))
        if shape in ("", defaults.get(v)):
            out.points.setdefault((v, b), []).append((kv, seconds))
    return out
