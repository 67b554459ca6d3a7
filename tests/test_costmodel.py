"""Timing of the simulated models (workbench.local.costmodel) on the 70B twins and others."""

from __future__ import annotations

import pytest

from workbench.core.models.catalog import Catalog, ModelInfo, load_catalog
from workbench.local.costmodel import TTFT_OVERHEAD_S, SimSettings, SimTiming


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _model(catalog: Catalog, model_id: str) -> ModelInfo:
    model = catalog.get(model_id)
    assert model is not None
    return model


def _twin(catalog: Catalog, kind: str, **settings: object) -> SimTiming:
    return SimTiming(_model(catalog, f"sim-70b-{kind}"), SimSettings(**settings))  # type: ignore[arg-type]


def test_default_deployment_is_2x_h200_tp2_batch1(catalog: Catalog):
    t = _twin(catalog, "mla")
    assert (t.deployment.gpu, t.deployment.tensor_parallel, t.deployment.batch) == ("H200", 2, 1)


def test_twins_decode_order_at_32k_gla_mla_gqa_mha(catalog: Catalog):
    tps = {k: _twin(catalog, k).decode_tps(32768) for k in ("mha", "gqa", "mla", "gla")}
    assert tps["gla"] > tps["mla"] > tps["gqa"] > tps["mha"]


def test_mla_advantage_over_gqa_grows_with_context(catalog: Catalog):
    mla, gqa = _twin(catalog, "mla"), _twin(catalog, "gqa")
    short = mla.decode_tps(1024) / gqa.decode_tps(1024)
    long = mla.decode_tps(65536) / gqa.decode_tps(65536)
    assert long > short


def test_at_tp8_gqa_and_gla_beat_mla(catalog: Catalog):
    t = {k: _twin(catalog, k, tensor_parallel=8) for k in ("gqa", "mla", "gla")}
    for kv in (8192, 32768, 65536):
        assert t["gqa"].decode_tps(kv) > t["mla"].decode_tps(kv)
        assert t["gla"].decode_tps(kv) > t["mla"].decode_tps(kv)


def test_mha_twin_512k_is_refused_256k_fits(catalog: Catalog):
    """8×H200 at TP 2 × PP 4: a device holds 20 of the 80 layers; MHA's 328 KB per token there
    runs out between 256K and 512K, and the refusal names what would fit."""
    mha = _twin(catalog, "mha")
    msg = mha.check(524288, 256)
    assert msg is not None
    assert "needs 1.38 TB of KV cache, the usable memory of about 12 H200s" in msg
    assert "Per device, its KV cache for 524,544 tokens needs 171.9 GB" in msg
    assert "17.5 GB of weights" in msg and "pipeline parallel 4" in msg
    assert "GQA (sim-70b-gqa)" in msg and "MLA (sim-70b-mla)" in msg
    assert "shorter prompt" in msg and "tensor-parallel" in msg
    assert mha.check(262144, 256) is None
    for kind in ("mqa", "gqa", "gta", "mla", "gla", "nsa", "moba"):
        assert _twin(catalog, kind).check(1048576, 256) is None, kind
    assert _twin(catalog, "mha", tensor_parallel=8).check(524288, 256) is None


def test_context_window_exceeded_is_refused(catalog: Catalog):
    falcon = SimTiming(_model(catalog, "sim-falcon-7b"))
    msg = falcon.check(2000, 100)
    assert msg is not None and "context window of 2,048 tokens" in msg and "max_tokens" in msg
    assert falcon.check(1900, 100) is None


def test_weights_that_do_not_fit_are_refused(catalog: Catalog):
    msg = _twin(catalog, "gqa", gpu="RTX4090", tensor_parallel=1).check(100, 10)
    assert msg is not None and "weights alone" in msg and "RTX4090" in msg


def test_batch_override_multiplies_kv(catalog: Catalog):
    msg = _twin(catalog, "gqa", batch=16).check(262144, 256)
    assert msg is not None and "16 sequences" in msg and "smaller batch" in msg
    assert _twin(catalog, "gqa", batch=16).decode_tps(4096) < _twin(catalog, "gqa").decode_tps(4096)


def test_ttft_grows_with_prompt_length(catalog: Catalog):
    for kind in ("mha", "gqa", "mla", "gla"):
        t = _twin(catalog, kind)
        times = [t.ttft_s(n) for n in (16, 256, 1024, 8192, 32768)]
        assert times == sorted(times) and len(set(times)) == len(times)
        assert times[0] > TTFT_OVERHEAD_S


def test_time_scale_is_linear(catalog: Catalog):
    full = _twin(catalog, "gqa")
    fast = _twin(catalog, "gqa", time_scale=0.01)
    assert fast.ttft_s(4096) == pytest.approx(full.ttft_s(4096) * 0.01)
    assert fast.token_interval_s(4096, 3) == pytest.approx(full.token_interval_s(4096, 3) * 0.01)
    assert fast.decode_tps(4096) == full.decode_tps(4096)  # unscaled by contract
    jittered = _twin(catalog, "gqa", jitter=0.2, seed=5)
    jittered_fast = _twin(catalog, "gqa", jitter=0.2, seed=5, time_scale=0.01)
    assert jittered_fast.token_interval_s(4096, 7) == pytest.approx(
        jittered.token_interval_s(4096, 7) * 0.01
    )


def test_token_interval_matches_decode_tps_without_jitter(catalog: Catalog):
    t = _twin(catalog, "mla")
    assert t.token_interval_s(20000, 0) == pytest.approx(1 / t.decode_tps(20000))
    assert t.token_interval_s(20000, 0) == t.token_interval_s(20000, 99)


def test_jitter_is_deterministic_for_a_seed(catalog: Catalog):
    a = _twin(catalog, "gqa", jitter=0.1, seed=1)
    b = _twin(catalog, "gqa", jitter=0.1, seed=1)
    c = _twin(catalog, "gqa", jitter=0.1, seed=2)
    seq_a = [a.token_interval_s(4096, i) for i in range(50)]
    assert seq_a == [b.token_interval_s(4096, i) for i in reversed(range(50))][::-1]
    assert seq_a != [c.token_interval_s(4096, i) for i in range(50)]
    assert len(set(seq_a)) > 40 and all(x > 0 for x in seq_a)
    mean = sum(seq_a) / len(seq_a)
    assert mean == pytest.approx(1 / a.decode_tps(4096), rel=0.1)


def test_gpu_override_changes_speed(catalog: Catalog):
    h200 = _twin(catalog, "gqa")
    h100 = _twin(catalog, "gqa", gpu="H100")
    assert h100.deployment.gpu == "H100"
    assert h100.decode_tps(8192) < h200.decode_tps(8192)
    assert h100.ttft_s(8192) == pytest.approx(h200.ttft_s(8192), rel=0.05)  # same peak FLOP/s


def test_bad_settings_raise(catalog: Catalog):
    with pytest.raises(ValueError, match="tensor_parallel"):
        _twin(catalog, "gqa", tensor_parallel=9)
    with pytest.raises(ValueError, match="unknown GPU"):
        _twin(catalog, "gqa", gpu="B300")
    with pytest.raises(ValueError, match="no deployment"):
        SimTiming(_model(catalog, "deepseek-v3"))


def test_every_simulated_model_serves_a_short_request(catalog: Catalog):
    for model in catalog.simulated():
        t = SimTiming(model)
        assert t.check(1000, 256) is None, model.id
        assert t.ttft_s(1000) > 0 and t.decode_tps(1000) > 0


def test_moe_reads_more_experts_at_larger_batch(catalog: Catalog):
    v3 = _model(catalog, "sim-deepseek-v3")
    one = SimTiming(v3).decode_tps(4096)
    eight = SimTiming(v3, SimSettings(batch=8)).decode_tps(4096)
    assert eight < one / 2
