"""The hand-written TOML client config of gateway setup guides: `[provider]` (name, base_url,
api_key_env), `[models.*]` (id, attention, context_window) and `[request]` (timeout in
seconds)."""

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
    get_table,
    load_toml,
    make_model,
    normalize_attention,
    opt_int,
    opt_number,
    prices_from,
)
from workbench.core.providers import ModelEntry

KIND = "toml_client"


def read_toml_client(path: Path) -> ImportResult:
    src, data = load_toml(path)
    return read_toml_client_data(src, data)


def read_toml_client_data(src: Source, data: dict[str, Any]) -> ImportResult:
    b = Builder(src, KIND)
    provider = get_table(src, data, "provider", "", required=True)
    assert provider is not None
    base = get_str(src, provider, "base_url", "provider", required=True)
    assert base is not None
    if provider.get("api_key_env") is not None:
        key = env_var_key(src, provider["api_key_env"], "provider.api_key_env")
    elif provider.get("api_key") is not None:
        key = classify_key(src, provider["api_key"], "provider.api_key", b.warnings)
    else:
        key = FoundKey.missing()
        b.warnings.append(f"{src.label}: [provider] has no api_key_env: saved without a key")
    models = _models(src, data.get("models"), b.warnings)
    single = provider.get("model")
    if single is not None:
        models.insert(0, make_model(single, "provider.model", src))
    timeout = None
    request = get_table(src, data, "request", "")
    for table, where in ((request, "request"), (provider, "provider")):
        if table is not None and table.get("timeout") is not None and timeout is None:
            timeout = opt_number(table, "timeout", where, b.warnings, src.label, minimum=0.001)
    name = get_str(src, provider, "name", "provider")
    b.add(
        name=name,
        base_url=base,
        url_field="provider.base_url",
        key=key,
        models=models,
        timeout_s=timeout,
    )
    return b.result()


def _models(src: Source, raw: Any, warnings: list[str]) -> list[ModelEntry]:
    if raw is None:
        return []
    if not isinstance(raw, dict):
        raise src.field_error("models", "must be tables like [models.gqa]")
    out = []
    for name, entry in raw.items():
        where = f"models.{name}"
        if isinstance(entry, str):
            out.append(make_model(entry, where, src))
            continue
        if not isinstance(entry, dict):
            raise src.field_error(where, "must be a table with an 'id'")
        prices = prices_from(entry, "input_price", "output_price", where, warnings, src.label)
        sub = entry.get("prices")
        if isinstance(sub, dict):
            prices = prices_from(sub, "input", "output", f"{where}.prices", warnings, src.label)
        out.append(
            make_model(
                entry.get("id", name if isinstance(name, str) else None),
                f"{where}.id",
                src,
                attention=normalize_attention(
                    entry.get("attention", entry.get("attention_type")),
                    f"{where}.attention",
                    warnings,
                    src.label,
                ),
                context_window=opt_int(entry, "context_window", where, warnings, src.label),
                prices=prices,
                display_name=entry.get("display_name")
                if isinstance(entry.get("display_name"), str)
                else None,
            )
        )
    return out
