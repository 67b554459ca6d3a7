"""A capacity search whose requests fail even one at a time says they fail, with their error
classes, and to fix that first: not "loosen the limit", which no limit would mend. And a run
that short is not called a saturated client for its one start-up pause."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from workbench.core.load.client_load import MIN_JUDGED_SAMPLES, ClientLoad


def test_a_floor_whose_requests_fail_names_the_failures_and_says_fix_them_first(
    tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "bench", "--model", "sim-llama-3-70b+500",
         "--prompt-tokens", "1K", "--max-tokens", "4", "--capacity", "--slo", "ttft_p90:3s",
         "--output", str(out), "--no-store"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr[-3000:]  # rows failed
    (answer,) = json.loads((out / "run.json").read_text())["capacity"]["models"]
    floor = answer["floor"]
    failed = floor["requests"] - floor["ok"]
    assert answer["status"] == "floor" and failed >= 1 and floor["ok"] == 0, floor
    assert floor["errors"] == {"server_error": failed}, floor
    said = next(line for line in proc.stdout.splitlines() if " even one at a time" in line)
    assert said == (
        f"sim-llama-3-70b+500's requests fail even one at a time: {failed} of its "
        f"{floor['requests']} requests failed (server_error x{failed}). Fix what fails first "
        "(each row's error_class and error_message say why), then search again."
    ), said
    assert "Loosen" not in proc.stdout and "fails alone [floor" in proc.stdout
    # a second of running at most: its start-up is no saturated client
    assert "saturated" not in proc.stderr, proc.stderr[-2000:]


def test_a_run_shorter_than_a_second_is_not_judged_saturated_for_one_pause() -> None:
    async def run(blocked_s: float, span_s: float) -> dict[str, object]:
        async with ClientLoad() as load:
            await asyncio.sleep(0.06)
            time.sleep(blocked_s)  # one pause of the loop (an import, a first connection)
            await asyncio.sleep(span_s)
        return load.figures()

    short = asyncio.run(run(0.3, 0.1))
    assert short["loop_lag_max_ms"] is not None and short["loop_lag_max_ms"] >= 200, short
    assert short["saturated"] is False, short  # recorded, not judged

    # the same pause in a run long enough to judge, and a loop late at most looks, is flagged
    async def busy() -> dict[str, object]:
        async with ClientLoad() as load:
            for _ in range(MIN_JUDGED_SAMPLES + 5):
                await asyncio.sleep(0.05)
                time.sleep(0.06)  # every look late by ~60 ms
        return load.figures()

    flagged = asyncio.run(busy())
    assert flagged["saturated"] is True and "late" in str(flagged["saturated_because"]), flagged
