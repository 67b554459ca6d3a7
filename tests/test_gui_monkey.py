"""The seeded monkey test (issue 25): random clicks, wheel turns, keys, resizes, tab, theme and
language switches, runs, stops, replays and imports on the built-in provider, checked after
every step (tests/support/monkey_cases.py says what). The cases run in a subprocess whose offscreen
screen is 1600x1000, the presenter's Xvfb screen, so "the window fits its screen" means it.
A failure names its seed; `WORKBENCH_MONKEY_SEED=<seed> pytest tests/test_gui_monkey.py`
replays that seed alone (WORKBENCH_MONKEY_STEPS sets the steps per seed, 40 by default)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


@pytest.mark.timeout(900)  # 10 seeds x 40 steps: about 2 minutes, more on a loaded machine
def test_the_monkey_finds_nothing_surprising_for_every_seed(tmp_path: Path) -> None:
    screen = {"name": "presenter", "x": 0, "y": 0, "width": 1600, "height": 1000}
    config = tmp_path / "screen.json"
    config.write_text(
        json.dumps(
            {
                "windowFrameMargins": False,
                "screens": [{**screen, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}],
            }
        )
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent), env.get("PYTHONPATH", "")])
    cases = str(TESTS / "support" / "monkey_cases.py")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", cases, "-q", "-p", "no:cacheprovider", "-x"],
        env=env,
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=840,
    )
    # the failing seed and step, and how to replay it, are in the assertion's message
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    seeds = 1 if "WORKBENCH_MONKEY_SEED" in os.environ else 10
    assert f"{seeds} passed" in proc.stdout and "failed" not in proc.stdout
