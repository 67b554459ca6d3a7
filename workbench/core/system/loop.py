"""The event loop a headless run uses: uvloop where it is installed, asyncio's own elsewhere.

uvloop (libuv) runs the loop's own work (polling, callbacks, socket reads) in C: at 64 streams
it takes a third off the client's CPU per streamed token (benchmarks/results/stream_profile.md),
CPU that otherwise delays every token arriving at the same moment. It is a dependency on Linux
and macOS only; it does not exist for Windows, where asyncio's loop is used. The app keeps
qasync's loop (Qt's), which cannot be uvloop.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def uvloop_available() -> bool:
    if sys.platform == "win32":
        return False
    try:
        import uvloop  # noqa: F401
    except ImportError:  # a source checkout whose venv predates the dependency
        return False
    return True


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, on uvloop when it is available."""
    if uvloop_available():
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
