"""One built-in provider process (`workbench serve-local`) per pytest process and time scale,
for every window `gui_driver.make_window` opens.

A window starts its own serve-local and stops it when it closes (builtin_provider.py); ~160
window tests did so under -n, ~0.4 s of CPU each for the process's start alone
(benchmarks/results/test_tiers.md, session 39). The server is the same real process, started
with the command line the window's own would have (`server_command`), and stays up between tests:
a test reaches it only through the window, one test at a time per process. Tests of the
provider's own life (started on demand, stopped with the window) build their own
CompareController, which starts its own. `stop_all` (tests/support/gui.py, at the session's
end) closes its stdin, as the app's exit would, and reaps it.
"""

from __future__ import annotations

import re
import subprocess
import threading

from workbench.local.process import server_command
from workbench.ui.builtin_provider import BuiltInProvider

_URL = re.compile(r"listening at (http://\S+)")
_RUNNING: dict[float, tuple[subprocess.Popen[str], str]] = {}


def _drain(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    for _ in proc.stdout:  # keep the pipe from filling up, as ServerProcess does
        pass


def _url(time_scale: float) -> str:
    running = _RUNNING.get(time_scale)
    if running is None or running[0].poll() is not None:  # not yet, or ended: a new one
        options = ("--port", "0", "--time-scale", repr(time_scale), "--exit-with-stdin")
        proc = subprocess.Popen(
            server_command(*options),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if found := _URL.search(line):
                break
        else:
            raise RuntimeError(f"the built-in provider did not start: {''.join(seen[-10:])}")
        threading.Thread(target=_drain, args=(proc,), daemon=True).start()
        _RUNNING[time_scale] = (proc, found.group(1))
    return _RUNNING[time_scale][1]


class SharedBuiltIn(BuiltInProvider):
    """The window's built-in provider, on this process's server for its time scale."""

    async def start(self) -> str:
        self.base_url = _url(self.time_scale)
        return self.base_url

    async def stop(self) -> None:
        self.base_url = None  # the server stays for the next window


def stop_all() -> None:
    while _RUNNING:
        _, (proc, _) = _RUNNING.popitem()
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
