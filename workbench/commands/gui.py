"""`workbench gui` (also `workbench` alone): the desktop app."""

from __future__ import annotations

import argparse
import os
import sys


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "gui",
        help="open the desktop app (the default with a display)",
        description="Open the Attention Workbench window.",
    )
    add_gui_args(p)
    p.set_defaults(func=run)


def add_gui_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--demo-screenshot",
        metavar="PATH",
        help="run the default comparison, save a PNG of the window and exit",
    )
    p.add_argument(
        "--demo",
        choices=("compare", "sweep", "providers", "capacity"),
        default="compare",
        help="what --demo-screenshot plays: the default comparison, a 1K-64K sweep of the "
        "attention twins, the provider panel's connection test, or the Capacity tab's search "
        "on two twins",
    )
    p.add_argument(
        "--screenshot-when",
        choices=("done", "streaming"),
        default="done",
        help="take the demo screenshot when the run is done, or mid-stream",
    )
    p.add_argument(
        "--lang",
        choices=("en", "zh_CN"),
        default=None,
        help="UI language (default: the saved choice, else the system locale)",
    )
    p.add_argument(
        "--kernel-csv",
        metavar="PATH|h200",
        help="time the built-in provider's attention from a `workbench kernels` CSV "
        "(measured on a GPU) instead of the analytic model; h200 is the sweep shipped with "
        "the app",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="speed of the built-in provider's simulated models (0.1 = 10x faster)",
    )


EXIT_NO_DISPLAY = 2  # no display, or Qt cannot be imported: the window cannot open here
EXIT_MISSING_LIBRARIES = 4  # Qt's xcb plugin lacks system libraries (named, with the fix)


def window_problem() -> tuple[int, str] | None:
    """Why a window cannot open here, with the exit code that says so, or None when it can.
    Checked before Qt starts: a missing library would make QApplication abort (exit 134)."""
    if (
        sys.platform.startswith("linux")
        and not os.environ.get("QT_QPA_PLATFORM")
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        return EXIT_NO_DISPLAY, (
            "no display: DISPLAY and WAYLAND_DISPLAY are unset (an SSH session or a "
            "server?). Use `workbench bench` for headless runs, or set "
            "QT_QPA_PLATFORM=offscreen for screenshots."
        )
    from workbench.core.system import qt_libraries

    # ldd on Qt's xcb plugin runs while Qt is imported (~50 ms each on a busy machine)
    xcb = qt_libraries.XcbCheck() if qt_libraries.uses_xcb() else None
    try:
        import PySide6.QtWidgets  # noqa: F401
    except ImportError as exc:
        missing = (xcb or qt_libraries.XcbCheck()).result()
        fix = (
            missing.message()
            if missing is not None
            else "reinstall attention-workbench (it depends on PySide6-Essentials)"
        )
        return EXIT_NO_DISPLAY, f"Qt cannot load ({exc}): {fix}"
    missing = xcb.result() if xcb is not None else None
    if missing is not None:
        return EXIT_MISSING_LIBRARIES, missing.message()
    return None


def run(args: argparse.Namespace) -> int:
    problem = window_problem()
    if problem:
        print(f"error: cannot open the window: {problem[1]}", file=sys.stderr)
        return problem[0]
    from workbench.ui.app import main

    return main(args)
