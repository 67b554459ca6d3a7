"""How late does a wait end on a busy loop, with Python's GIL switch interval and with ours?
(issue 29, "schedule fidelity": why core/system/steady_interpreter.py shortens it)

`sleep_until` (core/system/wake.py) hands a wait's last stretch to an alarm thread, which needs
the GIL to wake the loop. While the loop's thread runs Python (here a task that keeps it busy
in steps of 1 ms, as reading streams and building requests do), the alarm thread gets the GIL
only when that thread gives it up: at the latest after the switch interval. This script waits
for 300 moments 5-12 ms apart on such a loop (uvloop where installed, as `bench` runs) and
reports each wait's lateness, alternating Python's default interval (5 ms) and
`steady_interpreter.SWITCH_INTERVAL_S`, `--rounds` times each, so both see the same load.

    .venv/bin/python benchmarks/wake_switch.py            # 3 rounds, recorded
    .venv/bin/python benchmarks/wake_switch.py --quick    # 1 round, not recorded
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

from workbench.core.foundation.metrics import percentile
from workbench.core.system import loop as event_loop
from workbench.core.system.steady_interpreter import SWITCH_INTERVAL_S
from workbench.core.system.wake import sleep_until

DEFAULT_SWITCH_S = 0.005  # Python's own
BUSY_STEP_S = 0.001
WAITS = 300


async def _busy(stop: asyncio.Event) -> None:
    """The loop's thread kept running Python, in steps of BUSY_STEP_S between yields."""
    while not stop.is_set():
        until = time.perf_counter() + BUSY_STEP_S
        while time.perf_counter() < until:
            pass
        await asyncio.sleep(0)


async def _lateness_ms(switch_s: float) -> list[float]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(switch_s)
    stop = asyncio.Event()
    busy = asyncio.create_task(_busy(stop))
    late = []
    draw = random.Random(29)
    try:
        for _ in range(WAITS):
            moment = time.perf_counter() + draw.uniform(0.005, 0.012)
            await sleep_until(moment)
            late.append((time.perf_counter() - moment) * 1000)
    finally:
        stop.set()
        await busy
        sys.setswitchinterval(before)
    return late


def _round(switch_s: float) -> dict[str, Any]:
    load = os.getloadavg()[0]
    late = event_loop.run(_lateness_ms(switch_s))
    return {
        "switch_interval_ms": switch_s * 1000,
        "load_before": load,
        "p50_ms": percentile(late, 50),
        "p99_ms": percentile(late, 99),
        "max_ms": max(late),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 round, nothing recorded")
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    runs = [_round(s) for _ in range(rounds) for s in (DEFAULT_SWITCH_S, SWITCH_INTERVAL_S)]
    lines = [
        "switch interval ms | wait lateness p50 / p99 / max ms | load before",
        "---|---|---",
    ]
    lines += [
        f"{x['switch_interval_ms']:g} | {x['p50_ms']:.2f} / {x['p99_ms']:.2f} / "
        f"{x['max_ms']:.2f} | {x['load_before']:.1f}"
        for x in runs
    ]
    table = "\n".join(lines)
    print(table)
    load = os.getloadavg()
    notes = (
        f"\n\n{WAITS} waits 5-12 ms apart per round on a loop kept busy in steps of "
        f"{BUSY_STEP_S * 1000:g} ms, rounds alternating. Load average at the end: "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores (other work "
        "shares them).\n"
    )
    command = "python benchmarks/wake_switch.py " + " ".join(sys.argv[1:])
    data = {"machine": machine_record(), "runs": runs, "load_average": load}
    write_result("wake_switch", command.strip(), table + notes, data, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
