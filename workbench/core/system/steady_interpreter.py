"""The interpreter held still while an open-loop schedule runs: no long collector pause, and a
waiting thread gets the GIL within half a millisecond.

An open-loop request is written at its due moment by the one event loop (core/load/
open_loop.py); anything that takes the loop's thread longer than a millisecond makes the
requests due meanwhile late. Measured (benchmarks/results/arrival_fidelity.md): Python's
cyclic collector, when a full collection comes due, walks every object the process holds (the
SDK, the catalog, the rows so far): 20-70 ms here, once every few seconds at 200 req/s, the
p99 lateness on its own. And a thread that wakes the loop on time (core/system/wake.py's
alarm) waits for the GIL until the loop's thread gives it up, at most the switch interval
(5 ms by default).

While inside `steady_interpreter()`:
- every object made before (the imports, the warm-up) is moved out of the collector's reach
  (`gc.freeze()`, after one collection), so a collection walks only what the schedule made;
  the collector itself stays on, so cyclic garbage of the run is still freed;
- the switch interval is at most `SWITCH_INTERVAL_S`.
Both are put back as they were when the last user leaves (schedules of several models may run
at once on one loop); objects frozen before are not touched.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

SWITCH_INTERVAL_S = 0.0005  # a tenth of the default: a thread waiting for the GIL waits this long


class _State:
    """How many schedules are inside, and what to put back when the last one leaves."""

    users = 0
    switch_interval_s = 0.0
    frozen_before = 0


@contextmanager
def steady_interpreter() -> Iterator[None]:
    """Collector frozen and a short switch interval while inside (see the module's text)."""
    if _State.users == 0:
        _State.switch_interval_s = sys.getswitchinterval()
        _State.frozen_before = gc.get_freeze_count()
        if _State.frozen_before == 0:  # someone else's freeze is theirs to undo: left alone
            gc.collect()  # garbage of the warm-up is freed, not frozen
            gc.freeze()
        sys.setswitchinterval(min(_State.switch_interval_s, SWITCH_INTERVAL_S))
    _State.users += 1
    try:
        yield
    finally:
        _State.users -= 1
        if _State.users == 0:
            sys.setswitchinterval(_State.switch_interval_s)
            if _State.frozen_before == 0:
                gc.unfreeze()
