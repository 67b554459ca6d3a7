"""The interpreter held still while an open-loop schedule runs: no full collection, and a
waiting thread gets the GIL within half a millisecond.

An open-loop request is written at its due moment by the one event loop (core/load/
open_loop.py); anything that takes the loop's thread longer than a millisecond makes the
requests due meanwhile late. Measured (gc.callbacks, benchmarks/arrival_fidelity.py): a full
collection of Python's cyclic collector walks every object the process holds (the SDK, the
catalog, the rows so far): 20-70 ms here, once every few seconds at 200 req/s, the p99
lateness on its own; the young generations' collections take ~0.1-1 ms. And a thread that wakes
the loop on time (core/system/wake.py's alarm) waits for the GIL until the loop's thread gives
it up, at most the switch interval (5 ms by default).

While inside `steady_interpreter()`:
- the collector makes no full collection (its oldest generation's threshold is out of reach);
  the young ones run as before. A request's objects are freed by their reference counts, not
  by the collector: a run at 200 req/s left ~150 objects in 4 s to it, so what waits for the
  full collection after the schedule is small;
- the switch interval is at most `SWITCH_INTERVAL_S`.
Both are put back as they were when the last user leaves (schedules of several models may run
at once on one loop).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

SWITCH_INTERVAL_S = 0.0005  # a tenth of the default: a thread waiting for the GIL waits this long
NO_FULL_COLLECTION = 1 << 30  # young collections between two full ones: never, within a run


class _State:
    """How many schedules are inside, and what to put back when the last one leaves."""

    users = 0
    switch_interval_s = 0.0
    thresholds: tuple[int, ...] = ()


@contextmanager
def steady_interpreter() -> Iterator[None]:
    """No full collection and a short switch interval while inside (see the module's text)."""
    if _State.users == 0:
        _State.switch_interval_s = sys.getswitchinterval()
        _State.thresholds = gc.get_threshold()
        young, middle = _State.thresholds[0], _State.thresholds[1]
        gc.set_threshold(young, middle, NO_FULL_COLLECTION)
        sys.setswitchinterval(min(_State.switch_interval_s, SWITCH_INTERVAL_S))
    _State.users += 1
    try:
        yield
    finally:
        _State.users -= 1
        if _State.users == 0:
            sys.setswitchinterval(_State.switch_interval_s)
            gc.set_threshold(*_State.thresholds)
