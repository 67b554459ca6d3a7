"""The built-in provider's life: a real HTTP server on 127.0.0.1 in its own process
(`workbench serve-local`), started once per window and stopped when the window closes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.local.process import ServerProcess


class BuiltInProvider:
    """Started on demand (`start`), safe to stop twice; `base_url` is None until it runs."""

    def __init__(self, time_scale: float = 1.0, kernel_csv: str | None = None) -> None:
        self.time_scale = time_scale
        self.kernel_csv = kernel_csv  # measured attention latencies for its models
        self.base_url: str | None = None
        self._server: ServerProcess | None = None

    async def start(self) -> str:
        """Its base URL, starting the process the first time."""
        if self._server is None:
            from workbench.local.process import ServerProcess

            extra = ("--kernel-csv", self.kernel_csv) if self.kernel_csv else ()
            server = ServerProcess(time_scale=self.time_scale, extra=extra)
            self.base_url = await server.start()
            self._server = server
        assert self.base_url is not None
        return self.base_url

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop()
            self._server = None
