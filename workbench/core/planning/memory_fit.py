"""Whether a simulated model's KV cache fits its deployment, and what would: the one home of
the memory rule, used by the built-in provider's admission (`local/costmodel.py`), the refusal
before sending (`refused_cells`, through `core/run/plan.py` for the CLI and the GUI) and the pane.

The rule (docs/cost-model.md, "Admission"): per device, weights / (T·P) plus batch · stored
tokens · KV bytes per token of the device's layers must fit in memory · memory_utilization
(`kernels_bridge.analytic.kv_fit`). A model that does not fit is told what would: the memory its
KV cache needs in all (and how many of its GPUs that is), and which of its twins (same weights
and deployment, other attention) fit at that length.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass

from kernels_bridge.analytic import Deployment, get_profile, kv_fit, weight_bytes_per_device
from kernels_bridge.variants import kv_tokens_stored
from workbench.core.models.catalog import Catalog, ModelInfo
from workbench.core.planning.run_plan import RefusedCell

HEADLINE_END = "."  # a refusal's first sentence says it all; `headline` cuts there
NOT_SENT = "not sent (memory): "  # how the runner's rows of refused cells begin


def headline(message: str) -> str | None:
    """The first sentence of a memory refusal in a row's message; None for other messages."""
    _, found, rest = message.partition(NOT_SENT)
    if not found:
        return None
    return rest.split(HEADLINE_END + " ", 1)[0] + HEADLINE_END


def gb(n: float) -> str:
    """Decimal units, as docs/attention.md: 17.5 GB, 2.75 TB."""
    return f"{n / 1e12:.2f} TB" if n >= 1e12 else f"{n / 1e9:.1f} GB"


def deployed(
    base: Deployment,
    gpu: str | None = None,
    tensor_parallel: int | None = None,
    batch: int | None = None,
) -> Deployment:
    """The catalog's deployment with the built-in provider's overrides (--gpu, --tp)."""
    return dataclasses.replace(
        base,
        gpu=base.gpu if gpu is None else get_profile(gpu).key,
        tensor_parallel=base.tensor_parallel if tensor_parallel is None else tensor_parallel,
        batch=base.batch if batch is None else batch,
    )


@dataclass(frozen=True)
class MemoryFit:
    """One model at one length on one deployment: per-device bytes and the whole cache."""

    fits: bool
    stored_tokens: int
    weights_per_device: float
    kv_per_device: float
    available_per_device: float
    kv_total: float  # the KV cache the replica's devices hold together
    devices_needed: int  # GPUs of this kind whose usable memory holds weights + KV cache

    @property
    def weights_alone_too_big(self) -> bool:
        return self.weights_per_device > self.available_per_device


def memory_fit(model: ModelInfo, deployment: Deployment, tokens: int) -> MemoryFit:
    """Weights and the KV cache of `tokens` tokens (prompt + output) per device."""
    fit = kv_fit(model.shape, model.total_params, deployment, tokens)
    weights = weight_bytes_per_device(model.total_params, deployment)
    kv = fit.needed_bytes - weights
    whole = (weights + kv) * deployment.replica_devices
    return MemoryFit(
        fits=fit.fits,
        stored_tokens=kv_tokens_stored(model.shape, tokens),
        weights_per_device=weights,
        kv_per_device=kv,
        available_per_device=fit.available_bytes,
        kv_total=kv * deployment.replica_devices,
        devices_needed=max(1, math.ceil(whole / fit.available_bytes)),
    )


def kv_budget(model: ModelInfo, deployment: Deployment) -> float:
    """Bytes per device the KV cache of all running sequences shares: usable memory minus the
    weights (the continuous-batching admission of `local/batching.py`)."""
    fit = kv_fit(model.shape, model.total_params, deployment, 0, 1)
    return fit.available_bytes - weight_bytes_per_device(model.total_params, deployment)


def kv_per_sequence(model: ModelInfo, deployment: Deployment, tokens: int) -> float:
    """Bytes per device the KV cache of one sequence of `tokens` tokens takes (busiest stage)."""
    fit = kv_fit(model.shape, model.total_params, deployment, tokens, 1)
    return fit.needed_bytes - weight_bytes_per_device(model.total_params, deployment)


def twins(catalog: Catalog, model: ModelInfo) -> list[ModelInfo]:
    """The simulated models with the same weights and deployment, attention aside (the 70B
    twins; DeepSeek-V3 and its GLA what-if)."""
    s = model.shape
    return [
        m
        for m in catalog.simulated()
        if m.id != model.id
        and m.deployment == model.deployment
        and (m.total_params, m.active_params) == (model.total_params, model.active_params)
        and (m.shape.layers, m.shape.q_heads) == (s.layers, s.q_heads)
    ]


def fitting_twins(
    catalog: Catalog, model: ModelInfo, deployment: Deployment, tokens: int
) -> list[ModelInfo]:
    """Its twins whose cache fits the same deployment at the same length."""
    return [m for m in twins(catalog, model) if memory_fit(m, deployment, tokens).fits]


def memory_refusal(
    catalog: Catalog,
    model: ModelInfo,
    deployment: Deployment,
    prompt: int,
    max_tokens: int,
    *,
    short: bool = False,
) -> str | None:
    """None when prompt + max_tokens fit; else why not, and what would. `short`: the headline
    a pane shows (the memory it needs in all, and the twins that fit), without the per-device
    figures and the fix."""
    fit = memory_fit(model, deployment, prompt + max_tokens)
    if fit.fits:
        return None
    gpu = deployment.profile
    others = fitting_twins(catalog, model, deployment, prompt + max_tokens)
    if short and not fit.weights_alone_too_big:
        fitting = ", ".join(m.attention for m in others) or "none of its twins"
        return (
            f"{model.attention} at {prompt:,} tokens needs {gb(fit.kv_total)} of KV cache, the "
            f"memory of about {fit.devices_needed} {gpu.key}s ({deployment.replica_devices} "
            f"here). Fits: {fitting}."
        )
    where = (
        f"an {gpu.key} has {gpu.memory_gib:g} GiB, {deployment.memory_utilization:.0%} of it "
        f"usable ({gb(fit.available_per_device)}); {model.id}: {model.attention} on "
        f"{deployment.describe()}"
    )
    if fit.weights_alone_too_big:
        return (
            f"The weights alone need {gb(fit.weights_per_device)} per device; {where}. "
            "Use a higher tensor-parallel degree or a GPU with more memory."
        )
    seqs = f" for each of {deployment.batch} sequences" if deployment.batch > 1 else ""
    text = (
        f"{model.id} ({model.attention}) with a {prompt:,}-token prompt needs {gb(fit.kv_total)} "
        f"of KV cache, the usable memory of about {fit.devices_needed} {gpu.key}s with its "
        f"weights{HEADLINE_END} Per device, its KV cache for {fit.stored_tokens:,} tokens{seqs} "
        f"needs {gb(fit.kv_per_device)} beside {gb(fit.weights_per_device)} of weights; "
        f"{where}."
    )
    if others:
        names = ", ".join(f"{m.attention} ({m.id})" for m in others)
        text += f" Its twins that fit at this length: {names}."
    fix = "Use a shorter prompt, a twin that fits, or a higher tensor-parallel degree"
    if model.attention == "MLA":
        fix += " (it frees weight memory only: MLA's latent cache is replicated per device)"
    if deployment.batch > 1:
        fix += ", or a smaller batch"
    return f"{text} {fix}."


def refused_cells(
    catalog: Catalog,
    cells: Iterable[tuple[str, str, int]],
    max_tokens: int,
    gpu: str | None = None,
    tensor_parallel: int | None = None,
) -> tuple[RefusedCell, ...]:
    """The cells (target label, catalog id, prompt length) of simulated models whose KV cache
    would not fit their deployment (with the built-in provider's overrides)."""
    out = []
    for label, model_id, length in cells:
        model = catalog.get(model_id)
        if model is None or not model.simulated or model.deployment is None:
            continue
        deployment = deployed(model.deployment, gpu, tensor_parallel)
        reason = memory_refusal(catalog, model, deployment, length, max_tokens)
        if reason is not None:
            out.append(RefusedCell(label, length, reason))
    return tuple(out)
