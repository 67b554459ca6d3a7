"""A kernel CSV loaded into the Kernels tab (no torch): its rows, the shapes they timed and
which of them the charts draw.

The CSV is what `workbench kernels --csv` or benchmarks/gpu_decode.py wrote
(`protocol.RESULT_COLUMNS`); one written before the `shape` and `rel_err` columns existed
loads too (its rows time each variant's default shape). A shape key
(`kernels_bridge.shape_sets.shape_key`) is named by the models it stands for: from the sweep's
JSON beside the CSV (`gpu_decode.json` beside `gpu_decode.csv`), else from the same shape sets
the sweep measures (the 70B twins, the default shapes and the catalog's simulated models).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from kernels_bridge.analytic import HardwareProfile, get_profile, profile_for_device
from kernels_bridge.bench_rows import analytic_row
from kernels_bridge.protocol import RESULT_COLUMNS, ResultRow
from kernels_bridge.shape_sets import SweepShape, default_set, merged, shape_key, twin_set
from kernels_bridge.specs import DEFAULT_SHAPES, DTYPES, shape_to_dict
from workbench.local.kernel_preset import model_sweep_shapes

MAX_CSV_BYTES = 8 * 1024 * 1024  # a full sweep is ~60 KB; refuse rather than freeze the tab
REQUIRED_COLUMNS = (
    "variant", "backend", "device", "dtype", "batch", "kv_len", "q_len",
    "latency_us", "achieved_gbps", "error",
)  # fmt: skip
_INTS = {"batch", "kv_len", "q_len", "kv_bytes_per_token"}
_FLOATS = {"bytes", "flops"}
_OPTIONAL_FLOATS = {
    "latency_us", "achieved_gbps", "achieved_tflops", "roofline_us", "frac_peak_bw",
    "frac_peak_tflops", "max_abs_err", "rel_err",
}  # fmt: skip
Series = dict[str, list[tuple[int, float]]]
translate = QCoreApplication.translate


class KernelCsvError(ValueError):
    """A file that cannot be shown: the message names the file, the cause and the fix, in the
    UI's language whenever it is read (`compose`, again after a language switch)."""

    def __init__(self, compose: Callable[[], str]) -> None:
        super().__init__()
        self.compose = compose

    def __str__(self) -> str:
        return self.compose()


def _fix() -> str:
    return translate(
        "KernelCsv",
        "Fix: open a CSV written by `workbench kernels --csv` or benchmarks/gpu_decode.py.",
    )


@dataclass(frozen=True)
class ShapeEntry:
    """One choice of the shape combo: its label and, per variant drawn, the shape key."""

    label: str
    keys: dict[str, str]


@dataclass(frozen=True)
class Drawing:
    """What the Kernels charts draw: measured rows, roofline, KV bytes per token."""

    rows: list[ResultRow]
    roofline: Series
    kv_bytes: dict[str, int]
    kv_lens: list[int]
    cpu: bool  # wall-clock rows of the CPU reference
    shapes: str = ""  # which model shapes the KV bars are of (their bytes differ by shape)


@dataclass
class LoadedCsv:
    path: Path
    rows: list[ResultRow]
    shapes: dict[str, SweepShape] = field(default_factory=dict)  # shape key -> names, shape

    @property
    def device(self) -> str:
        return next((r.device for r in self.rows if r.device), "")

    def profile(self) -> HardwareProfile | None:
        """The roofline's profile: the one of the CSV's device ("NVIDIA H200" -> H200), else
        the profile the rows name."""
        found = profile_for_device(self.device) if self.device else None
        named = next((r.profile for r in self.rows if r.profile), "")
        if found is None and named:
            try:
                found = get_profile(named)
            except ValueError:  # a profile this app does not know
                return None
        return found

    def batches(self) -> list[int]:
        return sorted({r.batch for r in self.rows})

    def keys_by_variant(self) -> dict[str, list[str]]:
        out: dict[str, set[str]] = {}
        for r in self.rows:
            out.setdefault(r.variant, set()).add(r.shape)
        return {v: sorted(keys) for v, keys in out.items()}

    def label(self, key: str) -> str:
        known = self.shapes.get(key)
        return f"{', '.join(known.names)} ({key})" if known and known.names else key

    def shape_entries(self) -> list[ShapeEntry]:
        """The 70B twins first (each variant's default shape where it has no twin), then the
        default shapes, then each shape alone; one entry when no variant has two shapes."""
        by_variant = self.keys_by_variant()
        defaults = {
            v: shape_key(dataclasses.replace(s, layers=1)) for v, s in DEFAULT_SHAPES.items()
        }
        if all(len(keys) == 1 for keys in by_variant.values()):
            return [
                ShapeEntry(
                    translate("KernelCsv", "one shape per variant"),
                    {v: k[0] for v, k in by_variant.items()},
                )
            ]
        twins = {t.variant: t.key for t in twin_set()}
        entries = []
        if any(twins.get(v) in keys for v, keys in by_variant.items()):
            picked = {
                v: _pick(keys, twins.get(v), defaults.get(v)) for v, keys in by_variant.items()
            }
            entries.append(ShapeEntry(translate("KernelCsv", "70B twins (sim-70b-*)"), picked))
        picked = {v: _pick(keys, defaults.get(v)) for v, keys in by_variant.items()}
        entries.append(ShapeEntry(translate("KernelCsv", "default shapes (default-*)"), picked))
        for v, keys in by_variant.items():
            entries += [ShapeEntry(self.label(k) or v, {v: k}) for k in keys]
        return entries

    def backends(self) -> list[str]:
        return sorted({r.backend for r in self.rows})

    def drawn_rows(
        self, entry: ShapeEntry, batch: int, variants: list[str], backend: str = ""
    ) -> list[ResultRow]:
        """The rows of the chosen shapes at `batch`, for the variants ticked in the tab, of
        one backend ("" = every backend)."""
        return [
            r
            for r in self.rows
            if r.batch == batch
            and r.variant in variants
            and entry.keys.get(r.variant) == r.shape
            and backend in ("", r.backend)
        ]

    def drawing(
        self,
        entry: ShapeEntry,
        batch: int,
        variants: list[str],
        profile: HardwareProfile,
        backend: str = "",
    ) -> Drawing:
        """The chosen shapes at `batch` over their roofline on `profile`; the KV bytes per
        token of the shapes drawn (not of the default shapes)."""
        rows = self.drawn_rows(entry, batch, variants, backend)
        return Drawing(
            rows,
            self.roofline(entry, batch, variants, profile),
            {r.variant: r.kv_bytes_per_token for r in rows if r.kv_bytes_per_token},
            sorted({r.kv_len for r in rows}),
            any(r.timing == "wall-clock" for r in rows),
            entry.label,
        )

    def roofline(
        self, entry: ShapeEntry, batch: int, variants: list[str], profile: HardwareProfile
    ) -> Series:
        """variant -> [(KV length, roofline µs)] of the chosen shape on `profile` at the CSV's
        KV lengths; a shape the app does not know keeps the roofline the CSV carries."""
        out: Series = {}
        for r in self.drawn_rows(entry, batch, variants):
            known = self.shapes.get(r.shape)
            if r.shape and known is None:
                value = r.roofline_us
            else:
                shapes = {r.variant: shape_to_dict(known.shape)} if known else None
                dtype = r.dtype if r.dtype in DTYPES else "bf16"
                row = analytic_row(r.variant, dtype, batch, r.kv_len, r.q_len, profile, shapes)
                value = row.roofline_us
            points = out.setdefault(r.variant, [])
            if value and all(kv != r.kv_len for kv, _ in points):
                points.append((r.kv_len, value))
        for points in out.values():
            points.sort()
        return out


def _pick(keys: list[str], *preferred: str | None) -> str:
    """The first preferred key the CSV has; an old CSV's "" (the default shape); else the first."""
    for key in (*preferred, ""):
        if key in keys:
            return key
    return keys[0]


def load_kernel_csv(path: Path) -> LoadedCsv:
    """The CSV's rows and the names of its shapes; KernelCsvError with the cause and the fix."""
    rows = read_rows(path)
    return LoadedCsv(path, rows, known_shapes(path, {r.shape for r in rows if r.shape}))


def read_rows(path: Path) -> list[ResultRow]:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise KernelCsvError(
                lambda: translate("KernelCsv", "%1 is not a regular file.").replace("%1", str(path))
            )
        if info.st_size > MAX_CSV_BYTES:
            raise KernelCsvError(
                lambda: (
                    translate("KernelCsv", "%1 is over %2 MiB: not a kernel CSV. %3")
                    .replace("%1", str(path))
                    .replace("%2", str(MAX_CSV_BYTES // 2**20))
                    .replace("%3", _fix())
                )
            )
        with path.open(newline="", encoding="utf-8-sig") as f:
            return _parse(path, csv.DictReader(f))
    except UnicodeDecodeError:
        raise KernelCsvError(
            lambda: (
                translate("KernelCsv", "%1 is not UTF-8 text. %2")
                .replace("%1", str(path))
                .replace("%2", _fix())
            )
        ) from None
    except (OSError, csv.Error) as exc:
        why = str(exc)
        raise KernelCsvError(
            lambda: (
                translate("KernelCsv", "%1 could not be read: %2")
                .replace("%1", str(path))
                .replace("%2", why)
            )
        ) from None


def _parse(path: Path, reader: csv.DictReader[str]) -> list[ResultRow]:
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise KernelCsvError(
            lambda: (
                translate("KernelCsv", "%1 is not a kernel CSV: the column(s) %2 are missing. %3")
                .replace("%1", str(path))
                .replace("%2", ", ".join(missing))
                .replace("%3", _fix())
            )
        )
    columns = [c for c in RESULT_COLUMNS if c in (reader.fieldnames or [])]
    rows = []
    for record in reader:
        values: dict[str, object] = {}
        for name in columns:
            text = (record.get(name) or "").strip()
            try:
                values[name] = _value(name, text)
            except ValueError:
                raise _not_a_number(path, reader.line_num, name, text) from None
        rows.append(ResultRow.from_dict(values))
    if not rows:
        raise KernelCsvError(
            lambda: (
                translate("KernelCsv", "%1 has the kernel CSV's columns but no rows. %2")
                .replace("%1", str(path))
                .replace("%2", _fix())
            )
        )
    return rows


def _not_a_number(path: Path, line: int, column: str, text: str) -> KernelCsvError:
    """A cell that should hold a number; its line, column and (cut) text are kept as read."""
    return KernelCsvError(
        lambda: (
            translate("KernelCsv", "%1, line %2: %3 is %4, not a number. %5")
            .replace("%1", str(path))
            .replace("%2", str(line))
            .replace("%3", column)
            .replace("%4", repr(text[:40]))
            .replace("%5", _fix())
        )
    )


def _value(name: str, text: str) -> object:
    if name in _INTS:
        return int(text) if text else 0
    if name in _FLOATS:
        return float(text) if text else 0.0
    if name in _OPTIONAL_FLOATS:
        return float(text) if text else None
    return text


def known_shapes(csv_path: Path, keys: set[str]) -> dict[str, SweepShape]:
    """Shape key -> its shape and model names: the sweep's JSON beside the CSV when it lists
    them all, else the shape sets the sweep measures."""
    try:
        data = json.loads(csv_path.with_suffix(".json").read_text(encoding="utf-8"))
        listed = [SweepShape.from_dict(d) for d in data["shapes"]]
        if keys <= {s.key for s in listed}:
            return {s.key: s for s in listed}
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no JSON, or not the sweep's: the names below come from the same shape sets
    sets = [twin_set(), default_set()]
    try:
        sets.append(model_sweep_shapes())
    except (OSError, ValueError):
        pass  # an unreadable catalog: the twins and defaults still name their shapes
    return {s.key: s for s in merged(*sets)}
