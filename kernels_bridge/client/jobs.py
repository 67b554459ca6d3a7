"""Building a kernel sweep job and writing its rows as CSV. Pure Python, no torch, no Qt.

Shared by `workbench kernels` and the desktop app's Kernels tab, so both pick the same defaults
for a device and write the same CSV (`protocol.RESULT_COLUMNS`).
"""

from __future__ import annotations

import csv
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernels_bridge.protocol import RESULT_COLUMNS, Hello, ResultRow, Run
from workbench.core.foundation.csv_cells import inert


@dataclass(frozen=True)
class DeviceDefaults:
    """What a sweep uses when the user leaves a choice open, per kind of device."""

    kv_lens: tuple[int, ...]
    batch: int
    dtype: str
    warmup: int
    iters: int


# The CPU reference is slow and times with the wall clock: small, short, fp32 (no bf16 speed-up).
CPU_DEFAULTS = DeviceDefaults(kv_lens=(1024, 4096), batch=1, dtype="fp32", warmup=1, iters=5)
GPU_DEFAULTS = DeviceDefaults(kv_lens=(4096, 16384), batch=128, dtype="bf16", warmup=5, iters=30)


def defaults_for(on_cpu: bool) -> DeviceDefaults:
    return CPU_DEFAULTS if on_cpu else GPU_DEFAULTS


def target_device(hello: Hello, requested: str = "auto") -> str:
    """The device a job will run on: the requested one, or the worker's default for "auto"."""
    return hello.default_device if requested == "auto" else requested


def new_job_id() -> str:
    return uuid.uuid4().hex[:12]


def build_run(
    variants: list[str],
    backends: list[str],
    *,
    on_cpu: bool,
    kv_lens: list[int] | None = None,
    batch: int | None = None,
    q_len: int = 1,
    dtype: str | None = None,
    warmup: int | None = None,
    iters: int | None = None,
    device: str = "auto",
    shapes: dict[str, dict[str, Any]] | None = None,
    check: bool = False,
    gpu_profile: str | None = None,
    job_id: str | None = None,
) -> Run:
    """A Run message; every choice left as None takes the device's default (`defaults_for`)."""
    d = defaults_for(on_cpu)
    return Run(
        job_id=job_id or new_job_id(),
        variants=list(variants),
        kv_lens=list(kv_lens or d.kv_lens),
        batches=[batch or d.batch],
        q_lens=[q_len],
        dtypes=[dtype or d.dtype],
        backends=list(backends),
        warmup=warmup if warmup is not None else d.warmup,
        iters=iters if iters is not None else d.iters,
        device=device,
        shapes=dict(shapes or {}),
        check=check,
        gpu_profile=gpu_profile,
    )


def _numeric(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def write_rows_csv(path: Path | str, rows: Iterable[ResultRow]) -> int:
    """Write RESULT_COLUMNS and one line per row; returns the number of rows written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(RESULT_COLUMNS)
        for r in rows:
            # a worker's error text or device name is no formula in a spreadsheet
            w.writerow([inert(v) if v and not _numeric(v) else v for v in r.csv_values()])
            count += 1
    return count
