"""The Kernels tab shows a kernel CSV: the shipped H200 sweep or a file the user opens, its
measured points over the roofline of the CSV's device, per shape and batch (offscreen)."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from kernels_bridge.analytic import get_profile
from kernels_bridge.protocol import RESULT_COLUMNS
from workbench.ui.kernels_view import KernelsView

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "resources" / "kernels" / "h200_decode.csv"
SWEEP_JSON = ROOT / "benchmarks" / "results" / "gpu_decode.json"
Points = dict[str, list[tuple[int, float]]]


@pytest.fixture
def view(loop: qasync.QEventLoop) -> Iterator[KernelsView]:
    v = KernelsView()
    v.resize(1400, 900)
    v.show()
    yield v
    loop.run_until_complete(asyncio.wait_for(v.aclose(), 15))
    v.close()
    v.deleteLater()


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _twin_keys() -> dict[str, str]:
    """variant -> the shape key the sweep's JSON names sim-70b-<variant>."""
    shapes = json.loads(SWEEP_JSON.read_text(encoding="utf-8"))["shapes"]
    return {s["variant"]: s["key"] for s in shapes if f"sim-70b-{s['variant']}" in s["names"]}


def _expected(
    rows: list[dict[str, str]],
    keys: dict[str, str],
    batch: int,
    field: str,
    backend: str | None = "triton",
) -> Points:
    """label -> [(KV, value)] as the chart labels them: the variant for one backend, variant ·
    backend for all (None)."""
    out: Points = {}
    for r in rows:
        if r["error"] or not r[field] or keys.get(r["variant"]) != r["shape"]:
            continue
        if int(r["batch"]) == batch and backend in (None, r["backend"]):
            label = r["variant"] if backend else f"{r['variant']} · {r['backend']}"
            out.setdefault(label, []).append((int(r["kv_len"]), float(r[field])))
    return {k: sorted(v) for k, v in out.items()}


def _plotted(plot) -> Points:
    out: Points = {}
    for item in plot.plotItem.listDataItems():
        x, y = item.getOriginalDataset()  # x is log10(KV); y as given (the axis shows log)
        out[item.name()] = [(round(10**xi), float(yi)) for xi, yi in zip(x, y, strict=True)]
    return out


def _measured(plot) -> Points:
    return {k: v for k, v in _plotted(plot).items() if not k.endswith(" roofline")}


def _assert_points_equal(got: Points, want: Points) -> None:
    assert set(got) == set(want)
    for label, points in want.items():
        assert [kv for kv, _ in got[label]] == [kv for kv, _ in points], label
        assert [v for _, v in got[label]] == pytest.approx([v for _, v in points], rel=1e-9)


def _choose_shape(view: KernelsView, words: str) -> None:
    combo = view.csv_row.shape
    index = next(i for i in range(combo.count()) if words in combo.itemText(i))
    combo.setCurrentIndex(index)
    view.redraw()


def test_the_h200_button_draws_the_twins_measured_latencies_over_the_h200_roofline(
    view: KernelsView, qtbot
) -> None:
    assert view.csv_row.shape.isHidden()  # nothing loaded: no shape choice yet
    qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)
    view.redraw()
    rows = _csv_rows(SHIPPED)
    assert len(view.rows) == len(rows) == view.table.rowCount()
    assert view.csv_row.shape.currentText() == "70B twins (sim-70b-*)"
    assert [view.csv_row.batch.itemText(i) for i in range(view.csv_row.batch.count())] == [
        "1",
        "128",
    ]
    assert view.csv_row.chosen_batch() == 128
    assert view.csv_row.backend.currentText() == "triton"  # the app's own kernels first
    twins = _twin_keys()
    assert len(twins) == 8  # every variant has its 70B twin in the sweep
    want = _expected(rows, twins, 128, "latency_us")
    _assert_points_equal(_measured(view.latency_plot), want)
    _assert_points_equal(
        _measured(view.bandwidth_plot), _expected(rows, twins, 128, "achieved_gbps")
    )
    view.csv_row.backend.setCurrentIndex(view.csv_row.backend.findText("all"))
    view.redraw()  # both backends, each its own curve
    want_all = _expected(rows, twins, 128, "latency_us", backend=None)
    assert "gqa · torch-sdpa" in want_all and "gqa · triton" in want_all
    _assert_points_equal(_measured(view.latency_plot), want_all)

    # the dashed roofline is the H200's: the CSV carries each row's roofline on its profile
    assert view.selected_profile().key == "H200" and {r["profile"] for r in rows} == {"H200"}
    plotted = _plotted(view.latency_plot)
    for variant, key in twins.items():
        # every KV length measured, also where a backend failed: the bound stands regardless
        points = sorted(
            {
                (int(r["kv_len"]), float(r["roofline_us"]))
                for r in rows
                if r["shape"] == key and r["batch"] == "128"
            }
        )
        got = plotted[f"{variant} roofline"]
        assert [kv for kv, _ in got] == [kv for kv, _ in points]
        assert [v for _, v in got] == pytest.approx([v for _, v in points], rel=1e-4)
    peak = get_profile("H200").mem_bandwidth_tbs * 1000
    assert (
        f"{peak:,.0f}" in view.peak_label.toPlainText() and "H200" in view.peak_label.toPlainText()
    )
    assert "H200 roofline" in view.latency_plot.plotItem.getAxis("left").labelText
    labels = [view.csv_row.shape.itemText(i) for i in range(view.csv_row.shape.count())]
    assert "sim-70b-gqa (gqa:q32:kv4:d128)" in labels  # named though no JSON is shipped beside it


def test_the_table_shows_shape_and_relative_error_of_each_loaded_row(
    view: KernelsView, qtbot
) -> None:
    qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)
    table = view.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    shape_col, err_col = headers.index("shape"), headers.index("rel. error")
    first = _csv_rows(SHIPPED)[0]
    assert table.item(0, shape_col).text() == first["shape"] == "mha:q32:kv32:d128"
    assert float(table.item(0, err_col).text()) == pytest.approx(float(first["rel_err"]), rel=1e-2)


def test_switching_shape_and_batch_changes_the_plotted_points(view: KernelsView, qtbot) -> None:
    qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)
    view.redraw()
    twins_drawn = _measured(view.latency_plot)
    rows = _csv_rows(SHIPPED)

    _choose_shape(view, "sim-llama-3-70b")
    key = "gqa:q16:kv2:d128"
    assert view.csv_row.shape.currentText() == f"sim-llama-3-70b ({key})"
    llama = _measured(view.latency_plot)
    assert llama != twins_drawn
    _assert_points_equal(llama, _expected(rows, {"gqa": key}, 128, "latency_us"))
    assert set(_plotted(view.latency_plot)) == set(llama) | {"gqa roofline"}

    view.csv_row.batch.setCurrentIndex(view.csv_row.batch.findData(1))
    view.redraw()
    _assert_points_equal(
        _measured(view.latency_plot), _expected(rows, {"gqa": key}, 1, "latency_us")
    )


def _open_through_the_dialog(view: KernelsView, qtbot, monkeypatch, path: Path) -> None:
    # a native file dialog cannot be driven offscreen: it answers with the path a user picks
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "CSV (*.csv)"))
    )
    qtbot.mouseClick(view.csv_row.open_button, Qt.MouseButton.LeftButton)
    view.redraw()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"name,value\nx,1\n", ["not a kernel CSV", "variant", "latency_us", "Fix:"]),
        (b"\xff\xfe\x00garbage\x00" * 50, ["not UTF-8", "Fix:"]),
        (
            (",".join(RESULT_COLUMNS) + "\n" + "gqa,triton,H200,bf16,many" + ",1" * 17).encode(),
            ["line 2", "batch", "'many'", "not a number", "Fix:"],
        ),
        (",".join(RESULT_COLUMNS).encode() + b"\n", ["no rows", "Fix:"]),
    ],
    ids=["other-columns", "binary", "bad-number", "header-only"],
)
def test_a_file_that_is_not_a_kernel_csv_shows_why_and_keeps_the_shown_rows(
    view: KernelsView, qtbot, monkeypatch, tmp_path: Path, content: bytes, words: list[str]
) -> None:
    qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)
    view.redraw()
    before = _plotted(view.latency_plot)
    broken = tmp_path / "broken.csv"
    broken.write_bytes(content)
    _open_through_the_dialog(view, qtbot, monkeypatch, broken)
    message = view.message.text()
    assert view.message.isVisible() and str(broken) in message
    assert all(w in message for w in words), message
    assert len(view.rows) == view.table.rowCount() == len(_csv_rows(SHIPPED))
    assert _plotted(view.latency_plot) == before
    assert "h200_decode.csv" in view.csv_row.source_label.text()


def test_a_folder_picked_as_the_csv_is_refused_with_its_name(
    view: KernelsView, qtbot, monkeypatch, tmp_path: Path
) -> None:
    _open_through_the_dialog(view, qtbot, monkeypatch, tmp_path)
    assert "is not a regular file" in view.message.text() and view.rows == []


def test_an_old_csv_without_shape_and_rel_err_loads_with_its_devices_roofline(
    view: KernelsView, qtbot, monkeypatch, tmp_path: Path
) -> None:
    old_columns = [c for c in RESULT_COLUMNS if c not in ("shape", "rel_err")]
    path = tmp_path / "old.csv"
    latencies = {("gqa", 4096): 31.5, ("gqa", 16384): 97.25, ("mla", 4096): 40.0}
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, old_columns)
        writer.writeheader()
        for (variant, kv), us in latencies.items():
            writer.writerow(
                {
                    **dict.fromkeys(old_columns, ""),
                    **{"variant": variant, "backend": "triton", "device": "NVIDIA H100 80GB HBM3"},
                    **{"dtype": "bf16", "batch": 1, "kv_len": kv, "q_len": 1},
                    **{"latency_us": us, "achieved_gbps": 1000.0, "timing": "cuda-graph"},
                }
            )
    _open_through_the_dialog(view, qtbot, monkeypatch, path)
    assert "old.csv: 3 rows, NVIDIA H100 80GB HBM3" == view.csv_row.source_label.text()
    assert not view.csv_row.shape.isEnabled()  # one shape per variant: nothing to choose
    assert _measured(view.latency_plot) == {
        "gqa": [(4096, 31.5), (16384, 97.25)],
        "mla": [(4096, 40.0)],
    }
    assert view.selected_profile().key == "H100"
    roofline = _plotted(view.latency_plot)["gqa roofline"]
    assert [kv for kv, _ in roofline] == [4096, 16384] and 0 < roofline[0][1] < roofline[1][1]
    assert "H100" in view.peak_label.toPlainText()


def test_export_csv_writes_the_loaded_rows_back_unchanged(
    view: KernelsView, qtbot, monkeypatch, tmp_path: Path
) -> None:
    qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)
    out = tmp_path / "again.csv"
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "CSV (*.csv)"))
    )
    qtbot.mouseClick(view.export_csv_button, Qt.MouseButton.LeftButton)
    assert out.read_text(encoding="utf-8").splitlines()[0] == ",".join(RESULT_COLUMNS)
    assert _csv_rows(out) == _csv_rows(SHIPPED)


def test_shape_names_come_from_the_sweeps_json_beside_the_csv_else_the_key_is_shown(
    view: KernelsView, tmp_path: Path
) -> None:
    csv_path = tmp_path / "sweep.csv"
    shutil.copy(SHIPPED, csv_path)
    data = json.loads(SWEEP_JSON.read_text(encoding="utf-8"))
    for entry in data["shapes"]:
        if entry["key"] == "gqa:q16:kv2:d128":
            entry["names"] = ["my-own-model"]
    csv_path.with_suffix(".json").write_text(json.dumps(data), encoding="utf-8")
    assert view.load_csv(csv_path)
    labels = [view.csv_row.shape.itemText(i) for i in range(view.csv_row.shape.count())]
    assert "my-own-model (gqa:q16:kv2:d128)" in labels

    rows = _csv_rows(SHIPPED)
    for r in rows:
        if r["shape"] == "gqa:q16:kv2:d128":
            r["shape"] = "gqa:q48:kv6:d128"  # a shape neither the JSON nor the app knows
    unknown = tmp_path / "unknown.csv"
    with unknown.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(RESULT_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
    assert view.load_csv(unknown)
    labels = [view.csv_row.shape.itemText(i) for i in range(view.csv_row.shape.count())]
    assert "gqa:q48:kv6:d128" in labels
    _choose_shape(view, "gqa:q48:kv6:d128")  # its roofline: the one the CSV carries
    want = _expected(rows, {"gqa": "gqa:q48:kv6:d128"}, 128, "roofline_us")["gqa"]
    _assert_points_equal({"gqa": _plotted(view.latency_plot)["gqa roofline"]}, {"gqa": want})


def test_loading_a_kernel_csv_never_imports_torch() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from workbench.ui.kernel_csv import load_kernel_csv\n"
        f"csv = load_kernel_csv(Path({str(SHIPPED)!r}))\n"
        "assert len(csv.rows) > 100\n"
        "bad = [m for m in ('torch', 'triton') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_a_csv_over_the_size_limit_is_refused_before_it_is_read(
    view: KernelsView, qtbot, monkeypatch, tmp_path: Path
) -> None:
    from workbench.ui.kernel_csv import MAX_CSV_BYTES

    huge = tmp_path / "huge.csv"
    with huge.open("wb") as f:
        f.write((",".join(RESULT_COLUMNS) + "\n").encode())
        f.truncate(MAX_CSV_BYTES + 1)  # sparse: no time or disk spent on it
    _open_through_the_dialog(view, qtbot, monkeypatch, huge)
    assert "is over 8 MiB: not a kernel CSV" in view.message.text() and view.rows == []


def test_a_cpu_csv_takes_the_roofline_profile_its_rows_name(
    view: KernelsView, qtbot, monkeypatch, tmp_path: Path
) -> None:
    path = tmp_path / "cpu.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(RESULT_COLUMNS), restval="")
        writer.writeheader()
        writer.writerow(
            {"variant": "gqa", "backend": "reference", "device": "cpu", "dtype": "fp32"}
            | {"batch": 1, "kv_len": 1024, "q_len": 1, "latency_us": 900.0, "profile": "A100"}
            | {"timing": "wall-clock", "achieved_gbps": 9.5, "kv_bytes_per_token": 8192}
        )
    _open_through_the_dialog(view, qtbot, monkeypatch, path)
    assert view.selected_profile().key == "A100"
    assert _measured(view.latency_plot) == {"gqa": [(1024, 900.0)]}
    assert "CPU (wall-clock)" in view.latency_plot.plotItem.titleLabel.text
