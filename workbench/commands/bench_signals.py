"""Ctrl-C and SIGTERM during `workbench bench`: stop the run cleanly, a second Ctrl-C at once."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable

from workbench.core.run.capacity_run import CapacityRunner
from workbench.core.run.runner import Runner
from workbench.core.scale.coordinator import ShardedRunner


def stop_on_signals(
    runner: Runner | ShardedRunner | CapacityRunner, stopped_by: list[int]
) -> Callable[[], None]:
    """Ctrl-C (or SIGTERM) stops the run cleanly: requests in flight become 'cancelled' rows
    and every row reaches the CSV. A second Ctrl-C quits at once."""
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        if stopped_by:
            raise KeyboardInterrupt
        stopped_by.append(signum)
        print(
            "stopping: cancelling the requests in flight (Ctrl-C again to quit at once)",
            file=sys.stderr,
        )
        runner.cancel()

    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop, int(sig))
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows; not the main thread
            pass

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove
