"""Run the built-in provider as its own process, as a real provider is another machine.

In-process, every repaint of the app would delay the provider's tokens (one GIL, one core at a
time) and the app would end up measuring itself. The child exits when its stdin closes, so it
never outlives the app, even if the app is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys

_URL = re.compile(r"listening at (http://\S+)")
# every request timed alone, no shared batch: for benchmarks of the client or a gateway, which
# a batch writing all its streams' tokens at one instant would blur (docs/local-provider.md)
UNBATCHED = ("--no-batching",)


def server_command(*options: str) -> list[str]:
    """The command that runs `workbench serve-local`, from source or from the frozen app."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "serve-local", *options]
    return [sys.executable, "-m", "workbench", "serve-local", *options]


class ServerProcess:
    """`await start()` returns the base URL once the child listens; `await stop()` ends it."""

    def __init__(self, time_scale: float = 1.0, extra: tuple[str, ...] = ()) -> None:
        self.options = (
            "--port",
            "0",
            "--time-scale",
            repr(time_scale),
            "--exit-with-stdin",
            *extra,
        )
        self.proc: asyncio.subprocess.Process | None = None
        self.base_url: str | None = None
        self._drain: asyncio.Task[None] | None = None

    async def start(self, timeout_s: float = 60.0) -> str:
        self.proc = await asyncio.create_subprocess_exec(
            *server_command(*self.options),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        assert self.proc.stdout is not None
        seen: list[str] = []
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    raw = await self.proc.stdout.readline()
                    if not raw:
                        break
                    line = raw.decode("utf-8", "replace").rstrip()
                    seen.append(line)
                    match = _URL.search(line)
                    if match:
                        self.base_url = match.group(1)
                        break
        except TimeoutError:
            pass
        if self.base_url is None:
            await self.stop()
            tail = "\n".join(seen[-10:])
            raise RuntimeError(f"the built-in provider did not start: {tail or 'no output'}")
        self._drain = asyncio.ensure_future(self._drain_output())
        return self.base_url

    async def _drain_output(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while await self.proc.stdout.readline():  # keep the pipe from filling up
            pass

    async def stop(self, timeout_s: float = 5.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), timeout_s)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._drain
