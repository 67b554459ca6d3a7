"""Timing of the built-in provider's simulated models, from the roofline model.

The formulas live in `kernels_bridge.analytic` (one home); this module adds what a served
model has on top of a kernel roofline: a fixed per-request overhead before the first token, a
fixed per-step overhead, tensor-parallel all-reduce latency, time scaling for tests and seeded
jitter. docs/cost-model.md explains every assumption.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from kernels_bridge.analytic import (
    Deployment,
    decode_step,
    get_profile,
    kv_fit,
    prefill_seconds,
    weight_bytes_per_device,
)
from kernels_bridge.variants import kv_tokens_stored
from workbench.core.catalog import ModelInfo

# Request overhead before prefill starts: tokenization, scheduling, the first sampling step.
TTFT_OVERHEAD_S = 0.010
# Per decode step beyond the roofline: kernel launches, sampling, the scheduler's loop.
STEP_OVERHEAD_S = 0.001
# One small all-reduce across a tensor-parallel group (NVLink, latency-bound at decode sizes);
# Megatron-style layers need two per layer (after attention and after the MLP).
ALLREDUCE_LATENCY_S = 10e-6
ALLREDUCES_PER_LAYER = 2
# Jittered intervals never drop below this fraction of the modelled one.
_MIN_JITTER_FACTOR = 0.1

_MAX_TENSOR_PARALLEL = 8


@dataclass(frozen=True)
class SimSettings:
    """How the local provider runs a simulated model; every field overrides the catalog."""

    gpu: str | None = None  # override the deployment's GPU profile ("H100","H200","A100",...)
    tensor_parallel: int | None = None  # override TP degree 1..8
    batch: int | None = None  # override sequences per decode step
    time_scale: float = 1.0  # multiply every delay; tests use e.g. 0.01, ratios hold
    jitter: float = 0.0  # relative std-dev of per-token time, seeded
    seed: int = 0


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB"


class SimTiming:
    """Delays for one simulated model under one set of settings."""

    def __init__(self, model: ModelInfo, settings: SimSettings = SimSettings()) -> None:
        if model.deployment is None:
            raise ValueError(
                f"{model.id} has no deployment in the catalog, so it cannot be simulated; "
                "simulated models are listed by Catalog.simulated()"
            )
        if settings.time_scale < 0:
            raise ValueError(f"time_scale must be >= 0, got {settings.time_scale}")
        if settings.jitter < 0:
            raise ValueError(f"jitter must be >= 0, got {settings.jitter}")
        tp = settings.tensor_parallel
        if tp is not None and not 1 <= tp <= _MAX_TENSOR_PARALLEL:
            raise ValueError(f"tensor_parallel must be 1..{_MAX_TENSOR_PARALLEL}, got {tp}")
        if settings.batch is not None and settings.batch < 1:
            raise ValueError(f"batch must be >= 1, got {settings.batch}")
        base = model.deployment
        self.model = model
        self.settings = settings
        self.deployment: Deployment = dataclasses.replace(
            base,
            gpu=base.gpu if settings.gpu is None else get_profile(settings.gpu).key,
            tensor_parallel=base.tensor_parallel if tp is None else tp,
            batch=base.batch if settings.batch is None else settings.batch,
        )
        self._profile = self.deployment.profile

    # -- admission -----------------------------------------------------------------------------

    def check(self, prompt_tokens: int, max_tokens: int) -> str | None:
        """None when the request can be served; else why not and what to change."""
        m, d = self.model, self.deployment
        if prompt_tokens < 0:
            return f"prompt_tokens must be >= 0, got {prompt_tokens}."
        if max_tokens < 1:
            return f"max_tokens must be >= 1, got {max_tokens}."
        total = prompt_tokens + max_tokens
        if total > m.context_window:
            return (
                f"{m.id} has a context window of {m.context_window:,} tokens; this request "
                f"needs {prompt_tokens:,} prompt + {max_tokens:,} output = {total:,}. "
                "Use a shorter prompt or a lower max_tokens."
            )
        fit = kv_fit(m.shape, m.total_params, d, total)
        if fit.fits:
            return None
        weights = weight_bytes_per_device(m.total_params, d)
        where = (
            f"an {self._profile.key} has {self._profile.memory_gib:g} GiB, "
            f"{d.memory_utilization:.0%} of it usable ({_gb(fit.available_bytes)}); "
            f"{m.id}: {m.attention} on {d.describe()}"
        )
        if weights > fit.available_bytes:
            return (
                f"The weights alone need {_gb(weights)} per device; {where}. "
                "Use a higher tensor-parallel degree or a GPU with more memory."
            )
        kv = fit.needed_bytes - weights
        stored = kv_tokens_stored(m.shape, total)
        seqs = f" for each of {d.batch} sequences" if d.batch > 1 else ""
        fix = "Use a shorter prompt or a higher tensor-parallel degree"
        if m.attention == "MLA":
            fix += " (it frees weight memory only: MLA's latent cache is replicated per device)"
        if d.batch > 1:
            fix += ", or a smaller batch"
        return (
            f"KV cache for {stored:,} tokens{seqs} needs {_gb(kv)} per device beside "
            f"{_gb(weights)} of weights; {where}. {fix}."
        )

    # -- timing --------------------------------------------------------------------------------

    def _comm_s(self) -> float:
        if self.deployment.tensor_parallel == 1:
            return 0.0
        return ALLREDUCE_LATENCY_S * ALLREDUCES_PER_LAYER * self.model.shape.layers

    def _prefill_unscaled_s(self, prompt_tokens: int) -> float:
        m = self.model
        return TTFT_OVERHEAD_S + prefill_seconds(
            m.shape, m.active_params, self.deployment, prompt_tokens
        )

    def _step_unscaled_s(self, kv_len: int) -> float:
        m = self.model
        step = decode_step(
            m.shape, m.active_params, self.deployment, max(0, kv_len), total_params=m.total_params
        )
        return step.seconds + STEP_OVERHEAD_S + self._comm_s()

    def ttft_s(self, prompt_tokens: int) -> float:
        """Scaled time to first token: fixed overhead + prefill (compute- or weight-bound)."""
        return self._prefill_unscaled_s(prompt_tokens) * self.settings.time_scale

    def token_interval_s(self, kv_len: int, index: int) -> float:
        """Scaled time of decode step `index` with kv_len cached tokens per sequence.

        Jitter multiplies by a Gaussian factor (mean 1, std-dev `jitter`) drawn from
        (seed, index) alone, so the same settings give the same intervals in any order.
        """
        base = self._step_unscaled_s(kv_len) * self.settings.time_scale
        if self.settings.jitter <= 0:
            return base
        rng = random.Random(f"{self.settings.seed}:{index}")
        factor = max(_MIN_JITTER_FACTOR, rng.gauss(1.0, self.settings.jitter))
        return base * factor

    def decode_tps(self, kv_len: int) -> float:
        """Unscaled decode tokens/s of one sequence at kv_len, without jitter."""
        return 1.0 / self._step_unscaled_s(kv_len)
