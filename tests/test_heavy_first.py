"""tests/support/heavy_first.py: under pytest-xdist's worksteal, each of the longest tests is the
first a worker runs, so none is left to run alone at the end of the parallel phase. Checked
against xdist's own scheduler, fed the reordered collection."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from xdist.scheduler.worksteal import WorkStealingScheduling

from tests.support import heavy_first as plugin
from tests.support.tiers import HEAVY_TESTS


class Worker:
    """What the scheduler talks to: the tests it sends, in the order sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def send_steal(self, indices: list[int]) -> None:
        pass

    def shutdown(self) -> None:
        self.shutting_down = True


def first_shares(collection: list[str], workers: int) -> list[list[int]]:
    """What xdist's worksteal sends each worker at the start."""
    options = {"tx": [f"{workers}*popen"]}  # what `-n N` sets
    scheduler = WorkStealingScheduling(SimpleNamespace(getvalue=options.get))  # type: ignore[arg-type]
    nodes = [Worker(f"gw{i}") for i in range(workers)]
    for node in nodes:
        scheduler.add_node(node)  # type: ignore[arg-type]
        scheduler.add_node_collection(node, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    return [node.sent for node in nodes]


def item(name: str) -> pytest.Item:
    file, test = name.split("::")
    return SimpleNamespace(path=Path("tests") / file, name=test, nodeid=name)  # type: ignore[return-value]


@pytest.mark.parametrize("workers", [2, 3, 4])
@pytest.mark.parametrize("total", [1, 7, 100, 1418])
def test_share_sizes_are_the_shares_worksteal_sends(total: int, workers: int) -> None:
    shares = first_shares([f"t{i}" for i in range(total)], workers)
    assert [len(s) for s in shares] == plugin.share_sizes(total, workers)


@pytest.mark.parametrize("workers", [2, 3, 4])
def test_each_worker_starts_with_the_longest_tests_and_the_rest_keep_their_order(
    workers: int,
) -> None:
    heavy = sorted(HEAVY_TESTS, key=lambda name: -HEAVY_TESTS[name])
    assert len(heavy) >= workers, "the list should hold at least one test per worker"
    others = [f"test_x.py::test_{i}" for i in range(300)]
    # the heavy tests scattered through the seeded order, as pytest-randomly leaves them
    names = list(others)
    for k, name in enumerate(reversed(heavy)):
        names.insert((k * 37) % len(names), name)
    ordered = [i.nodeid for i in plugin.heavy_first([item(n) for n in names], workers)]

    assert sorted(ordered) == sorted(names)  # nothing lost, nothing doubled
    assert [n for n in ordered if n in others] == others  # the seeded order otherwise
    starts = [share[0] for share in first_shares(ordered, workers)]
    assert sorted(ordered[i] for i in starts) == sorted(heavy[:workers])  # one each, first
    shares = first_shares(ordered, workers)
    heavy_seconds = [sum(HEAVY_TESTS.get(ordered[i], 0) for i in share) for share in shares]
    # no worker holds more than its even part plus the longest single test
    assert max(heavy_seconds) <= sum(heavy_seconds) / workers + HEAVY_TESTS[heavy[0]]


def test_without_xdist_nothing_moves() -> None:
    names = [*HEAVY_TESTS, "test_x.py::test_a"][::-1]
    items = [item(n) for n in names]
    assert plugin.heavy_first(items, 0) == items
    assert plugin.heavy_first(items, 1) == items
