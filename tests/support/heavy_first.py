"""Under pytest-xdist, the longest tests (tiers.HEAVY_TESTS) start first, one worker each.

`--dist worksteal` hands the n workers the collected order in n contiguous shares (the first
len/n tests to one, the next to another, ...), and an idle worker later steals from the END of
the busiest share. A long test left late in a share (or stolen last) runs alone while the other
workers have finished: the phase's wall time is then its start plus its length. This plugin,
after pytest-randomly's shuffle (which runs before every plain implementation of this hook),
puts each heavy test at the head of a share, the longest first, spreading them so the shares'
heavy seconds stay even; every other test keeps its place in the seeded order. Each worker
collects, and reorders, the same way, so all agree (xdist checks that). Without xdist (one
process, the serial phase) nothing moves. tests/conftest.py registers this module as a plugin.
"""

from __future__ import annotations

import os

import pytest

from tests.support.tiers import HEAVY_TESTS, node_name


def share_sizes(total: int, workers: int) -> list[int]:
    """The sizes of worksteal's first shares: worker i gets what is left // workers left."""
    sizes = []
    left = total
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    return sizes


def heavy_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """`items` with each heavy test at the head of one of `workers` shares."""
    heavy = sorted(
        (i for i in items if node_name(i) in HEAVY_TESTS),
        key=lambda i: -HEAVY_TESTS[node_name(i)],
    )
    if workers < 2 or not heavy:
        return items
    sizes = share_sizes(len(items), workers)
    heads: list[list[pytest.Item]] = [[] for _ in sizes]
    seconds = [0.0 for _ in sizes]
    for item in heavy:  # the longest first, each to the share with the fewest heavy seconds
        share = min(
            (s for s in range(len(sizes)) if len(heads[s]) < sizes[s]), key=seconds.__getitem__
        )
        heads[share].append(item)
        seconds[share] += HEAVY_TESTS[node_name(item)]
    chosen = {id(i) for i in heavy}
    rest = iter([i for i in items if id(i) not in chosen])
    ordered: list[pytest.Item] = []
    for head, size in zip(heads, sizes, strict=True):
        ordered += head
        ordered += [next(rest) for _ in range(size - len(head))]
    return ordered


@pytest.hookimpl(trylast=True)  # after -m, --phase and pytest-randomly have chosen and shuffled
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))  # set in each xdist worker
    items[:] = heavy_first(items, workers)
