"""benchmark_config.json, as a gateway setup guide's benchmark scripts read it: `base_url`,
`api_key_env`, `models.{name}.{id, attention_type, max_context}`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    Source,
    classify_key,
    env_var_key,
    get_str,
    load_json,
    make_model,
    normalize_attention,
    opt_int,
    prices_from,
)
from workbench.core.providers import ModelEntry

KIND = "benchmark_json"


def read_benchmark_config(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, KIND)
    base = get_str(src, data, "base_url", "", required=True)
    assert base is not None
    if data.get("api_key_env") is not None:
        key = env_var_key(src, data["api_key_env"], "api_key_env")
    elif data.get("api_key") is not None:
        key = classify_key(src, data["api_key"], "api_key", b.warnings)
    else:
        key = FoundKey.missing()
        b.warnings.append(f"{src.label}: no api_key_env: the provider is saved without a key")
    name = data.get("name") if isinstance(data.get("name"), str) else None
    b.add(
        name=name,
        base_url=base,
        url_field="base_url",
        key=key,
        models=_models(src, data.get("models"), b.warnings),
        timeout_s=_timeout(data, b.warnings, src.label),
    )
    return b.result()


def _timeout(data: dict[str, Any], warnings: list[str], label: str) -> float | None:
    from workbench.core.importers._base import opt_number

    for table in ("benchmark", "request"):
        section = data.get(table)
        if isinstance(section, dict) and section.get("timeout") is not None:
            return opt_number(section, "timeout", table, warnings, label, minimum=0.001)
    return None


def _models(src: Source, raw: Any, warnings: list[str]) -> list[ModelEntry]:
    label = src.label
    if raw is None:
        return []
    if isinstance(raw, str):
        return [make_model(raw, "models", src)]
    items: list[tuple[str, Any]]
    if isinstance(raw, dict):
        items = [(f"models.{k}", v) for k, v in raw.items()]
    elif isinstance(raw, list):
        items = [(f"models[{i}]", v) for i, v in enumerate(raw)]
    else:
        raise src.field_error("models", "must be an object of models or a list of model ids")
    models = []
    for where, entry in items:
        if isinstance(entry, str):
            models.append(make_model(entry, where, src))
            continue
        if not isinstance(entry, dict):
            raise src.field_error(where, "must be a model id or an object with an 'id'")
        attention = entry.get("attention_type", entry.get("attention"))
        models.append(
            make_model(
                entry.get("id"),
                f"{where}.id",
                src,
                attention=normalize_attention(
                    attention, f"{where}.attention_type", warnings, label
                ),
                context_window=opt_int(entry, "max_context", where, warnings, label)
                or opt_int(entry, "context_window", where, warnings, label),
                prices=prices_from(entry, "input_price", "output_price", where, warnings, label),
            )
        )
    return models
