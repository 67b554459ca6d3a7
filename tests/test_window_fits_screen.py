"""No widget grows the main window past its screen (issue 25): at 1024x700 on a 1024x768
screen, the Kernels tab's H200 sweep, a CPU kernel run and a widget wider than the screen leave
the window where it was. The cases run in a subprocess whose offscreen screen is that size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_the_window_stays_on_a_1024x768_screen(tmp_path: Path) -> None:
    screen = {"name": "small", "x": 0, "y": 0, "width": 1024, "height": 768}
    config = tmp_path / "screen.json"
    config.write_text(
        json.dumps(
            {
                "windowFrameMargins": False,  # a 1024 px window fills the 1024 px screen's width
                "screens": [{**screen, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}],
            }
        )
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent), env.get("PYTHONPATH", "")])
    cases = str(TESTS / "support" / "window_fits_screen_cases.py")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", cases, "-q", "-p", "no:cacheprovider"],
        env=env,
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "4 passed" in proc.stdout
