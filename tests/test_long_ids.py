"""A 100,000-character model id is printed as one short line (its start, its length, its end),
never whole: by the built-in provider's refusal, a real server's "not on the list" warning and
each failed row's line. The real `workbench bench` in a subprocess; the server is
tests/support/hostile_server.py on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.hostile_server import hostile_server_thread

LONG = "m" * 50_000 + "z" * 50_000


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "workbench", "bench", "--model", LONG, "--max-tokens", "8",
         "--csv", str(tmp_path / "r.csv"), *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_the_built_in_provider_names_a_long_unknown_id_in_one_short_line(tmp_path: Path) -> None:
    proc = _bench(tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "mmmm…(100,000 chars)…zzzz" in proc.stderr
    assert len(proc.stderr) < 2000, len(proc.stderr)


def test_a_real_servers_warning_and_failed_rows_cut_a_long_id(tmp_path: Path) -> None:
    with hostile_server_thread() as server:
        proc = _bench(tmp_path, "--base-url", server.base_url, "--repeats", "2")
    assert proc.returncode == 3, proc.stderr[-2000:]  # tried, refused by the server: exit 3
    assert "mmmm…(100,000 chars)…zzzz" in proc.stderr and "zz' is not on the list" in proc.stderr
    assert "m" * 200 not in proc.stderr and "z" * 200 not in proc.stderr
