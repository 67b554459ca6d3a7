"""The CC Switch-style TOML that Cline/CC Switch setup guides show: `[provider.X]` tables with
name, base_url, api_key (often `${VAR}`) and model."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    classify_key,
    env_var_key,
    load_toml,
    make_model,
)
from workbench.core.importers._shapes import (
    EnvName,
    Filled,
    Foreign,
    KeyText,
    ModelId,
    Positive,
    read_shape,
)

KIND = "ccswitch_toml"


class _Provider(Foreign):
    base_url: Filled
    api_key: KeyText = None
    api_key_env: EnvName = None
    model: ModelId | None = None
    timeout: Positive = None


class CcSwitchToml(Foreign):
    provider: dict[str, _Provider] = Field(
        description=QT_TRANSLATE_NOOP("Validation", "tables like [provider.taotoken]")
    )


def read_ccswitch_toml(path: Path) -> ImportResult:
    src, data = load_toml(path)
    b = Builder(src, KIND)
    config = read_shape(src, CcSwitchToml, data, b.warnings)
    if not config.provider:
        raise src.error("[provider] holds no [provider.NAME] tables")
    for table_name, entry in config.provider.items():
        where = f"provider.{table_name}"
        if entry.api_key is not None:
            key = classify_key(src, entry.api_key, f"{where}.api_key", b.warnings)
        elif entry.api_key_env is not None:
            key = env_var_key(src, entry.api_key_env, f"{where}.api_key_env")
        else:
            key = FoundKey.missing()
        b.add(
            name=table_name,
            base_url=entry.base_url,
            url_field=f"{where}.base_url",
            key=key,
            models=[make_model(entry.model)] if entry.model else [],
            timeout_s=entry.timeout,
            origin=where,
        )
    return b.result()
