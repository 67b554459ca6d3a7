"""The CC Switch-style TOML that Cline/CC Switch setup guides show: `[provider.X]` tables with
name, base_url, api_key (often `${VAR}`) and model."""

from __future__ import annotations

from pathlib import Path

from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    classify_key,
    env_var_key,
    get_str,
    get_table,
    load_toml,
    make_model,
    opt_number,
)

KIND = "ccswitch_toml"


def read_ccswitch_toml(path: Path) -> ImportResult:
    src, data = load_toml(path)
    b = Builder(src, KIND)
    tables = get_table(src, data, "provider", "", required=True)
    assert tables is not None
    if not tables:
        raise src.error("[provider] holds no [provider.NAME] tables")
    for table_name, entry in tables.items():
        where = f"provider.{table_name}"
        if not isinstance(entry, dict):
            raise src.field_error(where, "must be a table like [provider.taotoken]")
        base = get_str(src, entry, "base_url", where, required=True)
        assert base is not None
        if entry.get("api_key") is not None:
            key = classify_key(src, entry["api_key"], f"{where}.api_key", b.warnings)
        elif entry.get("api_key_env") is not None:
            key = env_var_key(src, entry["api_key_env"], f"{where}.api_key_env")
        else:
            key = FoundKey.missing()
        models = []
        if entry.get("model") is not None:
            models.append(make_model(entry["model"], f"{where}.model", src))
        timeout = opt_number(entry, "timeout", where, b.warnings, src.label, minimum=0.001)
        b.add(
            name=table_name,
            base_url=base,
            url_field=f"{where}.base_url",
            key=key,
            models=models,
            timeout_s=timeout,
            origin=where,
        )
    return b.result()
