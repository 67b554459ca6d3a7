"""Start the desktop app: one QApplication, one qasync event loop, the main window."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from workbench.core.access.provider_files import default_providers_path
from workbench.core.foundation.redaction import install_log_redaction
from workbench.core.history.run_history import RunStore, StoreError
from workbench.core.run.plan import LOCAL_PROVIDER
from workbench.core.system import app_log, fd_limit
from workbench.desktop import APP_ID, icon_files
from workbench.ui.compare_controller import CompareController
from workbench.ui.error_sink import ErrorSink
from workbench.ui.main_window import MainWindow
from workbench.ui.pane_choices import choices_for
from workbench.ui.panes_model import split_pane_key
from workbench.ui.single_instance import InstanceGuard, claim
from workbench.ui.translators import install_translators, settings
from workbench.ui.window_late import add_kernels_tab, add_provider_tab, finish_start, reserve_tabs
from workbench.ui.window_state import restore_state

if TYPE_CHECKING:
    from workbench.ui.kernels_view import KernelsView

log = logging.getLogger(__name__)
START_NS = time.perf_counter_ns()


def _load_providers(session: CompareController) -> None:
    path = default_providers_path()
    if path.exists() or path.is_symlink():  # else no provider is saved (load_providers says so)
        from workbench.core.saved.provider_store import load_providers  # its schemas: ~80 ms

        loaded = load_providers(path)
        if loaded.warning:
            log.warning(loaded.warning)
        session.providers = {p.name: p for p in loaded.providers}


def saved_pane_choices(window: MainWindow) -> list[tuple[str, str]]:
    """The last session's pane keys on saved providers, as picker entries named by their keys:
    the panes are drawn from them until the providers file is read, after the first paint (its
    schemas bring pydantic, ~0.1 s; tests/test_cold_start.py keeps it out of that paint)."""
    panes = window.settings.value("panes")
    if not isinstance(panes, list):
        return []
    keys = [split_pane_key(str(k))[:2] for k in panes]
    return [(f"{p}|{m}", f"{m}  ({p})") for p, m in keys if p != LOCAL_PROVIDER]


def read_saved_providers(window: MainWindow, session: CompareController) -> None:
    """After the first paint: the saved providers, their models in the pickers; a pane whose
    provider or model is no longer saved goes back to the default panes, as at a first start."""
    _load_providers(session)
    window.pane_set.set_choices(choices_for(session))
    known = {k for k, _ in window.pane_set.choices}
    keys = [k for k in window.pane_set.keys if "|".join(split_pane_key(k)[:2]) in known]
    if keys != window.pane_set.keys:
        if len(keys) >= 2:
            window.pane_set.set(keys)
        else:
            window.apply_preset("real")


def warm_sdk() -> None:
    """Import the runner, its HTTP client and the SDK (on a worker thread, after the paint), so
    that the first Run does not pay for them on the UI thread."""
    import workbench.core.run.runner  # noqa: F401
    from workbench.core.transport.clients import warm_up

    warm_up()


def freeze_startup_heap() -> None:
    """Put what start-up allocated (Qt wrappers, pyqtgraph, the SDK's many types) out of the
    garbage collector's reach: a full collection then scans only what runs create, instead of
    pausing the UI thread for 50-100 ms mid-stream (benchmarks/gui_load.py --events)."""
    gc.collect()
    gc.freeze()


def app_icon() -> QIcon:
    """The hicolor PNGs (16-256 px) and the SVG: Qt picks the size each place needs."""
    icon = QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    return icon


def bring_forward(window: MainWindow) -> None:
    """A second launch: show this window, raised and active, as if it had opened."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


def build_hidden_tabs(window: MainWindow, session: CompareController) -> KernelsView:
    """The Providers and Kernels tabs, into the places reserved for them: hidden at start, they
    are built after the first paint (their imports and the keyring's probe take ~0.3 s)."""
    from workbench.ui.kernels_view import KernelsView
    from workbench.ui.provider_controller import ProviderController
    from workbench.ui.provider_panel import ProviderPanel

    add_provider_tab(window, ProviderPanel(ProviderController(session)))
    kernels_view = KernelsView()
    add_kernels_tab(window, kernels_view)
    return kernels_view


async def first_paint(window: MainWindow, timeout_s: float = 2.0) -> None:
    """Until the window has painted once (or `timeout_s`, should it not be exposed)."""
    painted = asyncio.get_running_loop().create_future()
    window.painted.connect(lambda: painted.done() or painted.set_result(None))
    window.show()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(painted, timeout_s)


async def run_window(
    args, guard: InstanceGuard | None = None, left_fault: tuple[str, Path] | None = None
) -> int:
    """The window's life; `left_fault` is the fatal signal an earlier session died of (its
    faulthandler text and crash file), shown once the window is up."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        store: RunStore | None = RunStore()
    except StoreError as exc:  # runs still show and export, from a history kept in memory
        log.warning("%s; this session's runs are kept in memory only", exc)
        store = None
    session = CompareController(
        store=store, time_scale=args.time_scale, kernel_csv=getattr(args, "kernel_csv", None)
    )
    saved = default_providers_path()
    saved_providers = saved.exists() or saved.is_symlink()
    if not saved_providers:
        _load_providers(session)  # none saved: nothing to read, no schema to build
    window = MainWindow(session, settings(), paint_first=True)
    if guard is not None:
        guard.activate_requested.connect(lambda: bring_forward(window))
        guard.lost.connect(lambda text: window.statusBar().showMessage(text, 60_000))
    reserve_tabs(window)
    log_file = app_log.current_log_file()
    sink = ErrorSink(window, folder=log_file.parent if log_file else None, log_file=log_file)
    sink.install(asyncio.get_running_loop())
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)
    window.pane_set.set_choices(
        choices_for(session) + (saved_pane_choices(window) if saved_providers else [])
    )
    if not restore_state(window) or args.demo_screenshot:
        window.apply_preset("real")
        window.prompt.set_tokens(32768)
    window.painted.connect(
        lambda: log.info(
            "main window shown after %.0f ms", (time.perf_counter_ns() - START_NS) / 1e6
        )
    )
    window.run_action.setEnabled(False)  # until the built-in provider listens
    kernels_view: KernelsView | None = None
    try:
        await first_paint(window)
        if saved_providers:
            read_saved_providers(window, session)
        finish_start(window)
        if left_fault is not None:
            sink.report(*left_fault)
        if os.environ.get(app_log.TEST_CRASH_ENV):
            from workbench.ui.crash_dialog import force_test_crash

            force_test_crash(os.environ[app_log.TEST_CRASH_ENV])
        # the provider's process starts on another core while this one builds the hidden tabs
        local = asyncio.ensure_future(session.start_local_provider())
        kernels_view = build_hidden_tabs(window, session)
        await local
        window.pane_set.set(window.pane_set.keys)  # the panes' targets now carry the provider's URL
        # the SDK takes ~1 s to import: load it now, off the UI thread, not at the first Run
        await asyncio.get_running_loop().run_in_executor(None, warm_sdk)
        freeze_startup_heap()
        window.run_action.setEnabled(True)
        if not args.demo_screenshot:
            await closed.wait()
            return 0
        from workbench.ui.demo import demo_screenshot

        code = await demo_screenshot(
            window, Path(args.demo_screenshot), args.screenshot_when, args.demo
        )
        window.close()
        return code
    finally:
        sink.uninstall()
        if kernels_view is not None:
            await kernels_view.aclose()
        await session.close()


def start_log_files(faults: bool = True) -> tuple[str, Path] | None:
    """The log file and faulthandler's file in the data folder; returns the fatal signal an
    earlier session died of (its text and the crash file made of it), if any."""
    import PySide6
    from PySide6.QtCore import qVersion

    try:
        app_log.install_file_log(extra={"Qt": qVersion(), "PySide6": PySide6.__version__})
        left = app_log.enable_fault_file() if faults else None
        return (left, app_log.report_left_fault(left)) if left else None
    except OSError as exc:  # a read-only data folder: the app still runs, with stderr only
        log.warning("no log file: %s", exc)
        return None


def main(args) -> int:
    """`workbench gui`: returns the process exit code."""
    import qasync

    install_log_redaction()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for noisy in ("httpx2", "httpcore2", "aiohttp.access"):  # one line per request is noise
        logging.getLogger(noisy).setLevel(logging.WARNING)
    os.environ.setdefault("QT_API", "pyside6")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Attention Workbench")
    app.setQuitOnLastWindowClosed(False)  # the coroutine ends the app, after cleaning up
    app.setOrganizationName("attention-workbench")
    app.setDesktopFileName(APP_ID)  # Wayland's app id, and how desktops find our .desktop file
    app.setWindowIcon(app_icon())
    fd_limit.raise_soft_limit()  # a bench at concurrency 256 can meet a soft limit of 1024
    guard = None
    if not args.demo_screenshot:  # a scripted screenshot may run beside an open window
        guard = claim()
        if guard is None:
            print("Attention Workbench is already running: its window was brought forward.")
            return 0
    install_translators(app, args.lang)
    left_fault = start_log_files(faults=not args.demo_screenshot)  # not another window's file
    if guard is not None:
        guard.log_state()
    try:
        return qasync.run(run_window(args, guard, left_fault))
    except asyncio.CancelledError:
        return 0
