"""`bench`'s progress on stderr: plain lines in logs, a bar on a terminal, -q and -v."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

WORKBENCH = [sys.executable, "-m", "workbench"]
# a tenth of the simulated time: progress counts requests and weighs prompts, not seconds
FAST = ["--time-scale", "0.1"]
RUN = ["bench", "--model", "sim-70b-gqa", "--prompt-tokens", "1K,2K", "--max-tokens", "8", *FAST]


def _bench(extra: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    args = [*WORKBENCH, *RUN, "--repeats", "2", "--csv", str(tmp_path / "r.csv"), *extra]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)


def test_progress_in_a_log_is_one_plain_line_per_request(tmp_path, env) -> None:
    proc = _bench([], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if " done, " in line]
    assert [line.split("/")[0].strip() for line in lines] == ["1", "2", "3", "4"]
    assert lines[-1].strip() == "4/4 done, 0 failed, 100 %, ETA 0 s"
    assert "\x1b[" not in proc.stderr  # no terminal escapes in a log


def test_the_logged_share_is_weighted_by_prompt_size_and_never_goes_backwards(
    tmp_path, env
) -> None:
    """One 1K and one 32K request: the 1K one is a few percent of the run's work, not half."""
    args = ["bench", "--model", "sim-70b-gqa", "--prompt-tokens", "1K,32K", "--max-tokens", "8"]
    args += FAST
    proc = subprocess.run(
        [*WORKBENCH, *args, "--repeats", "2", "--csv", str(tmp_path / "r.csv")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [line.strip() for line in proc.stderr.splitlines() if " done, " in line]
    shares = [int(line.split(", ")[2].removesuffix(" %")) for line in lines]
    assert shares == sorted(shares) and shares[-1] == 100, lines
    assert shares[1] < 25, lines  # 2 of 4 requests done, but the two 32K prefills are to come
    etas = [line.split("ETA ")[1] for line in lines]
    assert etas[-1] == "0 s" and all(eta != "--" for eta in etas), lines


def test_quiet_shows_only_the_table(tmp_path, env) -> None:
    proc = _bench(["-q"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert " done, " not in proc.stderr and "TTFT" not in proc.stderr
    assert "sim-70b-gqa" in proc.stdout  # the final table


def test_verbose_adds_a_line_per_request(tmp_path, env) -> None:
    proc = _bench(["-v"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    per_request = [line for line in proc.stderr.splitlines() if "TTFT" in line]
    assert len(per_request) == 4 and all("sim-70b-gqa" in line for line in per_request)
    assert sum("measured sim-70b-gqa 2048 tok" in line for line in per_request) == 2


def test_a_terminal_gets_a_bar_with_the_eta(tmp_path, env) -> None:
    main, sub = pty.openpty()
    args = [*WORKBENCH, *RUN, "--repeats", "2", "--csv", str(tmp_path / "r.csv")]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=sub, env=env)
    os.close(sub)
    seen = b""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(main)
    assert proc.wait(timeout=30) == 0
    text = seen.decode("utf-8", "replace")
    assert "requests" in text and "ETA" in text and "/4" in text
    assert " done, " not in text  # the bar, not the log lines
