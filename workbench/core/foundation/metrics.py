"""Every figure of docs/metrics.md, derived from a RequestResult's raw timestamps, in one place.

The GUI, the CLI and the CSV all call `derive`, so they cannot disagree.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.core.foundation.results import Prices, RequestResult

_NS_PER_MS = 1_000_000
_NS_PER_S = 1_000_000_000
_MAX_COUNT = 2**63 - 1  # the largest count a figure is derived from (SQLite's INTEGER)


@dataclass(frozen=True)
class RequestMetrics:
    """Derived figures of one request; None where the inputs for a figure are missing."""

    ttft_ms: float | None
    ttfc_ms: float | None
    e2e_ms: float | None
    decode_tps: float | None
    overall_tps: float | None
    prefill_tps: float | None
    tpot_ms: float | None
    itl_p50_ms: float | None
    itl_p90_ms: float | None
    itl_p99_ms: float | None
    cost_usd: float | None
    dispatch_ms: float | None  # intended start -> bytes written: the client's queue
    # from when the request was due (t_intended), so a late client never hides queueing
    ttft_from_scheduled_ms: float | None
    e2e_from_scheduled_ms: float | None


def _ms(start: int | None, end: int | None) -> float | None:
    if start is None or end is None:
        return None
    return (end - start) / _NS_PER_MS


def token_count(value: object) -> int | None:
    """A usable token count, or None: figures are never derived from a garbled usage value
    (a string, a float, a negative or absurdly large number sent by a broken server)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= _MAX_COUNT else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100), the same rule as numpy's default."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    frac = rank - low
    return ordered[low] + (ordered[high] - ordered[low]) * frac


def inter_token_latencies_ms(event_times: Sequence[int]) -> list[float]:
    """Gaps between consecutive text events (one event may carry several tokens)."""
    return [(b - a) / _NS_PER_MS for a, b in itertools.pairwise(event_times)]


def first_event_tokens(result: RequestResult, completion_tokens: int) -> int:
    """Tokens the first text event carried, which arrive at TTFT and so lie outside the decode
    span: 1, or more when a server packs several tokens into each event.

    At a steady rate the k tokens of each later event fill the events' share `f` of the span,
    and all n − k tokens after the first event the whole span: (events − 1)·k = (n − k)·f, so
    k = n·f / (events − 1 + f), which is n / events when the last token came with the last
    event (f = 1). Tokens sent with no event at all after the last text (special tokens that
    `transformers serve` does not send) shorten `f` instead of passing for packed ones."""
    events = result.token_events or len(result.event_times)
    if events <= 0:
        return 1
    share = _events_share(result)
    if events - 1 + share <= 0:  # one event and nothing after it: all tokens came with it
        return max(1, round(completion_tokens / events))
    return max(1, round(completion_tokens * share / (events - 1 + share)))


def _events_share(result: RequestResult) -> float:
    """(last text event − first token) / (last token − first token), 1 when unknown."""
    first, last = result.t_first_token, result.t_last_token
    if first is None or last is None or last <= first or not result.event_times:
        return 1.0
    return min(1.0, max(0.0, (result.event_times[-1] - first) / (last - first)))


def cost_usd(
    prices: Prices, prompt_tokens: int | None, completion_tokens: int | None, cached: int | None
) -> float | None:
    if not prices.known or (prompt_tokens is None and completion_tokens is None):
        return None
    prompt = prompt_tokens or 0
    cached_tokens = min(cached or 0, prompt)
    cached_price = prices.input if prices.cached_input is None else prices.cached_input
    total = (
        (prompt - cached_tokens) * prices.input
        + cached_tokens * cached_price
        + (completion_tokens or 0) * prices.output
    )
    return total / 1_000_000


def derive(result: RequestResult) -> RequestMetrics:
    """Compute every figure of docs/metrics.md for one request."""
    ttft = _ms(result.t_send, result.t_first_token)
    ttfc = _ms(result.t_send, result.t_first_content)
    e2e = _ms(result.t_send, result.t_done)
    out = token_count(result.completion_tokens)
    prompt_tokens = token_count(result.prompt_tokens)

    decode_tps = tpot = None
    decoded = out
    if result.usage_suspect:  # at least one token per text event; more when the usage says so
        decoded = max(out or 0, len(result.event_times))
    after_first = None if decoded is None else decoded - first_event_tokens(result, decoded)
    if after_first is not None and after_first > 0 and result.t_first_token is not None:
        span = _ms(result.t_first_token, result.t_last_token)
        if span is not None and span > 0:
            decode_tps = after_first / (span / 1000.0)
            tpot = span / after_first

    overall_tps = None
    if out is not None and e2e and e2e > 0:
        overall_tps = out / (e2e / 1000.0)

    prefill_tps = None
    if prompt_tokens and ttft is not None:
        prefill_ms = ttft - (result.network_baseline_ms or 0.0)
        if prefill_ms > 0:
            prefill_tps = prompt_tokens / (prefill_ms / 1000.0)

    itl = inter_token_latencies_ms(result.event_times)
    return RequestMetrics(
        ttft_ms=ttft,
        ttfc_ms=ttfc,
        e2e_ms=e2e,
        decode_tps=decode_tps,
        overall_tps=overall_tps,
        prefill_tps=prefill_tps,
        tpot_ms=tpot,
        itl_p50_ms=percentile(itl, 50),
        itl_p90_ms=percentile(itl, 90),
        itl_p99_ms=percentile(itl, 99),
        cost_usd=cost_usd(result.prices, prompt_tokens, out, token_count(result.cached_tokens)),
        dispatch_ms=_ms(result.t_intended, result.t_send),
        ttft_from_scheduled_ms=_ms(result.t_intended, result.t_first_token),
        e2e_from_scheduled_ms=_ms(result.t_intended, result.t_done),
    )


@dataclass(frozen=True)
class Aggregate:
    """Spread of one figure over repeats: median quoted, p10/p90 spread, p99 only when n >= 100."""

    n: int
    errors: int
    median: float | None
    p10: float | None
    p90: float | None
    p99: float | None


def aggregate(values: Iterable[float | None], errors: int = 0) -> Aggregate:
    """Aggregate the successful values; failed requests are counted, never averaged in."""
    present = [v for v in values if v is not None]
    n = len(present)
    return Aggregate(
        n=n,
        errors=errors,
        median=percentile(present, 50),
        p10=percentile(present, 10),
        p90=percentile(present, 90),
        p99=percentile(present, 99) if n >= 100 else None,
    )
