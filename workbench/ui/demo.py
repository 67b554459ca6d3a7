"""Scripted scenes for `workbench gui --demo-screenshot`: how the docs/ screenshots are made.

Each scene drives the real window against the built-in provider, then saves a PNG of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path

from workbench.core.run.plan import LOCAL_PROVIDER
from workbench.ui.main_window import MainWindow

SCENES = ("compare", "sweep", "providers", "capacity")
CAPACITY_TWINS = ("sim-70b-gqa", "sim-70b-mla")
SWEEP_LENGTHS = [1024, 4096, 16384, 32768, 65536]
CAPACITY_RANGE = "0.5:64"  # req/s, as --capacity-range


async def _wait_until(predicate, timeout_s: float = 300.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return False


async def _compare(window: MainWindow, when: str) -> str | None:
    task = window.run_all()
    if task is None:
        return "a run is already in progress"
    if when == "streaming":
        await _wait_until(lambda: all(p.events >= 20 for p in window.session.panes) or task.done())
        return None
    final = await task
    if final is None or final.status != "finished":
        return "the demo comparison did not finish"
    return None


async def _sweep(window: MainWindow, when: str) -> str | None:
    window.apply_preset("attention")
    window.prompt.max_tokens.setValue(64)
    window.tabs.setCurrentWidget(window.sweep_view)
    for n, box in window.sweep_view.length_boxes.items():
        box.setChecked(n in SWEEP_LENGTHS)
    window.sweep_view.repeats.setValue(3)
    window.sweep_view.run_button.click()
    task = window.session._task
    if task is None:
        return "the sweep did not start"
    if when == "streaming":
        await _wait_until(lambda: len(window.sweep_view.results) >= 12 or task.done())
        return None
    final = await task
    return None if final is not None and final.status == "finished" else "the sweep failed"


async def _capacity(window: MainWindow, when: str) -> str | None:
    """Two twins' capacity at 4K, Poisson (the tab's first preset), as a presenter runs it."""
    window.preset.setCurrentIndex(window.preset.findData("custom"))
    window.pane_set.set([f"{LOCAL_PROVIDER}|{m}" for m in CAPACITY_TWINS])
    view = window.capacity_view
    window.tabs.setCurrentWidget(view)
    # a range of its own: the default starts at a lone request's rate (0.2 req/s here), where
    # 50-request steps took the scene past 30 minutes; from 0.5 it is ~700 requests
    view.range.setText(CAPACITY_RANGE)
    view.run_button.click()
    task = window.session._task
    if task is None:
        return "the capacity search did not start"
    if when == "streaming":
        await _wait_until(lambda: sum(len(s) for s in view.steps.values()) >= 3 or task.done())
        return None
    final = await task
    return None if final is not None and final.status == "finished" else "the search failed"


async def _providers(window: MainWindow, when: str) -> str | None:
    panel = getattr(window, "provider_panel", None)
    if panel is None:
        return "this build has no provider panel"
    window.tabs.setCurrentWidget(panel)
    await panel.demo_doctor()
    return None


async def demo_screenshot(window: MainWindow, path: Path, when: str, scene: str) -> int:
    """Play `scene`, save a PNG of the whole window, return the exit code."""
    play = {"compare": _compare, "sweep": _sweep, "providers": _providers, "capacity": _capacity}
    play = play[scene]
    problem = await play(window, when)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    await asyncio.sleep(0.3)  # let the last frame paint
    window.paint()  # grab() renders synchronously; no processEvents (it would re-enter asyncio)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path)):
        print(f"error: could not write {path}", file=sys.stderr)
        return 1
    print(f"saved {path}")
    window.session.stop_all()
    task = window.session._task
    if task is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
    return 0
