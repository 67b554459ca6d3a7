"""The built-in provider's h200 kernel preset (issue 18): the measured CSV shipped with the app
times each simulated model by the kernel of its own per-device shape."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernels_bridge.analytic import decode_step
from kernels_bridge.shape_sets import merged, per_device_shape, shape_key, twin_set
from workbench.core.models.catalog import Catalog, load_catalog
from workbench.local.costmodel import STEP_OVERHEAD_S, SimSettings, SimTiming
from workbench.local.kernel_preset import model_sweep_shapes, resolve_kernel_csv

REPO = Path(__file__).resolve().parents[1]
SHAPES_JSON = REPO / "benchmarks" / "gpu_decode_shapes.json"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with resolve_kernel_csv("h200").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _fastest(rows: list[dict[str, str]], key: str, batch: int, kv: int) -> float:
    """Seconds of the fastest error-free backend at one point, read straight from the CSV."""
    times = [
        float(r["latency_us"]) / 1e6
        for r in rows
        if r["shape"] == key
        and int(r["batch"]) == batch
        and int(r["kv_len"]) == kv
        and not r["error"]
        and r["latency_us"]
    ]
    assert times, f"the preset has no usable row for {key} b{batch} kv{kv}"
    return min(times)


def test_the_preset_name_and_a_path_both_resolve(tmp_path: Path) -> None:
    shipped = resolve_kernel_csv("h200")
    assert shipped.is_file() and shipped.suffix == ".csv"
    assert resolve_kernel_csv("H200") == shipped
    assert resolve_kernel_csv(str(tmp_path / "mine.csv")) == tmp_path / "mine.csv"


def test_the_shape_list_on_the_gpu_machine_is_the_catalogs(catalog: Catalog) -> None:
    """The GPU machine reads the simulated models' shapes from a file (it has no app); that
    file must say what the catalog says now."""
    data = json.loads(SHAPES_JSON.read_text(encoding="utf-8"))
    assert data["model"] == [s.to_dict() for s in model_sweep_shapes(catalog)]


def test_every_simulated_model_on_an_h200_is_timed_by_its_own_kernel(
    catalog: Catalog, rows: list[dict[str, str]]
) -> None:
    on_h200 = [m for m in catalog.simulated() if m.deployment and m.deployment.gpu == "H200"]
    assert {"sim-70b-gqa", "sim-70b-mla", "sim-70b-gla", "sim-deepseek-v3"} <= {
        m.id for m in on_h200
    }
    for model in on_h200:
        assert model.deployment is not None
        key = shape_key(per_device_shape(model.shape, model.deployment.tensor_parallel))
        measured = SimTiming(model, SimSettings(kernel_csv="h200"))
        assert measured.timing_source == f"measured: h200_decode.csv ({key})", model.id
        analytic = SimTiming(model)
        d, profile = measured.deployment, measured.deployment.profile
        for kv in (1024, 16384, 65536):
            step = decode_step(
                model.shape, model.active_params, d, kv, total_params=model.total_params
            )
            weights = max(
                step.weight_bytes / (profile.mem_bandwidth_tbs * 1e12),
                step.dense_flops / (profile.peak_bf16_tflops * 1e12),
            )
            attention = model.shape.layers * _fastest(rows, key, d.batch, kv)
            expected = weights + attention + STEP_OVERHEAD_S + analytic._comm_s()
            assert measured._step_unscaled_s(kv) == pytest.approx(expected), (model.id, kv)
            assert measured.token_interval_s(kv, 0) != analytic.token_interval_s(kv, 0)


def test_the_measured_attention_term_equals_layers_times_the_csv(
    catalog: Catalog, rows: list[dict[str, str]]
) -> None:
    """Between two KV lengths only the attention term changes: the step's growth is exactly
    layers x the growth of the CSV's latency for the model's shape."""
    model = catalog.get("sim-70b-gqa")
    assert model is not None and model.deployment is not None
    key = shape_key(per_device_shape(model.shape, model.deployment.tensor_parallel))
    timing = SimTiming(model, SimSettings(kernel_csv="h200"))
    batch = timing.deployment.batch
    csv_growth = _fastest(rows, key, batch, 65536) - _fastest(rows, key, batch, 1024)
    growth = timing._step_unscaled_s(65536) - timing._step_unscaled_s(1024)
    # weights do not grow with KV; only attention does
    assert growth == pytest.approx(model.shape.layers * csv_growth, rel=1e-9)


def test_models_on_other_gpus_stay_analytic_and_say_why(catalog: Catalog) -> None:
    for model_id in ("sim-llama-3-70b", "sim-falcon-7b", "sim-llama-2-7b"):
        model = catalog.get(model_id)
        assert model is not None and model.deployment is not None
        assert model.deployment.gpu != "H200"
        timing = SimTiming(model, SimSettings(kernel_csv="h200"))
        assert timing.timing_source == (
            f"analytic (h200_decode.csv was measured on H200, this model runs on "
            f"{model.deployment.gpu})"
        )
        assert timing.token_interval_s(4096, 0) == SimTiming(model).token_interval_s(4096, 0)
        # the same model moved onto an H200 uses the measured kernel of its shape
        moved = SimTiming(model, SimSettings(kernel_csv="h200", gpu="H200"))
        assert moved.timing_source.startswith("measured: h200_decode.csv (")


def test_the_preset_measured_every_twin_shape_with_triton_at_both_batches(
    rows: list[dict[str, str]],
) -> None:
    keys = {s.key for s in merged(twin_set())}
    for key in keys:
        for batch in (1, 128):
            ok = [
                r
                for r in rows
                if r["shape"] == key
                and r["backend"] == "triton"
                and int(r["batch"]) == batch
                and not r["error"]
            ]
            kvs = {int(r["kv_len"]) for r in ok}
            # MHA at batch 128 x 64K needs 137 GB of inputs: skipped, and the row says so
            expected = (
                {1024, 4096, 16384}
                if key.startswith("mha") and batch == 128
                else {1024, 4096, 16384, 65536}
            )
            assert kvs == expected, (key, batch, kvs)
            assert all(float(r["rel_err"]) < 2e-2 for r in ok)


def test_serve_local_loads_the_preset_by_name() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "serve-local", "--kernel-csv", "h200", "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        listening = proc.stdout.readline()
        assert "listening" in listening, proc.stderr.read()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "measured attention from h200 (NVIDIA H200, " in err
    assert "gqa" in err and "mla" in err and "gla" in err
