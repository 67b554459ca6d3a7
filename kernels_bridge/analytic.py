"""Roofline cost model of decode and prefill, and the hardware profiles it runs on. Pure Python.

The one place these formulas live: the built-in local provider's simulated models
(`workbench/local/costmodel.py`) and the kernel benchmark's "fraction of the limit" columns both
call them. Decimal units throughout (GB = 1e9 bytes, TB/s = 1e12 bytes/s), as docs/attention.md.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from kernels_bridge.variants import (
    AttentionShape,
    causal_keys_sum,
    decode_bytes_and_flops,
    decode_kv_bytes_read,
    kv_bytes_per_token_per_device,
    kv_tokens_stored,
    prefill_head_dims,
)

# Fraction of peak bf16 FLOP/s a good prefill reaches (large GEMMs plus FlashAttention forward);
# published serving stacks report roughly 40-60 % MFU in prefill, so we assume the middle.
PREFILL_MFU = 0.5

GIB = 1 << 30

Bound = Literal["memory", "compute"]


@dataclass(frozen=True)
class HardwareProfile:
    """One accelerator's limits: spec-sheet peaks, plus our measurements where we have them."""

    key: str
    name: str
    peak_bf16_tflops: float
    mem_bandwidth_tbs: float
    memory_gib: float
    l2_mb: float
    source: str
    aliases: tuple[str, ...] = ()
    measured_bf16_tflops: float | None = None
    measured_bandwidth_tbs: float | None = None
    usd_per_hour: float | None = None  # a price per device-hour, where a citable one exists
    price_source: str | None = None  # whose price, of which kind, read when

    @property
    def memory_bytes(self) -> float:
        return self.memory_gib * GIB

    @property
    def ridge_point(self) -> float:
        """FLOPs per byte where the roofline turns from memory- to compute-bound."""
        return self.peak_bf16_tflops / self.mem_bandwidth_tbs


_PROFILE_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "aliases": list,
    "peak_bf16_tflops": (int, float),
    "mem_bandwidth_tbs": (int, float),
    "memory_gib": (int, float),
    "l2_mb": (int, float),
    "source": str,
    "measured_bf16_tflops": (int, float),
    "measured_bandwidth_tbs": (int, float),
    "usd_per_hour": (int, float),
    "price_source": str,
}
_PROFILE_REQUIRED = ("name", "peak_bf16_tflops", "mem_bandwidth_tbs", "memory_gib", "l2_mb")


def _default_hardware_path() -> Path:
    from workbench.resources import resource

    return resource("hardware.toml")


def _parse_profile(path: Path, key: str, raw: Any) -> HardwareProfile:
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: [{key}] must be a table")
    for field_name, value in raw.items():
        expected = _PROFILE_FIELDS.get(field_name)
        if expected is None:
            raise ValueError(f"{path}: [{key}] has unknown field {field_name!r}")
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ValueError(f"{path}: [{key}].{field_name} has the wrong type ({value!r})")
    missing = [f for f in _PROFILE_REQUIRED if f not in raw]
    if missing:
        raise ValueError(f"{path}: [{key}] lacks {', '.join(missing)}")
    if not raw.get("source"):
        raise ValueError(f"{path}: [{key}] must name its source")
    for f in ("peak_bf16_tflops", "mem_bandwidth_tbs", "memory_gib"):
        if raw[f] <= 0:
            raise ValueError(f"{path}: [{key}].{f} must be > 0")
    if "usd_per_hour" in raw and not (raw["usd_per_hour"] > 0 and raw.get("price_source")):
        raise ValueError(f"{path}: [{key}].usd_per_hour must be > 0 and name its price_source")
    return HardwareProfile(
        key=key,
        name=raw["name"],
        peak_bf16_tflops=float(raw["peak_bf16_tflops"]),
        mem_bandwidth_tbs=float(raw["mem_bandwidth_tbs"]),
        memory_gib=float(raw["memory_gib"]),
        l2_mb=float(raw["l2_mb"]),
        source=raw["source"],
        aliases=tuple(str(a) for a in raw.get("aliases", [])),
        measured_bf16_tflops=_opt_float(raw.get("measured_bf16_tflops")),
        measured_bandwidth_tbs=_opt_float(raw.get("measured_bandwidth_tbs")),
        usd_per_hour=_opt_float(raw.get("usd_per_hour")),
        price_source=raw.get("price_source"),
    )


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def load_hardware_profiles(path: Path | str | None = None) -> dict[str, HardwareProfile]:
    """Profiles keyed by their short key ("H100", "H200", "H800", "A100", "RTX4090")."""
    if path is None:
        return dict(_default_profiles())
    return _load_profiles(Path(path))


@functools.cache
def _default_profiles() -> dict[str, HardwareProfile]:
    return _load_profiles(_default_hardware_path())


def _load_profiles(path: Path) -> dict[str, HardwareProfile]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read hardware profiles ({exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from exc
    profiles = {key: _parse_profile(path, key, raw) for key, raw in data.items()}
    if not profiles:
        raise ValueError(f"{path}: no hardware profiles")
    return profiles


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def get_profile(name: str, path: Path | str | None = None) -> HardwareProfile:
    """A profile by key, display name or alias, ignoring case, spaces and hyphens."""
    if path is None:
        return _default_profile(name)
    return _find_profile(load_hardware_profiles(path), name)


@functools.cache
def _default_profile(name: str) -> HardwareProfile:
    return _find_profile(_default_profiles(), name)


def _find_profile(profiles: dict[str, HardwareProfile], name: str) -> HardwareProfile:
    wanted = _squash(name)
    for profile in profiles.values():
        names = (profile.key, profile.name, *profile.aliases)
        if any(_squash(n) == wanted for n in names):
            return profile
    known = ", ".join(profiles)
    raise ValueError(f"unknown GPU profile {name!r}; known: {known}")


# ---------------------------------------------------------------------------------------------
# Deployments
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deployment:
    """How a model is served: on which GPU, split how, at which precision.

    `tensor_parallel` devices form one replica that serves `batch` sequences per decode step;
    `pipeline_parallel` stages of such groups split the layers (each device holds 1/P of the
    weights and of the KV cache; one sequence's step passes the stages in turn, so its time
    is unchanged); `data_parallel` replicas run side by side (more throughput, same per-device
    cost).
    """

    gpu: str
    tensor_parallel: int = 1
    data_parallel: int = 1
    pipeline_parallel: int = 1
    weight_bytes_per_param: float = 2.0  # 2 bf16, 1 fp8
    kv_elem_bytes: int = 2
    batch: int = 1
    memory_utilization: float = 0.9

    def __post_init__(self) -> None:
        if min(self.tensor_parallel, self.data_parallel, self.pipeline_parallel, self.batch) < 1:
            raise ValueError(
                "tensor_parallel, pipeline_parallel, data_parallel and batch must be >= 1"
            )
        if self.weight_bytes_per_param <= 0 or self.kv_elem_bytes <= 0:
            raise ValueError("weight_bytes_per_param and kv_elem_bytes must be > 0")
        if not 0 < self.memory_utilization <= 1:
            raise ValueError("memory_utilization must be in (0, 1]")

    @property
    def profile(self) -> HardwareProfile:
        return get_profile(self.gpu)

    @property
    def devices(self) -> int:
        return self.replica_devices * self.data_parallel

    @property
    def replica_devices(self) -> int:
        """The devices that hold one copy of the model: tensor x pipeline parallel."""
        return self.tensor_parallel * self.pipeline_parallel

    def describe(self) -> str:
        """ "2×H200, tensor parallel 2, bf16 weights, batch 1"."""
        precision = {2.0: "bf16", 1.0: "fp8", 0.5: "int4"}.get(
            float(self.weight_bytes_per_param), f"{self.weight_bytes_per_param} B/param"
        )
        text = f"{self.replica_devices}×{self.profile.key}, tensor parallel {self.tensor_parallel}"
        if self.pipeline_parallel > 1:
            text += f" × pipeline parallel {self.pipeline_parallel}"
        if self.data_parallel > 1:
            text += f", {self.data_parallel} data-parallel replicas"
        return f"{text}, {precision} weights, batch {self.batch}"


def weight_bytes_per_device(total_params: float, deployment: Deployment) -> float:
    """All weights split evenly over the T x P devices of a replica (experts included)."""
    return total_params * deployment.weight_bytes_per_param / deployment.replica_devices


def layers_per_stage(layers: int, deployment: Deployment) -> int:
    """Layers the busiest pipeline stage holds (ceil: an uneven split loads one stage more)."""
    return -(-layers // deployment.pipeline_parallel)


def active_weight_bytes_per_device(active_params: float, deployment: Deployment) -> float:
    """Weights one decode step of one sequence reads per device: the active parameters over T.

    For MoE at batch > 1 see `params_read_per_step`, which counts the experts the batch touches.
    """
    return active_params * deployment.weight_bytes_per_param / deployment.tensor_parallel


def params_read_per_step(active_params: float, total_params: float | None, batch: int) -> float:
    """Parameters one decode step reads when `batch` sequences each activate `active_params`.

    Dense (total == active, or total unknown): active_params. MoE: each parameter is taken to be
    touched by a token with probability p = active/total, independently, so a batch reads
    total · (1 − (1 − p)^batch): active at batch 1, approaching all weights at large batch.
    An approximation (it ignores that shared experts and attention are always read), documented
    in docs/cost-model.md.
    """
    if total_params is None or total_params <= active_params or batch <= 1:
        return active_params
    p = active_params / total_params
    return total_params * (1.0 - (1.0 - p) ** batch)


# ---------------------------------------------------------------------------------------------
# Roofline
# ---------------------------------------------------------------------------------------------


def roofline_seconds(bytes_moved: float, flops: float, profile: HardwareProfile) -> float:
    """max(bytes / bandwidth, flops / peak): the time below which no kernel can go."""
    return max(
        bytes_moved / (profile.mem_bandwidth_tbs * 1e12),
        flops / (profile.peak_bf16_tflops * 1e12),
    )


@dataclass(frozen=True)
class StepCost:
    """One decode step on one device of a replica (all layers)."""

    weight_bytes: float
    kv_bytes: float
    attention_flops: float
    dense_flops: float
    memory_seconds: float
    compute_seconds: float

    @property
    def bytes(self) -> float:
        return self.weight_bytes + self.kv_bytes

    @property
    def flops(self) -> float:
        return self.dense_flops + self.attention_flops

    @property
    def seconds(self) -> float:
        return max(self.memory_seconds, self.compute_seconds)

    @property
    def bound(self) -> Bound:
        return "memory" if self.memory_seconds >= self.compute_seconds else "compute"


def decode_step(
    shape: AttentionShape,
    active_params: float,
    deployment: Deployment,
    kv_len: int,
    batch: int | None = None,
    *,
    total_params: float | None = None,
) -> StepCost:
    """Roofline time of one decode step per device, every sequence at KV length kv_len.

    bytes = active weights / T + batch · KV bytes read per device (decode_tokens_read tokens,
    sharded per docs/attention.md); flops = 2 · active_params / T · batch + attention FLOPs
    of the device's q heads. seconds = max(bytes / BW, flops / peak). No communication cost.
    Given `total_params` of an MoE model, the weights term counts the experts a batch > 1
    touches (`params_read_per_step`) instead of one sequence's active set.
    """
    n = deployment.batch if batch is None else batch
    t = deployment.tensor_parallel
    profile = deployment.profile
    attention = decode_bytes_and_flops(
        shape, n, kv_len, 1, deployment.kv_elem_bytes, tensor_parallel=t
    )
    # q and out (a few KB) are left out: the step's HBM traffic is weights + KV.
    kv_bytes = n * decode_kv_bytes_read(shape, kv_len, t, deployment.kv_elem_bytes)
    weights = active_weight_bytes_per_device(
        params_read_per_step(active_params, total_params, n), deployment
    )
    dense_flops = 2.0 * active_params / t * n
    return StepCost(
        weight_bytes=weights,
        kv_bytes=kv_bytes,
        attention_flops=attention.flops,
        dense_flops=dense_flops,
        memory_seconds=(weights + kv_bytes) / (profile.mem_bandwidth_tbs * 1e12),
        compute_seconds=(dense_flops + attention.flops) / (profile.peak_bf16_tflops * 1e12),
    )


def prefill_attention_flops(shape: AttentionShape, prompt_tokens: int) -> float:
    """Causal attention FLOPs of a prefill, whole model: 2·Σ_i s_k(i)·h_q·(d_qk + d_v) per layer.

    For dense attention Σ s_k ≈ N²/2, i.e. the brief's ~2·N²·h_q·(d_qk+d_v)/2. MLA/GLA use
    the expanded (non-absorbed) head dims, as prefill kernels do.
    """
    d_qk, d_v = prefill_head_dims(shape)
    keys = causal_keys_sum(shape, prompt_tokens)
    return 2.0 * keys * shape.q_heads * (d_qk + d_v) * shape.layers


def prefill_seconds(
    shape: AttentionShape,
    active_params: float,
    deployment: Deployment,
    prompt_tokens: int,
) -> float:
    """Time to read a prompt of N tokens on one replica.

    Compute-bound: (2·active_params·N + causal attention FLOPs) / T at PREFILL_MFU of peak;
    never below reading the active weights once plus writing the prompt's KV cache (bytes / BW).
    """
    if prompt_tokens < 0:
        raise ValueError(f"prompt_tokens must be >= 0, got {prompt_tokens}")
    t = deployment.tensor_parallel
    profile = deployment.profile
    flops = (
        2.0 * active_params * prompt_tokens + prefill_attention_flops(shape, prompt_tokens)
    ) / t
    compute = flops / (profile.peak_bf16_tflops * 1e12 * PREFILL_MFU)
    kv_write = kv_tokens_stored(shape, prompt_tokens) * kv_bytes_per_token_per_device(
        shape, t, deployment.kv_elem_bytes
    )
    weights = active_weight_bytes_per_device(active_params, deployment)
    memory = (weights + kv_write) / (profile.mem_bandwidth_tbs * 1e12)
    return max(compute, memory)


class KvFit(NamedTuple):
    """Whether weights + KV cache fit one device, and the bytes on both sides."""

    fits: bool
    needed_bytes: float
    available_bytes: float


def kv_fit(
    shape: AttentionShape,
    total_params: float,
    deployment: Deployment,
    kv_tokens: int,
    batch: int | None = None,
) -> KvFit:
    """Per device: weights/(T·P) + batch · stored tokens · KV bytes per token per device must
    fit in memory_gib · memory_utilization (activations and fragmentation live in the rest).
    Under pipeline parallelism P a device holds the KV of its stage's layers only."""
    n = deployment.batch if batch is None else batch
    weights = weight_bytes_per_device(total_params, deployment)
    per_layer = kv_bytes_per_token_per_device(
        dataclasses.replace(shape, layers=1), deployment.tensor_parallel, deployment.kv_elem_bytes
    )
    per_token = per_layer * layers_per_stage(shape.layers, deployment)
    kv = float(n * kv_tokens_stored(shape, kv_tokens) * per_token)
    available = deployment.profile.memory_bytes * deployment.memory_utilization
    needed = weights + kv
    return KvFit(needed <= available, needed, available)


def profile_for_device(device_name: str) -> HardwareProfile | None:
    """The profile whose key, name or alias occurs in a device name ("NVIDIA H200" -> H200);
    the longest match wins; None when nothing matches (e.g. a CPU)."""
    squashed = _squash(device_name)
    best: tuple[int, HardwareProfile] | None = None
    for profile in _default_profiles().values():
        for n in (profile.key, profile.name, *profile.aliases):
            s = _squash(n)
            if s and s in squashed and (best is None or len(s) > best[0]):
                best = (len(s), profile)
    return None if best is None else best[1]
