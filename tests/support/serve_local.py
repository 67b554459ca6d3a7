"""`workbench serve-local` as its own process, on a port the server picks (`--port 0`).

The server binds the port and announces it; a port picked by the test, released, then passed
in could be taken by another pytest-xdist worker in between.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

WORKBENCH = [sys.executable, "-m", "workbench"]
_LISTENING = re.compile(r"listening at (http://127\.0\.0\.1:(\d+)/v1)")


@dataclass
class LocalServer:
    proc: subprocess.Popen[str]
    base_url: str  # http://127.0.0.1:PORT/v1
    port: int


@contextmanager
def serve_local(*flags: str, env: Mapping[str, str] | None = None) -> Iterator[LocalServer]:
    """Start serve-local with `flags`, yield it once it listens, end it with SIGTERM (as a user's
    Ctrl+C would); its exit code is `proc.returncode` afterwards."""
    proc = subprocess.Popen(
        [*WORKBENCH, "serve-local", "--port", "0", *flags],
        env=None if env is None else dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = _LISTENING.search(line)
        assert found, f"serve-local did not announce its port: {line!r}"
        yield LocalServer(proc, found.group(1), int(found.group(2)))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
