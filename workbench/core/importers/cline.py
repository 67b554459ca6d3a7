"""Cline's own stores.

Current: `.cline/data/settings/providers.json` — `providers["openai-compatible"].settings`
(baseUrl, apiKey, model, headers, timeout in ms, contextWindow) — plus `models.json` beside it
(context windows and prices per model).

Legacy: `.cline/data/globalState.json` (`actModeApiProvider: "openai"`, openAiBaseUrl,
act/plan model ids and model info) plus `secrets.json` beside it (openAiApiKey).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from workbench.core.access.providers import ModelEntry
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    Source,
    classify_key,
    headers_from,
    load_json,
    make_model,
    prices_of,
    warn,
)
from workbench.core.importers._shapes import (
    LENIENT,
    Filled,
    Foreign,
    Headers,
    KeyText,
    ModelId,
    PositiveMs,
    Text,
    Whole,
    read_shape,
)
from workbench.core.importers.vscode import ModelInfo

KIND = "cline_providers"
LEGACY_KIND = "cline_legacy"
OPENAI_COMPATIBLE = "openai-compatible"
_ENTRY = f"providers.{OPENAI_COMPATIBLE}"
SKIPPED_OTHERS = QT_TRANSLATE_NOOP(
    "ConfigImport", "{label}: skipped {others} (not OpenAI Compatible)"
)
URL_DIFFERS = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: {field} ({other}) differs from providers.json ({url}); providers.json wins",
)
NOT_OPENAI = QT_TRANSLATE_NOOP(
    "ConfigImport", "{label}: {field} is {value}, not 'openai'; imported openAiBaseUrl anyway"
)
NO_SECRETS = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: no secrets.json beside it (Cline may keep the key in VS Code's secret storage); "
    "the provider is saved without a key",
)


class _Settings(Foreign):
    base_url: Filled = Field(alias="baseUrl")
    api_key: KeyText = Field(None, alias="apiKey")
    model: ModelId | None = None
    context_window: Whole = Field(None, alias="contextWindow")
    timeout_ms: PositiveMs = Field(None, alias="timeout")
    headers: Headers = None


class _Entry(Foreign):
    settings: _Settings


class ClineProviders(Foreign):
    # only the OpenAI Compatible entry is read; the others are named in a warning
    providers: dict[str, Any] = Field(
        description=QT_TRANSLATE_NOOP("Validation", "an object of providers")
    )


def read_cline_providers(path: Path) -> ImportResult:
    """providers.json (or models.json: its providers.json beside it is read)."""
    if path.name == "models.json":
        path = path.with_name("providers.json")
    src, data = load_json(path)
    b = Builder(src, KIND)
    providers = read_shape(src, ClineProviders, data, b.warnings).providers
    if providers.get(OPENAI_COMPATIBLE) is None:
        found = ", ".join(str(k) for k in providers) or "none"
        raise src.nothing(
            f"{_ENTRY} is missing (found: {found}); only Cline's OpenAI "
            "Compatible provider can be imported"
        )
    settings = read_shape(src, _Entry, providers[OPENAI_COMPATIBLE], b.warnings, _ENTRY).settings
    where = f"{_ENTRY}.settings"
    label = src.label
    key = classify_key(src, settings.api_key, f"{where}.apiKey", b.warnings)
    models: list[ModelEntry] = []
    if settings.model is not None:
        models.append(make_model(settings.model, context_window=settings.context_window))
    name = None
    others = sorted(str(k) for k in providers if k != OPENAI_COMPATIBLE)
    if others:
        b.warnings.append(warn(SKIPPED_OTHERS, label=label, others=", ".join(others)))
    models_path = path.with_name("models.json")
    if models_path.is_file():
        msrc, mdata = load_json(models_path)
        extra, name = _models_json(msrc, mdata, settings.base_url, b.warnings)
        models.extend(extra)
        b.extra_parts.append((KIND, str(models_path)))
    b.add(
        name=name,
        base_url=settings.base_url,
        url_field=f"{where}.baseUrl",
        key=key,
        models=models,
        headers=headers_from(settings.headers, b.warnings, label),
        timeout_s=None if settings.timeout_ms is None else settings.timeout_ms / 1000.0,
        origin=_ENTRY,
    )
    return b.result()


class _ProviderInfo(Foreign):
    name: Text = None
    base_url: Annotated[Text, LENIENT] = Field(None, alias="baseUrl")


class _ModelsEntry(Foreign):
    provider: _ProviderInfo | None = None
    models: dict[str, ModelInfo] | None = None


class ClineModels(Foreign):
    providers: dict[str, Any] | None = None


def _models_json(
    src: Source, data: dict[str, Any], base_url: str, warnings: list[str]
) -> tuple[list[ModelEntry], str | None]:
    """models.json's OpenAI Compatible models, and the provider's display name there."""
    providers = read_shape(src, ClineModels, data, warnings).providers or {}
    if providers.get(OPENAI_COMPATIBLE) is None:
        return [], None
    entry = read_shape(src, _ModelsEntry, providers[OPENAI_COMPATIBLE], warnings, _ENTRY)
    info = entry.provider or _ProviderInfo()
    other = info.base_url
    if other is not None and other.rstrip("/") != base_url.strip().rstrip("/"):
        field = f"{_ENTRY}.provider.baseUrl"
        said = warn(URL_DIFFERS, label=src.label, field=field, other=other, url=base_url)
        warnings.append(said)
    models = [
        make_model(
            model_id,
            context_window=spec.context_window,
            prices=prices_of(spec.input_price, spec.output_price),
        )
        for model_id, spec in (entry.models or {}).items()
    ]
    return models, info.name


class _GlobalState(Foreign):
    act_provider: Annotated[Text, LENIENT] = Field(None, alias="actModeApiProvider")
    plan_provider: Annotated[Text, LENIENT] = Field(None, alias="planModeApiProvider")
    provider: Annotated[Text, LENIENT] = Field(None, alias="apiProvider")
    base_url: Text = Field(None, alias="openAiBaseUrl")
    act_model: ModelId | None = Field(None, alias="actModeOpenAiModelId")
    act_info: Annotated[ModelInfo | None, LENIENT] = Field(None, alias="actModeOpenAiModelInfo")
    plan_model: ModelId | None = Field(None, alias="planModeOpenAiModelId")
    plan_info: Annotated[ModelInfo | None, LENIENT] = Field(None, alias="planModeOpenAiModelInfo")
    model: ModelId | None = Field(None, alias="openAiModelId")
    info: Annotated[ModelInfo | None, LENIENT] = Field(None, alias="openAiModelInfo")
    headers: Headers = Field(None, alias="openAiHeaders")

    def modes(self) -> dict[str, str]:
        """The API provider each mode uses, by the setting's name, where set."""
        found = (
            ("actModeApiProvider", self.act_provider),
            ("planModeApiProvider", self.plan_provider),
            ("apiProvider", self.provider),
        )
        return {name: value for name, value in found if value is not None}

    def models(self) -> list[ModelEntry]:
        pairs = ((self.act_model, self.act_info), (self.plan_model, self.plan_info))
        out = []
        for model_id, info in (*pairs, (self.model, self.info)):
            if model_id is not None:
                info = info or ModelInfo()
                prices = prices_of(info.input_price, info.output_price)
                out.append(make_model(model_id, context_window=info.context_window, prices=prices))
        return out


class _Secrets(Foreign):
    api_key: KeyText = Field(None, alias="openAiApiKey")


def read_cline_legacy(path: Path) -> ImportResult:
    """globalState.json (or secrets.json: its globalState.json beside it is read)."""
    if path.name == "secrets.json":
        path = path.with_name("globalState.json")
    src, data = load_json(path)
    b = Builder(src, LEGACY_KIND)
    label = src.label
    state = read_shape(src, _GlobalState, data, b.warnings)
    modes = state.modes()
    other = next(iter(modes.items())) if modes and "openai" not in modes.values() else None
    if state.base_url is None:
        why = f" ({other[0]} is {other[1]!r}, not 'openai' (OpenAI Compatible))" if other else ""
        raise src.nothing(f"openAiBaseUrl is missing{why}")
    if other:
        b.warnings.append(warn(NOT_OPENAI, label=label, field=other[0], value=repr(other[1])))
    secrets_path = path.with_name("secrets.json")
    key = FoundKey.missing()
    if secrets_path.is_file():
        ssrc, sdata = load_json(secrets_path)
        secrets = read_shape(ssrc, _Secrets, sdata, b.warnings)
        key = classify_key(ssrc, secrets.api_key, "openAiApiKey", b.warnings)
        b.extra_parts.append((LEGACY_KIND, str(secrets_path)))
    else:
        b.warnings.append(warn(NO_SECRETS, label=label))
    b.add(
        name=None,
        base_url=state.base_url,
        url_field="openAiBaseUrl",
        key=key,
        models=state.models(),
        headers=headers_from(state.headers, b.warnings, label),
    )
    return b.result()
