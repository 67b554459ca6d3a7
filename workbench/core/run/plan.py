"""One plan for both faces: targets and the run plan from providers, the catalog and choices.

The GUI (`ui/compare_controller.py`, `ui/main_window.py`) and the CLI (`commands/common.py`,
`bench.py`) both build their targets and `RunPlan` here, so the same provider is measured under
the same limits, prices and attention facts whichever face started the run. Precedence, in one
place: a model's facts come from the provider's own entry, else the catalog; its prices from
providers.toml, else the catalog, else unknown; its timeouts from the user's explicit choice,
else the provider's, else the defaults."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from workbench.core.access.providers import ModelEntry, Protocol, Provider
from workbench.core.foundation.results import UNKNOWN_PRICES, Prices, Target, Timeouts
from workbench.core.models.catalog import Catalog
from workbench.core.planning.run_plan import RefusedCell, RunPlan, RunSettings
from workbench.core.protocols.registry import auth_for

# The built-in provider's name: its simulated models, started by the app or the CLI.
LOCAL_PROVIDER = "local"


@dataclass(frozen=True)
class ModelFacts:
    """What is known about a model on a provider: its own entry first, else the catalog's."""

    attention: str | None
    prices: Prices
    context_window: int | None
    display_name: str | None
    in_catalog: bool


def catalog_id(provider: str, model: str) -> str:
    """The catalog's id of `model`: the built-in provider's fault suffix (`+429`) left off."""
    return model.split("+", 1)[0] if provider == LOCAL_PROVIDER else model


def model_facts(
    catalog: Catalog, model: str, saved: Provider | None = None, provider: str = ""
) -> ModelFacts:
    """Attention, prices, context window and name: the saved provider's entry over the catalog."""
    info = catalog.get(catalog_id(provider or (saved.name if saved else ""), model))
    entry = (saved.model(model) if saved is not None else None) or ModelEntry(model)
    return ModelFacts(
        attention=entry.attention or (info.attention if info else None),
        prices=entry.prices or (info.prices if info else UNKNOWN_PRICES),
        context_window=entry.context_window or (info.context_window if info else None),
        display_name=entry.display_name or (info.display_name if info else None),
        in_catalog=info is not None,
    )


def provider_timeouts(saved: Provider | None) -> Timeouts:
    """The saved provider's limits, else the defaults."""
    if saved is None:
        return Timeouts()
    default = Timeouts()
    return Timeouts(
        saved.first_token_timeout_s or default.first_token_s,  # a 0 by hand: the default
        saved.stall_timeout_s or default.stall_s,
        saved.total_timeout_s,
    )


def resolve_target(
    catalog: Catalog,
    provider: str,
    base_url: str,
    model: str,
    saved: Provider | None = None,
    route: str | None = None,
    protocol: Protocol | None = None,
) -> Target:
    """One (provider, model) to measure, with its facts, prices and the provider's limits;
    `protocol` (a --protocol flag) overrides the saved provider's."""
    facts = model_facts(catalog, model, saved, provider)
    protocol = protocol or (saved.protocol if saved is not None else "chat")
    auth = auth_for(protocol, saved.auth if saved is not None else None)
    return Target(
        provider=provider,
        base_url=base_url,
        model=model,
        attention=facts.attention,
        prices=facts.prices,
        context_window=facts.context_window,
        route=route,
        timeouts=provider_timeouts(saved),
        protocol=protocol,
        auth=auth,
    )


def saved_target(
    catalog: Catalog, saved: Provider, model: str, protocol: Protocol | None = None
) -> Target:
    """A Target on a saved provider; `protocol` (a pane's choice) overrides the provider's."""
    return resolve_target(catalog, saved.name, saved.base_url, model, saved, protocol=protocol)


def local_target(
    catalog: Catalog, base_url: str | None, model: str, protocol: Protocol | None = None
) -> Target:
    """A Target on the built-in provider (a placeholder URL until it listens)."""
    url = base_url or "http://127.0.0.1:0/v1"
    return resolve_target(catalog, LOCAL_PROVIDER, url, model, protocol=protocol)


NO_CHOICE = Timeouts(None, None, None)  # every limit left to the provider


@dataclass(frozen=True, kw_only=True)
class Choices(RunSettings):
    """What the user chose in the window or with flags: the run's settings and the limits
    that override the providers' (None: the provider's)."""

    timeouts: Timeouts = NO_CHOICE
    kind: Literal["comparison", "sweep"] | None = None  # None: sweep when several lengths


@dataclass(frozen=True)
class LocalSim:
    """The built-in provider's overrides of its models' deployments (--gpu, --tp)."""

    gpu: str | None = None
    tensor_parallel: int | None = None


def build_plan(
    targets: Sequence[Target],
    choices: Choices,
    catalog: Catalog | None = None,
    local: LocalSim | None = LocalSim(),
) -> RunPlan:
    """The run plan: each target keeps its provider's limits unless the user overrode one.
    Given the catalog, each cell of a built-in model whose KV cache would not fit its
    deployment is refused before sending (core/planning/memory_fit.py); `local=None` sends them all.

    Raises ValueError naming the first value out of range (a hand-edited timeout, say)."""
    unique = tuple(dict.fromkeys(targets))  # two panes on one model measure it once
    chosen = choices.timeouts
    limited = tuple(replace(t, timeouts=_override(t.timeouts, chosen)) for t in unique)
    kind = choices.kind or ("sweep" if len(choices.prompt_lengths) > 1 else "comparison")
    settings: dict[str, Any] = {f.name: getattr(choices, f.name) for f in fields(RunSettings)}
    settings["prompt_lengths"] = tuple(choices.prompt_lengths)  # a list from a caller: frozen
    return RunPlan(
        **settings,
        targets=limited,
        kind=kind,
        refused=_unfit(catalog, local, limited, choices),
    )


def _unfit(
    catalog: Catalog | None, local: LocalSim | None, targets: Sequence[Target], choices: Choices
) -> tuple[RefusedCell, ...]:
    if catalog is None or local is None:
        return ()
    from workbench.core.planning.memory_fit import (
        refused_cells,  # kernels_bridge's roofline, on demand
    )

    cells = [
        (t.label, catalog_id(t.provider, t.model), length)
        for t in targets
        if t.provider == LOCAL_PROVIDER
        for length in choices.prompt_lengths
    ]
    return refused_cells(catalog, cells, choices.max_tokens, local.gpu, local.tensor_parallel)


def _override(base: Timeouts, chosen: Timeouts) -> Timeouts:
    """Each limit: the user's choice when made, else the target's own (its provider's)."""
    return Timeouts(
        chosen.first_token_s if chosen.first_token_s is not None else base.first_token_s,
        chosen.stall_s if chosen.stall_s is not None else base.stall_s,
        chosen.total_s if chosen.total_s is not None else base.total_s,
    )


def shared_server(plan: RunPlan) -> str | None:
    """The host:port that several of a parallel plan's models share, if any. The built-in
    provider's simulated models share nothing (their timings depend on the request alone)."""
    if plan.mode != "parallel":
        return None
    seen: dict[str, set[str]] = {}
    for target in plan.targets:
        if target.provider != LOCAL_PROVIDER:
            parts = urlsplit(target.base_url)
            host = f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
            seen.setdefault(host, set()).add(target.model)
    return next((host for host, models in seen.items() if len(models) > 1), None)
