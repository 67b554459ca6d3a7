"""docs/attention.md's numbers, from kernels_bridge.variants and kernels_bridge.analytic."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kernels_bridge.analytic import (
    PREFILL_MFU,
    Deployment,
    decode_step,
    get_profile,
    kv_fit,
    load_hardware_profiles,
    params_read_per_step,
    prefill_attention_flops,
    prefill_seconds,
    roofline_seconds,
    weight_bytes_per_device,
)
from kernels_bridge.variants import (
    AttentionShape,
    arithmetic_intensity,
    causal_keys_sum,
    decode_bytes_and_flops,
    decode_kv_bytes_read,
    decode_tokens_read,
    kv_bytes_per_token,
    kv_bytes_per_token_per_device,
    kv_bytes_per_token_per_layer,
)

KIB = 1024

LLAMA2_7B = AttentionShape("MHA", layers=32, q_heads=32, kv_heads=32, head_dim=128)
LLAMA3_8B = AttentionShape("GQA", layers=32, q_heads=32, kv_heads=8, head_dim=128)
LLAMA3_70B = AttentionShape("GQA", layers=80, q_heads=64, kv_heads=8, head_dim=128)
FALCON_7B = AttentionShape("MQA", layers=32, q_heads=71, kv_heads=1, head_dim=64)
DSV2 = AttentionShape("MLA", 60, 128, 1, 128, latent_dim=512, rope_dim=64, v_head_dim=128)
DSV3 = dataclasses.replace(DSV2, layers=61)
KIMI_K2 = dataclasses.replace(DSV3, q_heads=64)
GTA_8 = AttentionShape("GTA", layers=1, q_heads=32, kv_heads=8, head_dim=128, rope_dim=64)
GLA_2 = AttentionShape("GLA", layers=1, q_heads=128, kv_heads=2, head_dim=128, latent_dim=256)
NSA = AttentionShape("NSA", layers=1, q_heads=64, kv_heads=4, head_dim=128)

# The 70B twins: 80 layers, 64 q heads, head dim 128; attention differs.
TWIN_MHA = AttentionShape("MHA", 80, 64, 64, 128)
TWIN_GQA = AttentionShape("GQA", 80, 64, 8, 128)
TWIN_MLA = AttentionShape("MLA", 80, 64, 1, 128, latent_dim=512, rope_dim=64)
TWIN_GLA = AttentionShape("GLA", 80, 64, 2, 128, latent_dim=256, rope_dim=64)


# --- KV cache per token (docs/attention.md table) -------------------------------------------------


def test_mha_llama2_7b_is_512_kib_per_token():
    assert kv_bytes_per_token_per_layer(LLAMA2_7B) == 2 * 32 * 128 * 2
    assert kv_bytes_per_token(LLAMA2_7B) == 512 * KIB


def test_gqa_llama3_8b_128_kib_and_70b_320_kib():
    assert kv_bytes_per_token(LLAMA3_8B) == 128 * KIB
    assert kv_bytes_per_token(LLAMA3_70B) == 320 * KIB


def test_mqa_is_one_over_h_of_mha():
    mha = dataclasses.replace(FALCON_7B, kind="MHA", kv_heads=71)
    assert kv_bytes_per_token(FALCON_7B) * 71 == kv_bytes_per_token(mha)
    assert kv_bytes_per_token_per_layer(FALCON_7B) == 2 * 64 * 2


def test_gta_2176_bytes_vs_gqa_4096():
    gqa = dataclasses.replace(GTA_8, kind="GQA")
    assert kv_bytes_per_token_per_layer(GTA_8) == 2176
    assert kv_bytes_per_token_per_layer(gqa) == 4096


def test_mla_1152_bytes_and_deepseek_kimi_totals():
    assert kv_bytes_per_token_per_layer(DSV3) == 1152
    assert kv_bytes_per_token(DSV2) / KIB == 67.5
    assert round(kv_bytes_per_token(DSV3) / KIB, 1) == 68.6
    assert kv_bytes_per_token(KIMI_K2) == kv_bytes_per_token(DSV3)


def test_gla2_1280_bytes_and_640_per_device_at_tp2():
    assert kv_bytes_per_token_per_layer(GLA_2) == 1280
    assert kv_bytes_per_token_per_device(GLA_2, 2) == 640
    # beyond T = h_c the latent heads replicate
    assert kv_bytes_per_token_per_device(GLA_2, 8) == 640


def test_nsa_reads_5630_tokens_at_64k_11_6x_fewer():
    assert decode_tokens_read(NSA, 65536) == 5630
    assert round(65536 / decode_tokens_read(NSA, 65536), 1) == 11.6
    # at short context the selected and window branches each read the whole (short) cache
    assert decode_tokens_read(NSA, 100) == (100 - 32) // 16 + 100 + 100
    # its stored cache is the GQA base plus the compressed 1/16
    base = kv_bytes_per_token_per_layer(dataclasses.replace(NSA, kind="GQA"))
    assert kv_bytes_per_token_per_layer(NSA) == base + base // 16


def test_moba_reads_top_k_blocks_plus_pooled_keys():
    moba = AttentionShape("MoBA", 1, 32, 8, 128, moba_block=4096, moba_top_k=3)
    assert decode_tokens_read(moba, 1 << 20) == 3 * 4096 + (1 << 20) // 4096
    assert decode_tokens_read(moba, 1000) == 1000 + 1


def test_sliding_window_reads_at_most_the_window():
    mistral = dataclasses.replace(LLAMA3_8B, sliding_window=4096)
    assert decode_tokens_read(mistral, 1000) == 1000
    assert decode_tokens_read(mistral, 32768) == 4096
    assert decode_tokens_read(LLAMA3_8B, 32768) == 32768


# --- per device, deployment decides ----------------------------------------------------------


def test_twins_per_device_at_tp2():
    assert round(kv_bytes_per_token_per_device(TWIN_MHA, 2) / 1e6, 2) == 1.31
    assert round(kv_bytes_per_token_per_device(TWIN_GQA, 2) / 1e3) == 164
    assert round(kv_bytes_per_token_per_device(TWIN_MLA, 2) / 1e3) == 92
    assert round(kv_bytes_per_token_per_device(TWIN_GLA, 2) / 1e3) == 51


def test_twins_per_device_at_tp8_mla_does_not_shrink():
    assert round(kv_bytes_per_token_per_device(TWIN_GQA, 8) / 1e3) == 41
    assert kv_bytes_per_token_per_device(TWIN_MLA, 8) == kv_bytes_per_token(TWIN_MLA)
    assert round(kv_bytes_per_token_per_device(TWIN_MLA, 8) / 1e3) == 92


def test_kv_heads_replicate_beyond_h_kv():
    # MQA at T = 8 reads its one head on all 8 devices
    assert kv_bytes_per_token_per_device(FALCON_7B, 8) == kv_bytes_per_token(FALCON_7B)
    assert kv_bytes_per_token_per_device(LLAMA3_70B, 16) == kv_bytes_per_token(LLAMA3_70B) // 8
    assert kv_bytes_per_token_per_device(LLAMA3_70B, 4) == kv_bytes_per_token(LLAMA3_70B) // 4


def test_gta_rope_head_is_kept_whole_on_every_device():
    assert kv_bytes_per_token_per_device(GTA_8, 2) == (4 * 128 + 64) * 2


# --- FLOPs, bytes, intensity -----------------------------------------------------------------


def test_decode_flops_follow_the_bench_formula():
    cost = decode_bytes_and_flops(DSV3, batch=4, kv_len=1000, layers=1)
    assert cost.flops == 2 * 1 * (4 * 1000) * 128 * (576 + 512)
    assert cost.bytes == 4 * 1000 * 1152 + 4 * 128 * (576 + 512) * 2
    gqa = decode_bytes_and_flops(LLAMA3_70B, batch=1, kv_len=10, q_len=2, layers=1)
    assert gqa.flops == 2 * 2 * 10 * 64 * 256


def test_decode_flops_split_over_q_heads_under_tp():
    whole = decode_bytes_and_flops(TWIN_MLA, 1, 4096)
    half = decode_bytes_and_flops(TWIN_MLA, 1, 4096, tensor_parallel=2)
    assert half.flops == whole.flops / 2
    assert decode_kv_bytes_read(TWIN_MLA, 4096, 2) == decode_kv_bytes_read(TWIN_MLA, 4096, 1)


def test_arithmetic_intensity_matches_attention_md():
    assert arithmetic_intensity(LLAMA2_7B) == pytest.approx(1.0)
    assert arithmetic_intensity(LLAMA3_70B) == pytest.approx(8.0)
    assert round(arithmetic_intensity(DSV3)) == 242  # 128 q heads
    assert round(arithmetic_intensity(GLA_2)) == 115  # 128 q heads, 2 latent heads


def test_ridge_points_h100_295_h200_206():
    assert round(get_profile("H100").ridge_point) == 295
    assert round(get_profile("H200").ridge_point) == 206


def test_causal_keys_sum_dense_and_window():
    assert causal_keys_sum(LLAMA3_8B, 4) == 10
    mistral = dataclasses.replace(LLAMA3_8B, sliding_window=3)
    assert causal_keys_sum(mistral, 5) == 1 + 2 + 3 + 3 + 3
    exact = sum(decode_tokens_read(NSA, i) for i in range(1, 8193))
    assert causal_keys_sum(NSA, 8192) == pytest.approx(exact, rel=0.01)


# --- hardware profiles -----------------------------------------------------------------------


def test_hardware_profiles_name_their_sources():
    profiles = load_hardware_profiles()
    assert {"H100", "H200", "H800", "A100", "RTX4090"} <= set(profiles)
    for p in profiles.values():
        assert p.source and p.peak_bf16_tflops > 0 and p.mem_bandwidth_tbs > 0
    h200 = profiles["H200"]
    assert (h200.measured_bandwidth_tbs, h200.measured_bf16_tflops) == (4.3, 790)
    assert get_profile("rtx 4090").key == "RTX4090"
    assert get_profile("a100-80gb").key == "A100"


def test_unknown_gpu_and_broken_hardware_file_raise(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown GPU profile"):
        get_profile("TPU-v5")
    bad = tmp_path / "hw.toml"
    bad.write_text('[X]\nname = "X"\npeak_bf16_tflops = "fast"\n')
    with pytest.raises(ValueError, match=r"hw\.toml.*peak_bf16_tflops"):
        load_hardware_profiles(bad)


# --- roofline --------------------------------------------------------------------------------


def test_roofline_seconds_takes_the_larger_term():
    h100 = get_profile("H100")
    assert roofline_seconds(3.35e12, 0, h100) == pytest.approx(1.0)
    assert roofline_seconds(0, 989.4e12, h100) == pytest.approx(1.0)


def test_decode_step_is_memory_bound_at_batch_1_and_counts_kv():
    dep = Deployment("H200", tensor_parallel=2)
    step = decode_step(TWIN_GQA, 70e9, dep, kv_len=32768)
    assert step.bound == "memory"
    assert step.weight_bytes == pytest.approx(70e9)
    assert step.kv_bytes == 32768 * 163840
    assert step.seconds == pytest.approx((70e9 + 32768 * 163840) / 4.8e12)
    assert step.dense_flops == pytest.approx(2 * 70e9 / 2)


def test_decode_step_turns_compute_bound_at_large_batch_short_context():
    dep = Deployment("H100", tensor_parallel=8, batch=1024)
    assert decode_step(TWIN_GQA, 70e9, dep, kv_len=16).bound == "compute"
    # at long context the KV term keeps it memory-bound, MLA included (q heads split under TP,
    # the latent does not, so each device's attention intensity drops by T)
    assert decode_step(TWIN_MLA, 70e9, dep, kv_len=4096).bound == "memory"


def test_mla_attention_is_compute_bound_on_a100_not_on_h100():
    cost = decode_bytes_and_flops(DSV3, batch=128, kv_len=8192)
    intensity = cost.flops / cost.bytes
    assert get_profile("A100").ridge_point < intensity < get_profile("H100").ridge_point


def test_decode_step_uses_sparse_token_count():
    dep = Deployment("H200")
    nsa = dataclasses.replace(TWIN_GQA, kind="NSA")
    dense = decode_step(TWIN_GQA, 70e9, dep, 65536)
    sparse = decode_step(nsa, 70e9, dep, 65536)
    assert dense.kv_bytes / sparse.kv_bytes == pytest.approx(65536 / 5630)


def test_moe_batch_reads_more_experts():
    assert params_read_per_step(37e9, 671e9, 1) == 37e9
    assert params_read_per_step(70e9, 70e9, 64) == 70e9
    assert 37e9 < params_read_per_step(37e9, 671e9, 8) < 8 * 37e9
    assert params_read_per_step(37e9, 671e9, 10_000) == pytest.approx(671e9)


def test_prefill_is_compute_bound_at_the_stated_mfu():
    dep = Deployment("H200", tensor_parallel=2)
    n = 8192
    flops = 2 * 70e9 * n + prefill_attention_flops(TWIN_GQA, n)
    assert prefill_seconds(TWIN_GQA, 70e9, dep, n) == pytest.approx(
        flops / 2 / (989.4e12 * PREFILL_MFU)
    )
    # attention: ~2·N²·h_q·(d_qk+d_v)/2 per layer
    assert prefill_attention_flops(TWIN_GQA, n) == pytest.approx(
        2 * n * n / 2 * 64 * 256 * 80, rel=1e-3
    )


def test_prefill_never_beats_reading_the_weights():
    dep = Deployment("H200", tensor_parallel=2)
    assert prefill_seconds(TWIN_GQA, 70e9, dep, 1) >= 70e9 / 4.8e12


def test_prefill_grows_with_prompt_length():
    dep = Deployment("H200", tensor_parallel=2)
    times = [prefill_seconds(TWIN_MLA, 70e9, dep, n) for n in (10, 100, 1000, 10000, 100000)]
    assert times == sorted(times) and len(set(times)) == len(times)


def test_kv_fit_mha_twin_64k_does_not_fit_at_tp2():
    dep = Deployment("H200", tensor_parallel=2)
    fits, needed, available = kv_fit(TWIN_MHA, 70e9, dep, 65536)
    assert not fits
    assert needed == pytest.approx(70e9 + 65536 * 1310720)
    assert available == pytest.approx(141 * 2**30 * 0.9)
    assert kv_fit(TWIN_MHA, 70e9, dep, 32768).fits
    assert kv_fit(TWIN_GQA, 70e9, dep, 65536).fits
    assert weight_bytes_per_device(70e9, dep) == 70e9


def test_kv_fit_counts_batch_and_sliding_window():
    dep = Deployment("H100")
    mistral = dataclasses.replace(LLAMA3_8B, sliding_window=4096)
    a = kv_fit(mistral, 7e9, dep, 100_000)
    b = kv_fit(mistral, 7e9, dep, 4096)
    assert a.needed_bytes == b.needed_bytes
    four = kv_fit(LLAMA3_8B, 8e9, dep, 1000, batch=4)
    one = kv_fit(LLAMA3_8B, 8e9, dep, 1000)
    assert four.needed_bytes - 16e9 == pytest.approx(4 * (one.needed_bytes - 16e9))


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError, match="unknown attention kind"):
        AttentionShape("XYZ", 1, 1, 1, 1)
    with pytest.raises(ValueError, match="MLA"):
        AttentionShape("MLA", 1, 8, 2, 128, latent_dim=512)
    with pytest.raises(ValueError, match="latent_dim"):
        AttentionShape("GLA", 1, 8, 2, 128)
    with pytest.raises(ValueError, match="multiple"):
        AttentionShape("GQA", 1, 10, 4, 128)


def test_pipeline_stages_divide_memory_not_time():
    """TP 2 × PP 4: a device holds a quarter of the layers' KV cache and an eighth of the
    weights; one sequence's step passes the stages in turn, so its roofline is unchanged."""
    tp2 = Deployment("H200", tensor_parallel=2)
    pp4 = Deployment("H200", tensor_parallel=2, pipeline_parallel=4)
    assert weight_bytes_per_device(70e9, pp4) == pytest.approx(17.5e9)
    assert pp4.devices == 8 and "tensor parallel 2 × pipeline parallel 4" in pp4.describe()
    fits, needed, _ = kv_fit(TWIN_MHA, 70e9, pp4, 262144)
    assert fits and needed == pytest.approx(17.5e9 + 262144 * 1310720 / 4)
    assert not kv_fit(TWIN_MHA, 70e9, tp2, 262144).fits
    assert not kv_fit(TWIN_MHA, 70e9, pp4, 524288).fits
    assert decode_step(TWIN_GQA, 70e9, pp4, 65536).seconds == pytest.approx(
        decode_step(TWIN_GQA, 70e9, tp2, 65536).seconds
    )
