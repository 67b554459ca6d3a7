"""The local provider's per-token time from a kernel CSV's measured latencies (issue 5, item 7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kernels_bridge.analytic import decode_step
from kernels_bridge.client.jobs import write_rows_csv
from kernels_bridge.protocol import ResultRow
from workbench.core.models.catalog import Catalog, ModelInfo, load_catalog
from workbench.local.costmodel import STEP_OVERHEAD_S, SimSettings, SimTiming

REPO = Path(__file__).resolve().parents[1]
# One layer's gqa decode attention, batch 1: 10 us at 1K, 200 us at 32K (deliberately far from
# the roofline, so the change is visible).
LAT_US = {1024: 10.0, 32768: 200.0}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _model(catalog: Catalog, model_id: str) -> ModelInfo:
    model = catalog.get(model_id)
    assert model is not None
    return model


@pytest.fixture()
def kernel_csv(tmp_path: Path) -> Path:
    rows = [
        ResultRow("gqa", "torch", "H200", "bf16", 1, kv, 1, latency_us=us)
        for kv, us in LAT_US.items()
    ]
    # A slower backend at the same point (the fastest is kept) and a failed row (left out).
    rows.append(ResultRow("gqa", "slow", "H200", "bf16", 1, 1024, 1, latency_us=999.0))
    rows.append(ResultRow("mla", "torch", "H200", "bf16", 1, 1024, 1, error="OOM"))
    path = tmp_path / "h200.csv"
    write_rows_csv(path, rows)
    return path


def test_gqa_twin_uses_measured_attention(catalog: Catalog, kernel_csv: Path):
    gqa = _model(catalog, "sim-70b-gqa")
    analytic = SimTiming(gqa)
    measured = SimTiming(gqa, SimSettings(kernel_csv=str(kernel_csv)))
    assert analytic.timing_source == "analytic"
    # this CSV has no shape column: the variant's rows stand for every gqa model
    assert measured.timing_source == "measured: h200.csv (the gqa default shape)"

    layers = gqa.shape.layers
    d, profile = measured.deployment, measured.deployment.profile
    for kv, us in LAT_US.items():
        step = decode_step(gqa.shape, gqa.active_params, d, kv, total_params=gqa.total_params)
        weights_s = max(
            step.weight_bytes / (profile.mem_bandwidth_tbs * 1e12),
            step.dense_flops / (profile.peak_bf16_tflops * 1e12),
        )
        comm = analytic._comm_s()
        expected = weights_s + layers * us * 1e-6 + STEP_OVERHEAD_S + comm
        assert measured.token_interval_s(kv, 0) == pytest.approx(expected)
        # Measured attention is slower than the analytic KV read here, so the interval grows.
        assert measured.token_interval_s(kv, 0) > analytic.token_interval_s(kv, 0)

    # Growth from 1K to 32K is exactly what the CSV implies: layers x (200 - 10) us.
    growth = measured.token_interval_s(32768, 0) - measured.token_interval_s(1024, 0)
    assert growth == pytest.approx(layers * (200.0 - 10.0) * 1e-6)
    # Interpolated in between (linear in KV length).
    mid = measured.token_interval_s(16896, 0) - measured.token_interval_s(1024, 0)
    assert mid == pytest.approx(growth / 2)


def test_variant_missing_from_csv_stays_analytic(catalog: Catalog, kernel_csv: Path):
    mla = _model(catalog, "sim-70b-mla")
    plain = SimTiming(mla)
    with_csv = SimTiming(mla, SimSettings(kernel_csv=str(kernel_csv)))
    assert with_csv.timing_source == "analytic"
    for kv in (1024, 32768):
        assert with_csv.token_interval_s(kv, 0) == plain.token_interval_s(kv, 0)


def test_unreadable_csv_raises_value_error(catalog: Catalog, tmp_path: Path):
    gqa = _model(catalog, "sim-70b-gqa")
    with pytest.raises(ValueError, match="cannot read kernel CSV"):
        SimTiming(gqa, SimSettings(kernel_csv=str(tmp_path / "missing.csv")))
    empty = tmp_path / "empty.csv"
    write_rows_csv(empty, [ResultRow("gqa", "torch", "H200", "bf16", 1, 1024, 1, error="x")])
    with pytest.raises(ValueError, match="no usable rows"):
        SimTiming(gqa, SimSettings(kernel_csv=str(empty)))


def test_serve_local_with_missing_csv_exits_2(tmp_path: Path):
    missing = tmp_path / "missing.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "serve-local", "--kernel-csv", str(missing)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert "cannot read kernel CSV" in proc.stderr and "missing.csv" in proc.stderr
    assert "listening" not in proc.stdout
