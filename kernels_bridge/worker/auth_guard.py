"""What the TCP worker remembers about peers before they authenticate.

FailedTokens: a per-address budget of wrong tokens. The FREE_FAILURES-th wrong token from one
address, and each later one, shuts the address out for BACKOFF_BASE_S · 2^k seconds (k = 0, 1,
2, ... counts them), at most BACKOFF_MAX_S. While shut out, a connection from that
address is refused before its token is read, so guessing runs at a few tries a minute instead of
thousands a second. A right token clears the address's count. Only lines that offer something
count: a connection that closes or stays silent is not a guess (idle ones are the pending cap's
business), so a flood of silent connections cannot shut out a real client sharing the address
(an SSH tunnel makes every client 127.0.0.1).

Pending: the connections still authenticating, oldest first. When it is full, a new connection
displaces the oldest one that has sent nothing yet (else the oldest), instead of being refused:
a client that sends its token at once is never starved by connections that send none.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from kernels_bridge.protocol import TOKEN_ENV

FREE_FAILURES = 5  # the wrong token from one address that first shuts it out
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 300.0
FORGET_AFTER_S = 3600.0  # an address quiet this long starts afresh
MAX_ADDRESSES = 4096  # the table is bounded too: the oldest entries go first


class FailedTokens:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        # address -> (failures, time of the last one, shut out until)
        self._seen: OrderedDict[str, tuple[int, float, float]] = OrderedDict()

    def wait_s(self, address: str) -> float:
        """Seconds this address is still shut out for; 0 when it may try a token."""
        entry = self._entry(address)
        return max(0.0, entry[2] - self._clock()) if entry else 0.0

    def failed(self, address: str) -> None:
        now = self._clock()
        failures = (self._entry(address) or (0, now, now))[0] + 1
        until = now
        if failures >= FREE_FAILURES:
            until += min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** min(30, failures - FREE_FAILURES))
        self._seen[address] = (failures, now, until)
        self._seen.move_to_end(address)
        while len(self._seen) > MAX_ADDRESSES:
            self._seen.popitem(last=False)

    def succeeded(self, address: str) -> None:
        self._seen.pop(address, None)

    def _entry(self, address: str) -> tuple[int, float, float] | None:
        entry = self._seen.get(address)
        if entry and self._clock() - max(entry[1], entry[2]) > FORGET_AFTER_S:
            del self._seen[address]
            return None
        return entry


def wait_text(seconds: float) -> str:
    """The refusal a shut-out address reads."""
    return (
        f"too many failed tokens from this address; wait {math.ceil(seconds)} s "
        f"(check the token: the worker's --token-file or ${TOKEN_ENV})"
    )
