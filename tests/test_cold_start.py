"""Cold start (issue 16): nothing that can wait runs before the window's first paint.

The window is started as a user starts it (`workbench gui`, offscreen, a fresh data and settings
folder); what it loaded by its first paint is read in that process, at the app's own log line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunStore
from workbench.ui.app import run_window
from workbench.ui.main_window import MainWindow

# Modules the first frame does not need: the charts (pyqtgraph, numpy) and the Sweep tab, the
# runner with its HTTP client and the SDK, the Providers tab (its doctor, importers and
# keyring), the Kernels tab and its worker client, the headless commands, the demo scenes.
DEFERRED = (
    "pyqtgraph",
    "numpy",
    "workbench.ui.live_plots",
    "workbench.ui.sweep_view",
    "workbench.core.run.runner",
    "workbench.core.transport.clients",
    "workbench.core.transport.streaming",
    "httpx2",
    "importlib.metadata",
    "openai",
    "keyring",
    "aiohttp",
    "workbench.ui.provider_panel",
    "workbench.ui.provider_controller",
    "workbench.core.doctor",
    "workbench.core.importers",
    "workbench.core.history.result_import",
    "workbench.ui.kernels_view",
    "kernels_bridge.client.connection",
    "workbench.commands.bench",
    "workbench.ui.demo",
    # issue 31: the Results, History and Summary tabs (built after the paint, like Sweep)
    "workbench.ui.results_view",
    "workbench.ui.history_view",
    "workbench.ui.summary_view",
    "workbench.core.history.summary",
    # issue 31: a provider's connection (its keys, the error texts, email.utils), at the first run
    "workbench.core.transport.provider_connection",
    "workbench.core.foundation.errors",
    "email.utils",
    # issue 31: what only an error, an unknown model id or an estimate needs
    "workbench.ui.error_titles",
    "html",
    "difflib",
    # issue 31: a run's facts and a capacity search (statistics, fractions, decimal), the
    # trace datasets (csv): a plan names them as types only, until a run uses them
    "workbench.core.history.run_facts",
    "workbench.core.load.capacity",
    "workbench.core.load.capacity_report",
    "workbench.core.datasets",
    "statistics",
)

# Runs `workbench gui`; at the app's "main window shown" line (its first paint) it prints the
# names of the modules loaded so far and ends the process.
AT_FIRST_PAINT = """
import logging, os, sys

class AtFirstPaint(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("main window shown"):
            sys.stdout.write("\\n".join(sorted(sys.modules)) + "\\n")
            sys.stdout.flush()
            os._exit(0)

logging.getLogger("workbench.ui.app").addHandler(AtFirstPaint())
from workbench.cli import main
main(["gui"])
"""


def modules_at_first_paint(home: Path) -> set[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_DATA_DIR": str(home / "data"),
        "WORKBENCH_CONFIG_DIR": str(home / "config"),
        "TMPDIR": str(home),  # the single-instance socket, which os._exit leaves behind
    }
    done = subprocess.run(
        [sys.executable, "-c", AT_FIRST_PAINT],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(done.stdout.split())


def test_first_paint_waits_for_no_deferred_module(tmp_path: Path) -> None:
    loaded = modules_at_first_paint(tmp_path)
    assert "workbench.ui.main_window" in loaded  # the line came from the real window
    assert sorted(m for m in DEFERRED if m in loaded) == []
    # no providers file: nothing to parse, so not its schemas or TOML editor either; the
    # shipped catalog is read without its schema (test_catalog.py checks that file)
    assert {"workbench.core.saved.provider_store", "tomlkit", "pydantic"} & loaded == set()


# Two providers a user saved, and the last session's panes on them (gui.ini, as the window
# saves it): the window opens on those panes.
TWO_PROVIDERS = """
[providers.deepseek]
base_url = "http://127.0.0.1:9/deepseek/v1"
models = ["deepseek-chat", "deepseek-reasoner"]

[providers.gateway]
base_url = "http://127.0.0.1:9/gateway/v1"
models = ["llama-3-70b"]
"""
LAST_PANES = "[General]\npanes=deepseek|deepseek-chat, gateway|llama-3-70b\n"

# Runs `workbench gui`; prints, as JSON lines, the modules loaded and the panes (each picker's
# key, each pane's target URL) at the first paint, then the panes and pickers once the window
# is ready (its Run enabled), and ends the process.
PANES_AT_FIRST_PAINT_AND_READY = """
import json, logging, os, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel

def window():
    from workbench.ui.main_window import MainWindow
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))

def panes(w):
    pickers = [p.picker.currentData() for p in w.pane_set.widgets[: len(w.pane_set.keys)]]
    urls = [p.target.base_url if p.target else None for p in w.session.panes]
    guard = bool(QApplication.instance().property("wheelGuard"))
    task = w.prompt.task.focusPolicy().name  # a picker made before the wheel guard
    buddies = sum(1 for label in w.findChildren(QLabel) if label.buddy() is not None)
    patterns = getattr(sys.modules["workbench.core.foundation.token_estimate"], "_patterns", None)
    return {
        "pickers": pickers, "urls": urls, "wheel_guard": guard, "task_focus": task,
        "buddies": buddies,
        "estimate_compiled": patterns.cache_info().currsize if patterns else None,
    }

def when_ready(w):
    if w.run_action.isEnabled():
        picker = w.pane_set.widgets[0].picker
        offered = [picker.itemData(i) for i in range(picker.count())]
        print(json.dumps({**panes(w), "offered": offered}), flush=True)
        os._exit(0)

class AtFirstPaint(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("main window shown"):
            w = window()
            print(json.dumps({**panes(w), "modules": sorted(sys.modules)}), flush=True)
            timer = QTimer(w)
            timer.timeout.connect(lambda: when_ready(w))
            timer.start(20)

logging.getLogger("workbench.ui.app").addHandler(AtFirstPaint())
from workbench.cli import main
main(["gui"])
"""


def first_paint_and_ready(tmp_path: Path) -> tuple[dict, dict]:
    """`workbench gui` with the settings folder tmp_path/config: what PANES_AT_FIRST_PAINT_AND_READY
    saw at the first paint and once the window was ready."""
    config = tmp_path / "config"
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(config),
        "TMPDIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", PANES_AT_FIRST_PAINT_AND_READY],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, ready = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    return first, ready


def test_saved_providers_are_read_after_the_first_paint_with_the_panes_kept(
    tmp_path: Path,
) -> None:
    """Issue 31: two saved providers do not hold the first paint (pydantic and the schemas stay
    out of it); the panes show the last session's models on them from the first frame, and
    get those providers' URLs once the file is read."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "providers.toml").write_text(TWO_PROVIDERS, encoding="utf-8")
    (config / "gui.ini").write_text(LAST_PANES, encoding="utf-8")
    first, ready = first_paint_and_ready(tmp_path)
    assert "workbench.ui.main_window" in first["modules"]
    late = {"pydantic", "pydantic_core", "tomlkit", "workbench.core.saved.provider_store"}
    assert late & set(first["modules"]) == set()
    keys = ["deepseek|deepseek-chat", "gateway|llama-3-70b"]
    assert first["pickers"] == keys
    assert ready["pickers"] == keys
    assert ready["urls"] == ["http://127.0.0.1:9/deepseek/v1", "http://127.0.0.1:9/gateway/v1"]
    assert {"deepseek|deepseek-reasoner", "gateway|llama-3-70b"} <= set(ready["offered"])


def test_the_wheel_guard_and_the_label_buddies_come_after_the_first_paint(
    tmp_path: Path,
) -> None:
    """Issue 31: the application's event filter that keeps the wheel off unfocused controls
    (issue 25) sees every event; made before the first paint it had Python wrap each object
    it was handed, ~40 ms of types the first frame never needs. It comes after that paint, and
    the pickers made before it (the prompt's task) still take the wheel only once clicked.
    Likewise the labels tied to their fields for screen readers (a walk over every widget),
    none of which the first frame shows."""
    (tmp_path / "config").mkdir()
    first, ready = first_paint_and_ready(tmp_path)
    assert "workbench.ui.main_window" in first["modules"]
    assert first["wheel_guard"] is False
    assert ready["wheel_guard"] is True
    assert ready["task_focus"] == "StrongFocus"
    assert ready["buddies"] > first["buddies"]  # label_fields() ran, after the paint
    # the token estimate's patterns (~3 ms to compile) wait for the first estimate
    assert first["estimate_compiled"] == 0


# The tabs a user does not see at start, each built after the first paint into its place.
VIEWS = ("sweep_view", "capacity_view", "results_view", "history_view", "summary_view")


class FirstPaintTabs(QObject):
    """The main window's tab titles and which of its tab views exist at its first paint."""

    def __init__(self) -> None:
        super().__init__()
        self.titles: list[str] | None = None
        self.views: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.titles is None and isinstance(watched, MainWindow):
            if event.type() == QEvent.Type.Paint:
                tabs = watched.tabs
                self.titles = [tabs.tabText(i) for i in range(tabs.count())]
                self.views = [v for v in VIEWS if hasattr(watched, v)]
        return False


def _past_run() -> str:
    """A finished run in the history the app opens."""
    store = RunStore()
    run_id = store.start_run("comparison", {"models": ["sim-70b-gqa"]})
    store.record(RequestResult(model="sim-70b-gqa", provider="local", run_id=run_id))
    store.finish_run(run_id)
    store.close()
    return run_id


def test_hidden_tabs_are_titled_from_the_first_frame_and_built_after_it(qapp, loop) -> None:
    run_id = _past_run()
    watcher = FirstPaintTabs()
    qapp.installEventFilter(watcher)
    qapp.setQuitOnLastWindowClosed(False)  # as the app's main() does: run_window ends the app
    args = argparse.Namespace(
        time_scale=0.05, kernel_csv=None, demo_screenshot=None, screenshot_when="done"
    )

    async def start_then_close() -> tuple[MainWindow, int]:
        earlier = set(QApplication.topLevelWidgets())  # windows other tests of this session left
        app = asyncio.ensure_future(run_window(args))
        deadline = time.monotonic() + 60
        while True:
            windows = [
                w
                for w in QApplication.topLevelWidgets()
                if isinstance(w, MainWindow) and w not in earlier
            ]
            if windows and windows[0].run_action.isEnabled():
                break
            if app.done():
                app.result()  # raises what ended the app early
            assert time.monotonic() < deadline, "the window never became ready"
            await asyncio.sleep(0.02)
        window = windows[0]
        ready = [window.tabs.tabText(i) for i in range(window.tabs.count())]
        assert ready == watcher.titles
        assert window.tabs.widget(ready.index("Providers")) is window.provider_panel
        assert window.tabs.widget(ready.index("Results")) is window.results_view
        assert window.tabs.widget(ready.index("Summary")) is window.summary_view
        assert window.tabs.widget(ready.index("History")) is window.history_view
        assert window.tabs.widget(ready.index("Kernels")) is window.kernels_view
        assert window.history_view.selected_run() == run_id  # read after the first paint
        window.close()
        return window, await asyncio.wait_for(app, 30)

    try:
        _, code = loop.run_until_complete(start_then_close())
    finally:
        qapp.removeEventFilter(watcher)
        qapp.setQuitOnLastWindowClosed(True)
    assert watcher.titles == [
        "Compare",
        "Sweep",
        "Capacity",
        "Results",
        "History",
        "Summary",
        "Providers",
        "Kernels",
    ]
    assert watcher.views == []  # issue 31: Results, History and Summary too
    assert code == 0
