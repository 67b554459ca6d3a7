"""Cline's own stores.

Current: `.cline/data/settings/providers.json` — `providers["openai-compatible"].settings`
(baseUrl, apiKey, model, headers, timeout in ms, contextWindow) — plus `models.json` beside it
(context windows and prices per model).

Legacy: `.cline/data/globalState.json` (`actModeApiProvider: "openai"`, openAiBaseUrl,
act/plan model ids and model info) plus `secrets.json` beside it (openAiApiKey).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    Source,
    classify_key,
    get_str,
    get_table,
    load_json,
    make_model,
    opt_headers,
    opt_int,
    opt_number,
    prices_from,
)
from workbench.core.providers import ModelEntry

KIND = "cline_providers"
LEGACY_KIND = "cline_legacy"
OPENAI_COMPATIBLE = "openai-compatible"


def read_cline_providers(path: Path) -> ImportResult:
    """providers.json (or models.json: its providers.json beside it is read)."""
    if path.name == "models.json":
        path = path.with_name("providers.json")
    src, data = load_json(path)
    b = Builder(src, KIND)
    providers = get_table(src, data, "providers", "", required=True)
    assert providers is not None
    entry = providers.get(OPENAI_COMPATIBLE)
    if entry is None:
        found = ", ".join(str(k) for k in providers) or "none"
        raise src.nothing(
            f"providers.{OPENAI_COMPATIBLE} is missing (found: {found}); only Cline's OpenAI "
            "Compatible provider can be imported"
        )
    where = f"providers.{OPENAI_COMPATIBLE}"
    if not isinstance(entry, dict):
        raise src.field_error(where, "must be an object")
    settings = get_table(src, entry, "settings", where, required=True)
    assert settings is not None
    where = f"{where}.settings"
    base = get_str(src, settings, "baseUrl", where, required=True)
    assert base is not None
    key = classify_key(src, settings.get("apiKey"), f"{where}.apiKey", b.warnings)
    label = src.label
    models: list[ModelEntry] = []
    if settings.get("model") is not None:
        models.append(
            make_model(
                settings["model"],
                f"{where}.model",
                src,
                context_window=opt_int(settings, "contextWindow", where, b.warnings, label),
            )
        )
    timeout_ms = opt_number(settings, "timeout", where, b.warnings, label, minimum=1)
    name = None
    others = sorted(str(k) for k in providers if k != OPENAI_COMPATIBLE)
    if others:
        b.warnings.append(f"{label}: skipped {', '.join(others)} (not OpenAI Compatible)")
    models_path = path.with_name("models.json")
    if models_path.is_file():
        msrc, mdata = load_json(models_path)
        extra, name = _models_json(msrc, mdata, base, b.warnings)
        models.extend(extra)
        b.extra_parts.append((KIND, str(models_path)))
    b.add(
        name=name,
        base_url=base,
        url_field=f"{where}.baseUrl",
        key=key,
        models=models,
        headers=opt_headers(settings, "headers", where, b.warnings, label),
        timeout_s=None if timeout_ms is None else timeout_ms / 1000.0,
        origin=f"providers.{OPENAI_COMPATIBLE}",
    )
    return b.result()


def _models_json(
    src: Source, data: dict[str, Any], base_url: str, warnings: list[str]
) -> tuple[list[ModelEntry], str | None]:
    """models.json's OpenAI Compatible models, and the provider's display name there."""
    providers = get_table(src, data, "providers", "")
    entry = None if providers is None else providers.get(OPENAI_COMPATIBLE)
    if entry is None:
        return [], None
    where = f"providers.{OPENAI_COMPATIBLE}"
    if not isinstance(entry, dict):
        raise src.field_error(where, "must be an object")
    name = None
    info = get_table(src, entry, "provider", where)
    if info is not None:
        name = get_str(src, info, "name", f"{where}.provider")
        other = info.get("baseUrl")
        if isinstance(other, str) and other.strip().rstrip("/") != base_url.strip().rstrip("/"):
            warnings.append(
                f"{src.label}: {where}.provider.baseUrl ({other.strip()}) differs from "
                f"providers.json ({base_url}); providers.json wins"
            )
    raw = get_table(src, entry, "models", where)
    models = []
    for model_id, spec in (raw or {}).items():
        mwhere = f"{where}.models.{model_id}"
        if not isinstance(spec, dict):
            raise src.field_error(mwhere, "must be an object")
        models.append(
            make_model(
                model_id,
                mwhere,
                src,
                context_window=opt_int(spec, "contextWindow", mwhere, warnings, src.label),
                prices=prices_from(spec, "inputPrice", "outputPrice", mwhere, warnings, src.label),
            )
        )
    return models, name


_MODEL_FIELDS = (
    ("actModeOpenAiModelId", "actModeOpenAiModelInfo"),
    ("planModeOpenAiModelId", "planModeOpenAiModelInfo"),
    ("openAiModelId", "openAiModelInfo"),
)


def read_cline_legacy(path: Path) -> ImportResult:
    """globalState.json (or secrets.json: its globalState.json beside it is read)."""
    if path.name == "secrets.json":
        path = path.with_name("globalState.json")
    src, data = load_json(path)
    b = Builder(src, LEGACY_KIND)
    label = src.label
    modes = {
        k: data.get(k)
        for k in ("actModeApiProvider", "planModeApiProvider", "apiProvider")
        if data.get(k) is not None
    }
    base = get_str(src, data, "openAiBaseUrl", "")
    if base is None:
        why = ""
        if modes and "openai" not in modes.values():
            first = next(iter(modes.items()))
            why = f" ({first[0]} is {first[1]!r}, not 'openai' (OpenAI Compatible))"
        raise src.nothing(f"openAiBaseUrl is missing{why}")
    if modes and "openai" not in modes.values():
        first = next(iter(modes.items()))
        b.warnings.append(
            f"{label}: {first[0]} is {first[1]!r}, not 'openai'; imported openAiBaseUrl anyway"
        )
    models = []
    for id_field, info_field in _MODEL_FIELDS:
        if data.get(id_field) is None:
            continue
        info = data.get(info_field)
        context = prices = None
        if isinstance(info, dict):
            context = opt_int(info, "contextWindow", info_field, b.warnings, label)
            prices = prices_from(info, "inputPrice", "outputPrice", info_field, b.warnings, label)
        models.append(
            make_model(data[id_field], id_field, src, context_window=context, prices=prices)
        )
    secrets_path = path.with_name("secrets.json")
    key = FoundKey.missing()
    if secrets_path.is_file():
        ssrc, sdata = load_json(secrets_path)
        key = classify_key(ssrc, sdata.get("openAiApiKey"), "openAiApiKey", b.warnings)
        b.extra_parts.append((LEGACY_KIND, str(secrets_path)))
    else:
        b.warnings.append(
            f"{label}: no secrets.json beside it (Cline may keep the key in VS Code's secret "
            "storage); the provider is saved without a key"
        )
    b.add(
        name=None,
        base_url=base,
        url_field="openAiBaseUrl",
        key=key,
        models=models,
        headers=opt_headers(data, "openAiHeaders", "", b.warnings, label),
    )
    return b.result()
