"""How early an open-loop request starts, so that it is built when it falls due.

Building a request (the SDK's request object, the HTTP transport's, a pooled connection) takes
~1-2 ms of CPU here, more on a busy loop. An open-loop request therefore starts this lead before
its scheduled moment, and its bytes are held until that moment (core/transport/send_stamp.py).
The lead is measured, not guessed: a high percentile of how long this cell's recent requests
took from their start to the moment the transport was ready to write, with a margin, bounded.
A request whose build outlasts the lead is late, and `dispatch_ms` says by how much.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

FIRST_LEAD_NS = 5_000_000  # before any request was measured: a few builds on a loaded machine
MIN_LEAD_NS = 500_000
MAX_LEAD_NS = 20_000_000  # a longer lead only holds a connection longer
_WINDOW = 128  # recent builds: the lead follows the loop's load within a second at 100 req/s
_PERCENTILE = 0.99
_MARGIN = 1.5
_EVERY = 8  # the percentile is recomputed after this many new builds


class SendLead:
    """The lead for the next request of one cell's schedule (one worker's share of it)."""

    def __init__(self) -> None:
        self._builds: deque[int] = deque(maxlen=_WINDOW)
        self._unseen = 0
        self.ns = FIRST_LEAD_NS
        # a long build (the p90): what must fit between two held requests' due moments. (The
        # median let a trace's long prompts, 30x the short ones, overlap a due moment.)
        self.long_build_ns = FIRST_LEAD_NS // 2

    def built(self, took_ns: int) -> None:
        """One request took `took_ns` from its start until it could be written."""
        self._builds.append(took_ns)
        self._unseen += 1
        if self._unseen >= _EVERY:
            self._unseen = 0
            ordered = sorted(self._builds)
            high = ordered[min(len(ordered) - 1, int(len(ordered) * _PERCENTILE))]
            self.ns = max(MIN_LEAD_NS, min(MAX_LEAD_NS, int(high * _MARGIN)))
            self.long_build_ns = min(ordered[len(ordered) * 9 // 10], self.ns)


# inside held_until_due: told the moment the transport is ready to write (before any hold)
_HOLD: ContextVar[Callable[[int], None] | None] = ContextVar("workbench_hold", default=None)


@contextmanager
def held_until_due(ready: Callable[[int], None]) -> Iterator[None]:
    """While inside, a request whose `t_intended` is still ahead is written at that moment, not
    before (the transport's hooks hold it: core/transport/send_stamp.py); `ready(perf_counter_ns)`
    hears when the transport was ready to write it."""
    token = _HOLD.set(ready)
    try:
        yield
    finally:
        _HOLD.reset(token)


def held_listener() -> Callable[[int], None] | None:
    """Inside `held_until_due`, its `ready`; else None: the request is never held."""
    return _HOLD.get()
