"""Ports on 127.0.0.1 for tests: one that refuses connections, and one for a server started by
a third-party CLI that cannot bind port 0 and say what it took (LiteLLM, `transformers serve`)."""

from __future__ import annotations

import itertools
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Each pytest-xdist worker picks only from a range of its own, below the OS's ephemeral range
# (where port 0 binds and outgoing connections take their local port): a port picked, released,
# then bound by another process cannot be taken meanwhile by another worker's pick.
WORKER_PORTS_START = 20000
WORKER_PORTS_EACH = 100
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_next_offset = itertools.count()


@contextmanager
def refusing_port() -> Iterator[int]:
    """Bound but never listening: a connection to it is refused at once, and no other process
    (another pytest-xdist worker's server) can bind it while the block runs, unlike a port
    picked and released."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


def worker_port_range(worker: str | None = None) -> range:
    """This process's ports: gw0 the first WORKER_PORTS_EACH above WORKER_PORTS_START, gw1 the
    next, and so on (no worker, a plain pytest: the first)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "") if worker is None else worker
    found = re.fullmatch(r"gw(\d+)", worker)
    index = int(found.group(1)) if found else 0
    start = WORKER_PORTS_START + index * WORKER_PORTS_EACH
    ports = range(start, start + WORKER_PORTS_EACH)
    ephemeral = _EPHEMERAL_RANGE.read_text().split() if _EPHEMERAL_RANGE.exists() else ()
    if ephemeral and ports.stop > int(ephemeral[0]):
        raise RuntimeError(
            f"worker {worker or '(none)'}'s ports {ports.start}-{ports.stop - 1} reach into the"
            f" OS's ephemeral range (from {ephemeral[0]}, {_EPHEMERAL_RANGE}): run fewer"
            " pytest-xdist workers (WORKBENCH_TEST_WORKERS)"
        )
    return ports


def worker_port() -> int:
    """A free port from this worker's range, for a server that is handed its port. Each call
    starts after the last one's pick, so a port just released is not handed out again at once."""
    ports = worker_port_range()
    for _ in ports:
        port = ports[next(_next_offset) % len(ports)]
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue  # held by something outside the suite, or still ours: the next one
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1} on 127.0.0.1")
