"""The batch's cost model (SimTiming.batch_step_s, prefill_chunk_s; local/batching.py): one
sequence alone is timed exactly as unbatched, a batch by the roofline of decode_step."""

from __future__ import annotations

import itertools

import pytest

from kernels_bridge.analytic import decode_step
from workbench.core.models.catalog import Catalog, load_catalog
from workbench.core.planning.memory_fit import kv_budget, kv_per_sequence, memory_fit
from workbench.local.batching import batch_limit, saturation_rate
from workbench.local.costmodel import STEP_OVERHEAD_S, SimSettings, SimTiming


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def twin(catalog: Catalog, kind: str, **settings: object) -> SimTiming:
    model = catalog.get(f"sim-70b-{kind}")
    assert model is not None
    return SimTiming(model, SimSettings(**settings))  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["mha", "gqa", "mla", "nsa"])
def test_a_batch_of_one_steps_as_a_request_alone(catalog: Catalog, kind: str) -> None:
    for settings in ({}, {"jitter": 0.3, "seed": 7}, {"time_scale": 0.01}):
        t = twin(catalog, kind, **settings)
        for kv_len, index in ((1000, 1), (32_800, 17), (262_144, 400)):
            assert t.batch_step_s([kv_len], index) == t.token_interval_s(kv_len, index)


@pytest.mark.parametrize("prompt", [7, 8192, 32_768, 100_001])
def test_prefill_chunks_add_up_to_the_ttft_alone(catalog: Catalog, prompt: int) -> None:
    t = twin(catalog, "gqa", time_scale=0.5)
    cuts = [0, *range(8192, prompt, 8192), prompt]
    total = sum(t.prefill_chunk_s(a, b) for a, b in itertools.pairwise(cuts))
    assert total == pytest.approx(t.ttft_s(prompt), rel=1e-12)


def test_a_batch_step_reads_the_weights_once_and_every_sequences_kv(catalog: Catalog) -> None:
    """Equal lengths: the step is decode_step's roofline at that batch (one home); it grows
    with the batch by each sequence's KV read, more for MHA than for MLA."""
    for kind in ("mha", "gqa", "mla"):
        t = twin(catalog, kind)
        m = t.model
        for n in (2, 16, 200):
            roofline = decode_step(m.shape, m.active_params, t.deployment, 4096, n)
            expected = roofline.seconds + STEP_OVERHEAD_S + t._comm_s()
            assert t.batch_step_s([4096] * n, 1) == pytest.approx(expected, rel=1e-12)
    growth = {
        k: twin(catalog, k).batch_step_s([32_768] * 16, 1)
        / twin(catalog, k).batch_step_s([32_768], 1)
        for k in ("mha", "gqa", "mla")
    }
    assert growth["mha"] > growth["gqa"] > growth["mla"] > 1


def test_the_kv_budget_is_memory_fits_rule(catalog: Catalog) -> None:
    """A batch of `batch_limit` sequences fits by memory_fit's own rule, one more does not."""
    for kind in ("mha", "gqa", "mla"):
        t = twin(catalog, kind)
        m, tokens = t.model, 32_768 + 256
        n = batch_limit(t, tokens)
        assert n * kv_per_sequence(m, t.deployment, tokens) <= kv_budget(m, t.deployment)
        alone = memory_fit(m, t.deployment, tokens)
        assert kv_per_sequence(m, t.deployment, tokens) == pytest.approx(alone.kv_per_device)
        if n < 256:
            assert (n + 1) * kv_per_sequence(m, t.deployment, tokens) > kv_budget(m, t.deployment)


def test_long_outputs_at_32k_saturate_mla_and_gla_above_gqa_and_mha(catalog: Catalog) -> None:
    rate = {
        k: saturation_rate(twin(catalog, k), 32_768, 4096) for k in ("mha", "gqa", "mla", "gla")
    }
    assert rate["gla"] > rate["mla"] > rate["gqa"] > rate["mha"]
    # time-scaled: a server at --time-scale 0.1 serves ten times the rate per real second
    assert saturation_rate(twin(catalog, "gqa", time_scale=0.1), 32_768, 4096) == pytest.approx(
        10 * rate["gqa"]
    )


def test_bad_batch_settings_raise() -> None:
    with pytest.raises(ValueError, match="max_num_seqs"):
        SimSettings(max_num_seqs=0)
    with pytest.raises(ValueError, match="max_num_seqs"):
        SimSettings(max_num_seqs=300, max_batched_tokens=256)
