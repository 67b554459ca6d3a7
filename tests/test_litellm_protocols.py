"""Issue 17, Deliver 5: one model reached three ways through a real LiteLLM proxy in front of
the built-in provider (its /v1/chat/completions, /v1/messages and /v1/responses), each measured
by the real `workbench bench --protocol chat|anthropic|responses` CLI at concurrency 4, every
row held to the upstream's own emit log.

LiteLLM picks the upstream path itself, and the emit log's `protocol` shows which: behind an
`openai/` model its /v1/messages becomes the upstream's /v1/responses; behind a `hosted_vllm/`
one, chat completions. The upstream model reasons first (serve-local's `reasoning` mode), so
each endpoint also shows whether the thinking survived the translation. The gateway's ids are
its own, so rows pair with upstream completions by the order of their first tokens
(litellm_gateway.check_against_emit_log). benchmarks/gateway_protocols.py records the figures.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from tests.support.litellm_gateway import Gateway, bench, check_against_emit_log
from workbench.local.emitlog import EmitRecord

MAX_TOKENS = 24
REASONING_TOKENS = MAX_TOKENS // 2  # serve-local reasons for min(40, max_tokens // 2) tokens
REQUESTS = 8
# What LiteLLM may add to one request's TTFT at concurrency 4 (its pre-call work and relaying,
# ~30-90 ms measured on a quiet 2-core box), with room for a busy CI runner: a TTFT taken from
# the wrong event is off by the whole stream (~400 ms at 17 ms a token) or is negative.
GATEWAY_SLACK_C4_MS = 1500.0
# (--protocol, gateway alias, the upstream path LiteLLM took, as the emit log's protocol)
ENDPOINTS = {
    "chat": ("chat", "gw-think", "chat"),
    "messages-to-responses": ("anthropic", "gw-think", "responses"),
    "responses": ("responses", "gw-think", "responses"),
    "messages-to-chat": ("anthropic", "gw-vllm-think", "chat"),
}


@pytest.fixture
def gateway(litellm_gateway: Gateway) -> Gateway:
    """The worker's one proxy (tests/support/litellm_gateway.py), gw-think and gw-vllm-think among
    its routes (PROVIDER_ROUTES)."""
    return litellm_gateway


def _decode_tps(record: EmitRecord) -> float:
    emits = record.chunk_emit_ns
    return (len(emits) - 1) / ((emits[-1] - emits[0]) / 1e9)


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_each_endpoint_measured_against_the_upstream_emit_log(
    gateway: Gateway, tmp_path: Path, endpoint: str
) -> None:
    protocol, alias, upstream_path = ENDPOINTS[endpoint]
    mark = gateway.mark()
    run = bench(gateway, tmp_path / "r.csv", alias, "--protocol", protocol,
                "--max-tokens", str(MAX_TOKENS), "--concurrency", "4",
                "--repeats", str(REQUESTS))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert len(run.rows) == REQUESTS
    assert {(r["protocol"], r["concurrency"], r["error_class"]) for r in run.rows} == {
        (protocol, "4", "")
    }
    # the measured requests' completions (the baseline's probes and the calibration ask fewer)
    records = [r for r in gateway.emitted_since(mark) if r.completion_tokens == MAX_TOKENS]
    assert {r.protocol for r in records} == {upstream_path}
    # each TTFT read after the upstream wrote that token, the tokens the chunks written
    added_ms = check_against_emit_log(run.rows, records, GATEWAY_SLACK_C4_MS)
    assert statistics.median(added_ms) >= 0, added_ms
    for row in run.rows:
        # usage from the protocol's own usage event, as the upstream counted it
        assert row["usage_estimated"] == "false" and row["usage_suspect"] == "false"
        assert int(row["completion_tokens"]) == MAX_TOKENS
        assert int(row["prompt_tokens"]) in {r.prompt_tokens for r in records}
        # the thinking survived: the first token was reasoning, the answer text came later
        assert float(row["ttfc_ms"]) > float(row["ttft_ms"])
    if protocol != "anthropic":  # Anthropic's usage has no reasoning count
        assert {r["reasoning_tokens"] for r in run.rows} == {str(REASONING_TOKENS)}
    # LiteLLM relays each token as it comes: decode speed is the upstream's
    decode = statistics.median(float(r["decode_tps"]) for r in run.rows)
    assert decode == pytest.approx(statistics.median(map(_decode_tps, records)), rel=0.15)
