"""Eight panes streaming at 200 tokens/s each into the real main window (issue 4).

Runs the comparison twice in the same window (--runs) and reports the last run, with the
first run after launch on its own line: that one also pays one-time costs (first paints of
the charts, glyph caches). Reports the GUI event loop's lag (how late a 10 ms timer fires,
p50/p99; goal p99 < 50 ms on a 2-core machine) and lost tokens (server chunks that never
reached a pane; must be 0). --events adds where the UI thread's time went.

The panes stream from the built-in provider run as its own `workbench serve-local` process
(as a real provider is another machine), registered under eight provider names so that each
pane is its own target; the model's time scale makes each stream decode at the chosen rate.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_load.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aiohttp
import qasync
from machine import machine_record, write_result
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtWidgets import QApplication

from workbench.core.access.providers import ModelEntry, Provider
from workbench.core.foundation.metrics import percentile
from workbench.core.models.catalog import load_catalog
from workbench.core.transport.clients import warm_up
from workbench.local.costmodel import SimTiming
from workbench.local.process import UNBATCHED, ServerProcess
from workbench.ui.app import freeze_startup_heap
from workbench.ui.compare_controller import CompareController
from workbench.ui.main_window import MainWindow

MODEL = "sim-70b-gqa"
PROMPT_TOKENS = 1024
P99_GOAL_MS = 16.0  # one frame at 60 Hz
MAX_GOAL_MS = 33.0  # two frames


class TimedApplication(QApplication):
    """Times each top-level event delivery (nested ones count in their parent's time)."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        self.spent: dict[str, list[float]] = {}
        self.timeline: list[tuple[float, float, str]] = []  # (start, seconds, key), > 2 ms
        self._depth = 0
        self._t0 = time.perf_counter()

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        if self._depth:
            return super().notify(receiver, event)
        self._depth += 1
        start = time.perf_counter()
        try:
            return super().notify(receiver, event)
        finally:
            self._depth -= 1
            key = f"{event.type().name} -> {type(receiver).__name__}"
            span = time.perf_counter() - start
            self.spent.setdefault(key, []).append(span)
            if span > 0.002:
                self.timeline.append((start, span, key))

    def inside(self, start: float, end: float) -> str:
        """The deliveries over 2 ms that overlapped [start, end] (perf_counter seconds)."""
        hits = [(t, d, k) for t, d, k in self.timeline if t < end and t + d > start]
        return ", ".join(f"{k} {d * 1000:.0f} ms" for _t, d, k in hits) or "(none over 2 ms)"

    def report(self, top: int = 15) -> str:
        rows = sorted(self.spent.items(), key=lambda kv: -sum(kv[1]))[:top]
        lines = ["event -> receiver: total ms, count, p99 ms, max ms"]
        for key, spans in rows:
            ms = sorted(x * 1000 for x in spans)
            p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
            lines.append(f"  {key}: {sum(ms):.0f}, {len(ms)}, {p99:.1f}, {ms[-1]:.1f}")
        lines.append("slowest deliveries (ms at s: event -> receiver):")
        for start, span, key in sorted(self.timeline, key=lambda t: -t[1])[:12]:
            lines.append(f"  {span * 1000:.0f} at {start - self._t0:.2f}: {key}")
        return "\n".join(lines)


async def _measure(args: argparse.Namespace, tmp: Path) -> dict:
    info = load_catalog().get(MODEL)
    assert info is not None
    natural = 1 / SimTiming(info).token_interval_s(PROMPT_TOKENS, 1)
    scale = natural / args.rate
    server = ServerProcess(time_scale=scale, extra=UNBATCHED)
    url = await server.start()
    session = CompareController(store=None, time_scale=scale)
    session.providers = {
        f"sim{i + 1}": Provider(f"sim{i + 1}", url, models=(ModelEntry(MODEL),))
        for i in range(args.panes)
    }
    window = MainWindow(session, QSettings(str(tmp / "gui.ini"), QSettings.Format.IniFormat))
    keys = [f"sim{i + 1}|{MODEL}" for i in range(args.panes)]
    window.pane_set.set_choices([(k, k) for k in keys])
    window.pane_set.set(keys)
    window.prompt.set_tokens(PROMPT_TOKENS)
    window.prompt.max_tokens.setValue(int(args.rate * args.seconds))
    window.resize(1600, 1000)
    window.show()
    # as the app does after its window shows: the SDK's ~1 s import happens off the UI thread,
    # then the start-up heap is frozen
    await asyncio.get_running_loop().run_in_executor(None, warm_up)
    freeze_startup_heap()
    runs = []
    for _ in range(args.runs):
        runs.append(await _one_run(window, session))
    painted = sum(len(w.text.toPlainText()) > 0 for w in window.pane_set.widgets)
    window.close()
    await session.close()
    await server.stop()
    first, last = runs[0], runs[-1]
    return {
        "panes": args.panes,
        "rate_per_pane": args.rate,
        "seconds": args.seconds,
        "runs": args.runs,
        "loop_lag_p50_ms": last["p50"],
        "loop_lag_p99_ms": last["p99"],
        "loop_lag_max_ms": last["max"],
        "worst_lags_ms_at_s": last["worst"],
        "first_run_after_launch_p50_p99_max_ms": (first["p50"], first["p99"], first["max"]),
        "worst_p99_of_all_runs_ms": max(r["p99"] for r in runs),
        "first_run_worst_lags_ms_at_s": first["worst"],
        "lost_tokens": sum(r["lost"] for r in runs),
        "decode_tps_per_pane_median": last["rate"],
        "panes_painted": painted,
        "errors": sum(r["errors"] for r in runs),
    }


async def _one_run(window: MainWindow, session: CompareController) -> dict:
    """One comparison of every pane, with the loop-lag probe running throughout."""
    lags: list[float] = []
    stamps: list[float] = []
    windows: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    stop = asyncio.Event()

    async def probe() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.010)
            end = time.perf_counter()
            lags.append((end - start - 0.010) * 1000)
            stamps.append(end - t0)
            windows.append((start, end))

    probe_task = asyncio.ensure_future(probe())
    try:
        final = await window.run_all()
    finally:
        stop.set()
        await probe_task
    assert final is not None
    lost = 0
    async with aiohttp.ClientSession() as http:
        for result in final.results:
            if result.warmup or not result.response_id:
                continue
            async with http.get(f"{result.base_url}/_emit_log/{result.response_id}") as resp:
                emitted = len((await resp.json())["chunk_emit_ns"])
            lost += max(0, emitted - len(result.event_times))
    app = QApplication.instance()
    if isinstance(app, TimedApplication):
        for lag, (start, end), at in sorted(zip(lags, windows, stamps, strict=True))[-3:]:
            print(f"lag {lag:.0f} ms at {at:.2f} s: {app.inside(start, end)}")
    return {
        "p50": percentile(lags, 50),
        "p99": percentile(lags, 99),
        "max": max(lags),
        "worst": [
            (round(ms, 1), round(at, 2))
            for ms, at in sorted(zip(lags, stamps, strict=False), reverse=True)[:5]
        ],
        "lost": lost,
        "rate": percentile([p.decode_tps() or 0.0 for p in session.panes], 50),
        "errors": sum(not r.ok for r in final.results),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--panes", type=int, default=8)
    p.add_argument("--rate", type=float, default=200.0, help="tokens/s per pane")
    p.add_argument("--seconds", type=float, default=10.0, help="decode time per pane")
    p.add_argument(
        "--runs",
        type=int,
        default=2,
        help="comparisons in a row; the figures are the last one's (the first run after launch "
        "also pays one-time costs: first paints, glyph caches), the first is reported too",
    )
    p.add_argument("--quick", action="store_true")
    p.add_argument(
        "--events",
        action="store_true",
        help="also report where the GUI thread's time goes, by Qt event type and receiver",
    )
    args = p.parse_args()
    if args.quick:
        args.seconds = 2.0
    app = QApplication.instance() or (TimedApplication if args.events else QApplication)(
        sys.argv[:1]
    )
    gc_pauses: list[float] = []
    if args.events:
        import gc

        started: list[float] = []

        def on_gc(phase: str, info: dict) -> None:
            if phase == "start":
                started[:] = [time.perf_counter()]
            elif started and info.get("generation") == 2:
                gc_pauses.append((time.perf_counter() - started[0]) * 1000)

        gc.callbacks.append(on_gc)
    app.setQuitOnLastWindowClosed(False)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WORKBENCH_DATA_DIR"] = tmp
        os.environ["WORKBENCH_CONFIG_DIR"] = tmp
        figures = qasync.run(_measure(args, Path(tmp)))
    lines = [
        f"- {k}: {v:.2f}" if isinstance(v, float) else f"- {k}: {v}" for k, v in figures.items()
    ]
    if isinstance(app, TimedApplication):
        print(app.report())
        print(f"full GC collections: {len(gc_pauses)}, ms: {sorted(gc_pauses)[-5:]}")
    worst = max(figures["loop_lag_max_ms"], figures["first_run_after_launch_p50_p99_max_ms"][2])
    ok = (
        figures["worst_p99_of_all_runs_ms"] <= P99_GOAL_MS
        and worst <= MAX_GOAL_MS
        and figures["lost_tokens"] == 0
    )
    verdict = "PASS" if ok else "FAIL"
    text = "\n".join(lines) + (
        f"\n\nGoal: loop lag p99 <= {P99_GOAL_MS} ms in every run, no lag over {MAX_GOAL_MS} ms "
        f"in any run (worst here {worst:.1f} ms) and 0 lost tokens: {verdict} (the figures "
        f"above are run {args.runs} of {args.runs}; the first run after launch, which also pays "
        "one-time costs, is reported on its own line)\n"
    )
    print(text)
    write_result(
        "gui_load",
        command=" ".join(["python", *sys.argv]),
        markdown=text,
        data={"figures": figures, "machine": machine_record()},
        quick=args.quick,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
