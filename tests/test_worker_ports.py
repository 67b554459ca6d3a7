"""tests/support/ports.py's worker ports: each pytest-xdist worker picks from a range of its own,
below the OS's ephemeral range, so a port picked and handed to a third-party server (LiteLLM,
`transformers serve`) cannot be picked by another worker meanwhile."""

from __future__ import annotations

import socket
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support import ports


def test_the_workers_ranges_are_disjoint_and_below_the_ephemeral_range() -> None:
    ranges = [ports.worker_port_range(f"gw{i}") for i in range(16)]
    taken = [p for r in ranges for p in r]
    assert len(taken) == len(set(taken)) == 16 * ports.WORKER_PORTS_EACH
    assert ports.worker_port_range("") == ranges[0]  # a plain pytest: the first
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")
    if ephemeral.exists():
        assert max(taken) < int(ephemeral.read_text().split()[0])


def test_too_many_workers_are_told_to_run_fewer() -> None:
    with pytest.raises(RuntimeError, match="WORKBENCH_TEST_WORKERS"):
        ports.worker_port_range("gw200")


def test_a_port_in_use_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw5")
    own = ports.worker_port_range()
    with ExitStack() as held:
        free = []
        for port in own:  # every port of the range held, but the last one found free
            sock = held.enter_context(socket.socket())
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # already in use elsewhere: held all the same
            free.append(sock)
        assert free, "no port of the range could be bound here"
        left = free[-1].getsockname()[1]
        free[-1].close()
        assert ports.worker_port() == left
        assert ports.worker_port() == left  # asked again while it is still free
