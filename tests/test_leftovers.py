"""What runs and saves leave behind: `bench --output` makes its folder 0700 and run.json 0600
(as docs/reliability.md says), a providers.toml temp file left by a killed save is removed by
the next save, and a run whose process was killed is listed as interrupted, not running."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        capture_output=True, text=True, timeout=300, check=False, env=_env(tmp_path),
        cwd=tmp_path, preexec_fn=lambda: os.umask(0o022),
    )  # fmt: skip


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_output_folder_is_0700_and_run_json_0600(tmp_path) -> None:
    out = tmp_path / "runs" / "today"
    proc = _cli(
        tmp_path, "bench", "--model", "sim-70b-gqa", "--prompt-tokens", "1K", "--max-tokens",
        "8", "--output", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _mode(out) == 0o700 and _mode(out.parent) == 0o700
    assert _mode(out / "run.json") == 0o600 and _mode(out / "results.csv") == 0o600


def test_a_temp_file_left_by_a_killed_providers_save_is_removed(tmp_path) -> None:
    config = tmp_path / "config"
    config.mkdir(mode=0o700)
    orphan = config / "providers.toml.k1ll3d.tmp"
    orphan.write_text("[providers.half", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(orphan, (an_hour_ago, an_hour_ago))
    fresh = config / "providers.toml.s4v1ng.tmp"  # another save may be writing this one now
    fresh.write_text("", encoding="utf-8")
    proc = _cli(tmp_path, "providers", "add", "gw", "--base-url", "https://gw.example/v1")
    assert proc.returncode == 0, proc.stderr
    assert not orphan.exists() and fresh.exists()


def test_a_killed_run_is_listed_as_interrupted(tmp_path) -> None:
    history = tmp_path / "data" / "history.sqlite3"
    owner = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time\n"
            "from workbench.core.history.run_history import RunStore\n"
            f"store = RunStore({str(history)!r})\n"
            "store.start_run('comparison', {'targets': [{'model': 'm'}]}, run_id='killedrun0001')\n"
            "print('started', flush=True)\n"
            "time.sleep(600)\n"
        )],
        stdout=subprocess.PIPE, text=True, env=_env(tmp_path),
    )  # fmt: skip
    try:
        assert owner.stdout is not None and owner.stdout.readline() == "started\n"
        listed = _cli(tmp_path, "history", "list")
        assert "killedrun000" in listed.stdout and "running" in listed.stdout  # alive: running
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=30)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait(timeout=30)
        owner.stdout.close()  # type: ignore[union-attr]
    listed = _cli(tmp_path, "history", "list")
    assert listed.returncode == 0, listed.stderr
    [line] = [line for line in listed.stdout.splitlines() if "killedrun000" in line]
    assert "interrupted" in line and "running" not in line
