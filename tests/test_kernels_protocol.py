"""Protocol, analytic CLI, measured-latency loader, and the no-torch-in-the-GUI-process rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernels_bridge import protocol as p
from kernels_bridge.client.launcher import candidate_pythons, child_env
from kernels_bridge.measured import load_measured_latencies
from kernels_bridge.specs import DEFAULT_SHAPES, VARIANTS, shape_for

ROOT = Path(__file__).resolve().parent.parent


def test_messages_round_trip():
    msgs = [
        p.Hello(torch_version="2.13", backends=["reference"], unavailable={"triton": "no GPU"}),
        p.Run(job_id="j", variants=["gqa", "mla"], kv_lens=[1024], batches=[1, 128]),
        p.Progress("j", 1, 4, "x"),
        p.Result("j", p.ResultRow("gqa", "triton", "cpu", "fp16", 1, 64, 1).to_dict()),
        p.Done("j", 4, False, 1.5),
        p.Error("boom", "j"),
        p.Cancel("j"),
        p.Bye("done"),
        p.Auth("tok"),
    ]
    for m in msgs:
        line = m.to_json()
        assert "\n" not in line
        data = json.loads(line)
        assert data["type"] == m.TYPE and data["v"] == p.PROTOCOL_VERSION
        assert p.from_json(line) == m


def test_other_versions_and_unknown_types_are_refused():
    with pytest.raises(p.ProtocolError, match="unsupported protocol version 2"):
        p.from_json('{"type":"hello","v":2}')
    with pytest.raises(p.ProtocolError, match="version None"):
        p.from_json('{"type":"hello"}')
    with pytest.raises(p.ProtocolError, match="unknown message type"):
        p.from_json('{"type":"launch","v":1}')
    with pytest.raises(p.ProtocolError, match="not a JSON"):
        p.from_json("{oops")
    # unknown fields of a known type are ignored
    assert isinstance(p.from_json('{"type":"bye","v":1,"extra":3}'), p.Bye)


def test_validate_run_names_problems():
    bad = p.Run(job_id="", variants=["xyz"], kv_lens=[0], dtypes=["int3"], backends=[])
    problems = " | ".join(p.validate_run(bad))
    for text in ("job_id", "unknown variant", "kv_lens", "dtype", "backends"):
        assert text in problems
    assert p.validate_run(p.Run(job_id="ok", variants=list(VARIANTS), kv_lens=[64])) == []


def test_result_row_csv_has_the_issue_columns():
    needed = [
        "variant",
        "backend",
        "device",
        "dtype",
        "batch",
        "kv_len",
        "q_len",
        "latency_us",
        "achieved_gbps",
        "achieved_tflops",
        "kv_bytes_per_token",
        "roofline_us",
        "error",
    ]
    assert all(c in p.RESULT_COLUMNS for c in needed)
    row = p.ResultRow("gqa", "reference", "cpu", "fp32", 1, 64, 1, latency_us=12.5)
    values = dict(zip(p.RESULT_COLUMNS, row.csv_values(), strict=True))
    assert values["latency_us"] == "12.5" and values["achieved_gbps"] == ""


def test_default_shapes_follow_attention_md():
    assert shape_for("gqa") == DEFAULT_SHAPES["gqa"]
    assert (DEFAULT_SHAPES["gqa"].q_heads, DEFAULT_SHAPES["gqa"].kv_heads) == (32, 8)
    mla = DEFAULT_SHAPES["mla"]
    assert (mla.q_heads, mla.latent_dim + mla.rope_dim) == (128, 576)
    gla = DEFAULT_SHAPES["gla"]
    assert (gla.kv_heads, gla.latent_dim) == (2, 256)


def test_analytic_cli_needs_no_worker():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from workbench.cli import main; rc = main(['kernels', '--analytic', "
            "'--variant', 'gqa', '--variant', 'mla', '--kv', '16K', '--gpu', 'H200']); "
            "assert 'torch' not in sys.modules; sys.exit(rc)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "H200" in proc.stdout and "mla" in proc.stdout and "memory" in proc.stdout


def test_gui_and_core_never_import_torch():
    mods = [
        "workbench.cli",
        "workbench.core.run.runner",
        "workbench.local.server",
        "kernels_bridge.client.connection",
        "kernels_bridge.client.run_controller",
        "kernels_bridge.analytic",
        "kernels_bridge.protocol",
        "kernels_bridge.measured",
        "workbench.commands.kernels",
    ]
    if (ROOT / "workbench" / "ui" / "__init__.py").exists():
        mods.append("workbench.ui")
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = [m for m in ('torch', 'triton') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_child_env_cleans_a_frozen_bundle(monkeypatch):
    monkeypatch.setattr(sys, "_MEIPASS", "/opt/app/_internal", raising=False)
    env = child_env({"LD_LIBRARY_PATH": "/opt/app/_internal:/usr/lib/x", "PYTHONHOME": "/opt"})
    assert env["LD_LIBRARY_PATH"] == "/usr/lib/x" and "PYTHONHOME" not in env
    env = child_env({"LD_LIBRARY_PATH": "/opt/app/_internal", "LD_LIBRARY_PATH_ORIG": "/keep"})
    assert env["LD_LIBRARY_PATH"] == "/keep"
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert sys.executable not in candidate_pythons("/custom/python") or (
        sys.executable == "/custom/python"
    )
    assert candidate_pythons("/custom/python")[-1] == "/custom/python"


def _write_csv(path: Path, rows: list[dict[str, object]]) -> None:
    lines = [",".join(p.RESULT_COLUMNS)]
    for r in rows:
        row = p.ResultRow(**r)  # type: ignore[arg-type]
        lines.append(",".join(row.csv_values()))
    path.write_text("\n".join(lines) + "\n")


def test_measured_latencies_interpolate(tmp_path):
    csv_path = tmp_path / "k.csv"
    base = {"variant": "gqa", "device": "NVIDIA H200", "dtype": "bf16", "q_len": 1}
    _write_csv(
        csv_path,
        [
            {**base, "backend": "triton", "batch": 1, "kv_len": 1024, "latency_us": 10.0},
            {**base, "backend": "triton", "batch": 1, "kv_len": 4096, "latency_us": 40.0},
            {**base, "backend": "torch-sdpa", "batch": 1, "kv_len": 4096, "latency_us": 30.0},
            {**base, "backend": "triton", "batch": 128, "kv_len": 1024, "latency_us": 100.0},
            {**base, "backend": "triton", "batch": 128, "kv_len": 4096, "latency_us": 400.0},
            {
                **base,
                "backend": "triton",
                "batch": 1,
                "kv_len": 8192,
                "latency_us": 1.0,
                "error": "OOM",
            },
        ],
    )
    m = load_measured_latencies(csv_path)
    assert m.latency_s("gqa", 4096, 1) == pytest.approx(30e-6)  # fastest backend
    assert m.latency_s("GQA", 2560, 1) == pytest.approx(20e-6)
    assert m.latency_s("gqa", 8192, 128) == pytest.approx(
        400e-6 + (400e-6 - 100e-6) * (8192 - 4096) / 3072
    )
    only = load_measured_latencies(csv_path, backend="triton")
    assert only.latency_s("gqa", 4096, 1) == pytest.approx(40e-6)
    mid = only.latency_s("gqa", 1024, 64)
    assert 10e-6 < mid < 100e-6
    assert only.latency_s("gqa", 1024, 256) == pytest.approx(200e-6)
    with pytest.raises(KeyError):
        m.latency_s("mla", 1024, 1)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a kernel CSV"):
        load_measured_latencies(bad)
