"""Run the built-in provider on its own thread and event loop, beside an app's loop.

The provider stands in for a remote server: on the app's own loop, every repaint would delay
its tokens and the app would be measuring itself. On its own loop it keeps its schedule.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from workbench.local.server import LocalServer


class BackgroundServer:
    """`start()` returns once the server listens; `stop()` ends the thread."""

    def __init__(self, **server_options: Any) -> None:
        self._options = server_options
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: LocalServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "not started"
        return self._server.base_url

    @property
    def server(self) -> LocalServer:
        assert self._server is not None, "not started"
        return self._server

    def start(self, timeout_s: float = 30.0) -> str:
        self._thread = threading.Thread(target=self._run, name="local-provider", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise RuntimeError("the built-in provider did not start in time")
        if self._error is not None:
            raise RuntimeError(f"the built-in provider failed to start: {self._error}")
        return self.base_url

    def _run(self) -> None:
        # a plain asyncio loop even when the app installed qasync's loop policy globally
        loop = asyncio.DefaultEventLoopPolicy().new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            self._server = LocalServer(**self._options)
            loop.run_until_complete(self._server.start())
        except BaseException as exc:  # reported to start() in the caller's thread
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._server.stop())
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def stop(self, timeout_s: float = 10.0) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout_s)
        self._thread = None
