"""docs/metrics.md's definitions, computed from raw timestamps."""

from __future__ import annotations

import pytest

from workbench.core.foundation.metrics import aggregate, derive, percentile
from workbench.core.foundation.results import Prices, RequestResult

MS = 1_000_000


def _result(**kw) -> RequestResult:
    base = dict(
        model="m",
        t_send=0,
        t_first_chunk=10 * MS,
        t_first_token=200 * MS,
        t_first_content=300 * MS,
        t_last_token=1200 * MS,
        t_done=1250 * MS,
        event_times=[200 * MS, 300 * MS, 400 * MS, 1200 * MS],
        prompt_tokens=1000,
        completion_tokens=11,
    )
    base.update(kw)
    return RequestResult(**base)


def test_definitions_follow_metrics_md() -> None:
    # 11 token events (7 of them without text), so the first event carried one token
    m = derive(_result(network_baseline_ms=100.0, token_events=11))
    assert m.ttft_ms == 200 and m.ttfc_ms == 300 and m.e2e_ms == 1250
    assert m.decode_tps == pytest.approx(10 / 1.0)  # (11 - 1) tokens over 1.0 s
    assert m.tpot_ms == pytest.approx(100.0)
    assert m.overall_tps == pytest.approx(11 / 1.25)
    assert m.prefill_tps == pytest.approx(1000 / 0.1)  # TTFT minus the 100 ms baseline
    assert m.itl_p50_ms == pytest.approx(100.0)


def test_packed_events_leave_the_first_events_tokens_out_of_decode() -> None:
    # 11 tokens in 4 events: ~3 per event, so 8 tokens follow the first event over 1.0 s
    m = derive(_result())
    assert m.decode_tps == pytest.approx(8 / 1.0)
    assert m.tpot_ms == pytest.approx(1000 / 8)


def test_suspect_usage_counts_at_least_one_token_per_event() -> None:
    # an undercount (2 tokens reported for 4 text events) is replaced by the events...
    under = derive(_result(completion_tokens=2, usage_suspect=True))
    assert under.decode_tps == pytest.approx(3 / 1.0)  # 4 events, the first one's token left out
    # ...while a row suspect for its prompt count keeps packed events' larger count
    packed = derive(_result(usage_suspect=True))
    assert packed.decode_tps == derive(_result()).decode_tps == pytest.approx(8 / 1.0)


def test_one_token_has_no_decode_rate() -> None:
    m = derive(_result(completion_tokens=1))
    assert m.decode_tps is None and m.tpot_ms is None


def test_failed_request_before_first_token_has_no_ttft() -> None:
    m = derive(
        _result(
            t_first_token=None,
            t_first_content=None,
            t_last_token=None,
            event_times=[],
            completion_tokens=None,
            prompt_tokens=None,
        )
    )
    assert m.ttft_ms is None and m.decode_tps is None and m.cost_usd is None


def test_cost_uses_cached_price_for_cached_tokens() -> None:
    prices = Prices(input=2.0, output=8.0, cached_input=0.5)
    m = derive(_result(prices=prices, cached_tokens=400))
    expected = (600 * 2.0 + 400 * 0.5 + 11 * 8.0) / 1e6
    assert m.cost_usd == pytest.approx(expected)


def test_percentiles_and_aggregate() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    agg = aggregate([float(i) for i in range(1, 11)] + [None], errors=2)
    assert agg.n == 10 and agg.errors == 2 and agg.median == 5.5
    assert agg.p10 == pytest.approx(1.9) and agg.p99 is None  # p99 only when n >= 100
    assert aggregate([float(i) for i in range(100)]).p99 == pytest.approx(98.01)
