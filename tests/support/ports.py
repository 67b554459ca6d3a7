"""A port on 127.0.0.1 that refuses connections, held for as long as a test needs it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def refusing_port() -> Iterator[int]:
    """Bound but never listening: a connection to it is refused at once, and no other process
    (another pytest-xdist worker's server) can bind it while the block runs, unlike a port
    picked and released."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])
