"""Timing of the built-in provider's simulated models, from the roofline model.

The formulas live in `kernels_bridge.analytic` (one home); this module adds what a served
model has on top of a kernel roofline: a fixed per-request overhead before the first token, a
fixed per-step overhead, tensor-parallel all-reduce latency, time scaling for tests and seeded
jitter. docs/cost-model.md explains every assumption.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from dataclasses import dataclass
from pathlib import Path

from kernels_bridge.analytic import (
    Deployment,
    StepCost,
    decode_step,
    get_profile,
    prefill_seconds,
    profile_for_device,
)
from kernels_bridge.measured import MeasuredTimings, load_measured_latencies
from kernels_bridge.shape_sets import per_device_shape, shape_key
from kernels_bridge.specs import DEFAULT_SHAPES
from workbench.core.models.catalog import Catalog, ModelInfo, load_catalog
from workbench.core.planning.memory_fit import deployed, memory_refusal
from workbench.local.kernel_preset import resolve_kernel_csv

# Request overhead before prefill starts: tokenization, scheduling, the first sampling step.
TTFT_OVERHEAD_S = 0.010
# Per decode step beyond the roofline: kernel launches, sampling, the scheduler's loop.
STEP_OVERHEAD_S = 0.001
# One small all-reduce across a tensor-parallel group (NVLink, latency-bound at decode sizes);
# Megatron-style layers need two per layer (after attention and after the MLP).
ALLREDUCE_LATENCY_S = 10e-6
ALLREDUCES_PER_LAYER = 2
# One hand-over of activations between pipeline stages (a few KB over NVLink, latency-bound);
# a step and a prefill pass P - 1 of them.
PIPELINE_HOP_LATENCY_S = 10e-6
# Jittered intervals never drop below this fraction of the modelled one.
_MIN_JITTER_FACTOR = 0.1
_PER_SEQUENCE_CACHE = 1 << 14

MAX_TENSOR_PARALLEL = 8
MAX_TIME_SCALE = 1000.0  # beyond this a simulated token takes minutes: a typo, not a wish
MAX_JITTER = 1.0  # a relative std-dev of 100 %
# Continuous batching (local/batching.py): vLLM's default cap on sequences in one batch
# (--max-num-seqs), and the tokens one step computes (--max-num-batched-tokens: decodes first,
# the rest goes to prefill chunks; vLLM's default depends on its version and GPU, 2K-16K).
MAX_NUM_SEQS = 256
MAX_BATCHED_TOKENS = 8192


@dataclass(frozen=True)
class SimSettings:
    """How the local provider runs a simulated model; every field overrides the catalog."""

    gpu: str | None = None  # override the deployment's GPU profile ("H100","H200","A100",...)
    tensor_parallel: int | None = None  # override TP degree 1..8
    batch: int | None = None  # override sequences per decode step
    time_scale: float = 1.0  # multiply every delay; tests use e.g. 0.01, ratios hold
    jitter: float = 0.0  # relative std-dev of per-token time, seeded
    seed: int = 0
    kernel_csv: str | None = None  # kernel CSV: measured attention replaces the analytic term
    batching: bool = True  # False: every request alone on its replica (no queue, no sharing)
    max_num_seqs: int = MAX_NUM_SEQS
    max_batched_tokens: int = MAX_BATCHED_TOKENS

    def __post_init__(self) -> None:
        """Refuse bad settings here, so a server never starts only to fail every request."""
        if not (math.isfinite(self.time_scale) and 0 <= self.time_scale <= MAX_TIME_SCALE):
            raise ValueError(
                f"time_scale (--time-scale) must be 0..{MAX_TIME_SCALE:g}, got {self.time_scale}"
            )
        if not (math.isfinite(self.jitter) and 0 <= self.jitter <= MAX_JITTER):
            raise ValueError(f"jitter (--jitter) must be 0..{MAX_JITTER:g}, got {self.jitter}")
        tp = self.tensor_parallel
        if tp is not None and not 1 <= tp <= MAX_TENSOR_PARALLEL:
            raise ValueError(f"tensor_parallel (--tp) must be 1..{MAX_TENSOR_PARALLEL}, got {tp}")
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"batch must be >= 1, got {self.batch}")
        if self.gpu is not None:
            get_profile(self.gpu)  # ValueError naming the known profiles
        if not 1 <= self.max_num_seqs <= self.max_batched_tokens:
            raise ValueError(
                f"max_num_seqs (--max-num-seqs) must be 1..max_batched_tokens "
                f"({self.max_batched_tokens}), got {self.max_num_seqs}"
            )


def load_kernel_csv(path: str | Path) -> MeasuredTimings:
    """The measured latencies of a kernel CSV, loaded once per (path, mtime).

    ValueError with a readable message when the file cannot be read or has no usable rows.
    """
    p = resolve_kernel_csv(str(path))
    try:
        stamp = p.resolve().stat().st_mtime_ns
    except OSError as exc:
        raise ValueError(f"cannot read kernel CSV {p}: {exc.strerror or exc}") from None
    return _load_kernel_csv(str(p.resolve()), stamp)


@functools.lru_cache(maxsize=8)
def _load_kernel_csv(path: str, _mtime_ns: int) -> MeasuredTimings:
    try:
        return load_measured_latencies(path)
    except (OSError, UnicodeDecodeError, KeyError) as exc:
        raise ValueError(f"cannot read kernel CSV {path}: {exc}") from None
    except ValueError as exc:  # not a kernel CSV, no usable rows, a non-number in a cell
        raise ValueError(f"unusable kernel CSV: {exc}") from None


class SimTiming:
    """Delays for one simulated model under one set of settings."""

    def __init__(
        self,
        model: ModelInfo,
        settings: SimSettings = SimSettings(),
        catalog: Catalog | None = None,
    ) -> None:
        if model.deployment is None:
            raise ValueError(
                f"{model.id} has no deployment in the catalog, so it cannot be simulated; "
                "simulated models are listed by Catalog.simulated()"
            )
        self.model = model
        self.settings = settings
        self.catalog = catalog  # for the twins a memory refusal names; None: the shipped one
        self.deployment: Deployment = deployed(
            model.deployment, settings.gpu, settings.tensor_parallel, settings.batch
        )
        self._profile = self.deployment.profile
        self._measured: MeasuredTimings | None = None
        self._variant = model.shape.kind.lower()  # GQA -> gqa, MoBA -> moba: the CSV's names
        self._shape_key = shape_key(per_device_shape(model.shape, self.deployment.tensor_parallel))
        self.timing_source = "analytic"
        self._per_sequence: dict[int, StepCost] = {}
        if settings.kernel_csv is not None:
            self._use_measured(load_kernel_csv(settings.kernel_csv), settings.kernel_csv)

    def _use_measured(self, measured: MeasuredTimings, csv: str) -> None:
        """Measured attention: one layer's decode attention of this model's own per-device
        shape when the CSV timed it, else of its variant's default shape; analytic when the
        CSV has neither, or was measured on another GPU than this deployment's."""
        name = resolve_kernel_csv(csv).name
        measured_on = profile_for_device(measured.device) if measured.device else None
        if measured_on is not None and measured_on.key != self._profile.key:
            self.timing_source = (
                f"analytic ({name} was measured on {measured_on.key}, this model runs on "
                f"{self._profile.key})"
            )
            return
        if measured.has_shape(self._shape_key):
            self._measured = measured
            self.timing_source = f"measured: {name} ({self._shape_key})"
        elif self._variant in ("nsa", "moba") and not self._shape_key.endswith(
            self._default_sparse_settings()
        ):
            # another block structure reads another share of the cache: its kernel is no proxy
            self.timing_source = (
                f"analytic ({name} has no {self._shape_key} row, and its {self._variant} "
                "default shape selects other blocks)"
            )
        elif self._variant in measured.variants():
            self._measured = measured
            self.timing_source = f"measured: {name} (the {self._variant} default shape)"

    def _default_sparse_settings(self) -> str:
        """The sparse part of the variant's default shape key ("moba512x3")."""
        default = DEFAULT_SHAPES[self._variant]
        return shape_key(dataclasses.replace(default, layers=1)).rsplit(":", 1)[-1]

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
        return memory_refusal(self.catalog or load_catalog(), m, d, prompt_tokens, max_tokens)

    # -- timing --------------------------------------------------------------------------------

    def _comm_s(self) -> float:
        """All-reduces of the tensor-parallel group and the pipeline's stage hand-overs."""
        d = self.deployment
        hops = PIPELINE_HOP_LATENCY_S * (d.pipeline_parallel - 1)
        if d.tensor_parallel == 1:
            return hops
        return ALLREDUCE_LATENCY_S * ALLREDUCES_PER_LAYER * self.model.shape.layers + hops

    def _prefill_unscaled_s(self, prompt_tokens: int) -> float:
        m = self.model
        hops = PIPELINE_HOP_LATENCY_S * (self.deployment.pipeline_parallel - 1)
        return (
            TTFT_OVERHEAD_S
            + hops
            + prefill_seconds(m.shape, m.active_params, self.deployment, prompt_tokens)
        )

    def _step_unscaled_s(self, kv_len: int) -> float:
        m = self.model
        kv_len = max(0, kv_len)
        step = decode_step(
            m.shape, m.active_params, self.deployment, kv_len, total_params=m.total_params
        )
        if self._measured is None:
            return step.seconds + STEP_OVERHEAD_S + self._comm_s()
        # Measured: the weight-read / dense-GEMM roofline stays analytic, and the attention-KV
        # part becomes layers x the CSV's one-layer latency at (kv_len, batch), added rather than
        # max'd since attention and the GEMMs are separate kernels. The latency is that of the
        # model's own per-device shape when the CSV has it (the shipped h200 preset has every
        # simulated model's); else the variant's default shape, taken as-is (timing_source
        # says which).
        profile = self._profile
        weights_s = max(
            step.weight_bytes / (profile.mem_bandwidth_tbs * 1e12),
            step.dense_flops / (profile.peak_bf16_tflops * 1e12),
        )
        attention_s = m.shape.layers * self._measured.latency_s(
            self._variant, kv_len, self.deployment.batch, self._shape_key
        )
        return weights_s + attention_s + STEP_OVERHEAD_S + self._comm_s()

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

    # -- a batch (local/batching.py) ---------------------------------------------------------

    def prefill_chunk_s(self, done: int, upto: int) -> float:
        """Scaled time of prefilling prompt tokens done..upto of one request: a difference of
        the cumulative prefill time (overhead included in the first chunk), so the chunks of
        a prompt add up to ttft_s(prompt) exactly."""
        before = self._prefill_unscaled_s(done) if done > 0 else 0.0
        return (self._prefill_unscaled_s(upto) - before) * self.settings.time_scale

    def batch_step_s(self, kv_lens: list[int], index: int) -> float:
        """Scaled time of one decode step of a batch, sequence i at kv_lens[i] cached tokens:
        the roofline of weights read once plus every sequence's KV read (and their FLOPs), so
        it grows with the batch; one sequence gives token_interval_s(kv_len, index) exactly.
        Jitter as token_interval_s, `index` counting the steps since the batch was idle."""
        if len(kv_lens) == 1 and self.deployment.batch == 1:
            return self.token_interval_s(kv_lens[0], index)
        base = self._batch_step_unscaled_s(kv_lens) * self.settings.time_scale
        if self.settings.jitter <= 0:
            return base
        rng = random.Random(f"{self.settings.seed}:{index}")
        return base * max(_MIN_JITTER_FACTOR, rng.gauss(1.0, self.settings.jitter))

    def _batch_step_unscaled_s(self, kv_lens: list[int]) -> float:
        m, n, profile = self.model, len(kv_lens), self._profile
        whole = decode_step(  # weights a batch of n reads (MoE: the experts it touches)
            m.shape, m.active_params, self.deployment, 0, n, total_params=m.total_params
        )
        if self._measured is not None:
            weights_s = max(
                whole.weight_bytes / (profile.mem_bandwidth_tbs * 1e12),
                whole.dense_flops / (profile.peak_bf16_tflops * 1e12),
            )
            mean_kv = round(sum(kv_lens) / n)
            attention_s = m.shape.layers * self._measured.latency_s(
                self._variant, mean_kv, n, self._shape_key
            )
            return weights_s + attention_s + STEP_OVERHEAD_S + self._comm_s()
        kv_bytes = attention_flops = 0.0
        for kv_len in kv_lens:
            one = self._one_sequence(kv_len)
            kv_bytes += one.kv_bytes
            attention_flops += one.attention_flops
        memory = (whole.weight_bytes + kv_bytes) / (profile.mem_bandwidth_tbs * 1e12)
        compute = (whole.dense_flops + attention_flops) / (profile.peak_bf16_tflops * 1e12)
        return max(memory, compute) + STEP_OVERHEAD_S + self._comm_s()

    def _one_sequence(self, kv_len: int) -> StepCost:
        """One sequence's share of a step (its KV bytes and attention FLOPs), memoized: a
        batch's sequences step through the same lengths."""
        cost = self._per_sequence.get(kv_len)
        if cost is None:
            if len(self._per_sequence) >= _PER_SEQUENCE_CACHE:
                self._per_sequence.clear()
            m = self.model
            cost = decode_step(m.shape, m.active_params, self.deployment, max(0, kv_len), 1)
            self._per_sequence[kv_len] = cost
        return cost

    def decode_tps(self, kv_len: int) -> float:
        """Unscaled decode tokens/s of one sequence at kv_len, without jitter."""
        return 1.0 / self._step_unscaled_s(kv_len)
