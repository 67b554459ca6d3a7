"""The hand-written TOML client config of gateway setup guides: `[provider]` (name, base_url,
api_key_env), `[models.*]` (id, attention, context_window) and `[request]` (timeout in
seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from workbench.core.access.providers import ModelEntry
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    Source,
    classify_key,
    env_var_key,
    load_toml,
    make_model,
    prices_of,
    warn,
)
from workbench.core.importers._shapes import (
    LENIENT,
    Attention,
    EnvName,
    Filled,
    Foreign,
    KeyText,
    ModelId,
    Number,
    Positive,
    Text,
    Whole,
    named_models,
    read_shape,
)

KIND = "toml_client"
NO_KEY_FIELD = QT_TRANSLATE_NOOP(
    "ConfigImport", "{label}: [provider] has no api_key_env: saved without a key"
)


class _Prices(Foreign):
    input: Number = None
    output: Number = None


class _Model(Foreign):
    id: ModelId
    attention: Attention = None
    attention_type: Attention = None
    context_window: Whole = None
    input_price: Number = None
    output_price: Number = None
    prices: Annotated[_Prices | None, LENIENT] = None
    display_name: Annotated[Text, LENIENT] = None

    def entry(self) -> ModelEntry:
        table = self.prices
        return make_model(
            self.id,
            attention=self.attention or self.attention_type,
            context_window=self.context_window,
            prices=prices_of(table.input, table.output)
            if table
            else prices_of(self.input_price, self.output_price),
            display_name=self.display_name,
        )


class _Provider(Foreign):
    name: Text = None
    base_url: Filled
    api_key_env: EnvName = None
    api_key: KeyText = None
    model: ModelId | None = None
    timeout: Positive = None


class _Request(Foreign):
    timeout: Positive = None


class TomlClient(Foreign):
    provider: _Provider
    models: Annotated[
        dict[str, _Model] | None,
        BeforeValidator(named_models),
        Field(description=QT_TRANSLATE_NOOP("Validation", "tables like [models.gqa]")),
    ] = None
    request: _Request | None = None


def read_toml_client(path: Path) -> ImportResult:
    src, data = load_toml(path)
    return read_toml_client_data(src, data)


def read_toml_client_data(src: Source, data: dict[str, Any]) -> ImportResult:
    b = Builder(src, KIND)
    config = read_shape(src, TomlClient, data, b.warnings)
    provider = config.provider
    if provider.api_key_env is not None:
        key = env_var_key(src, provider.api_key_env, "provider.api_key_env")
    elif provider.api_key is not None:
        key = classify_key(src, provider.api_key, "provider.api_key", b.warnings)
    else:
        key = FoundKey.missing()
        b.warnings.append(warn(NO_KEY_FIELD, label=src.label))
    models = [m.entry() for m in (config.models or {}).values()]
    if provider.model is not None:
        models.insert(0, make_model(provider.model))
    timeout = (config.request.timeout if config.request else None) or provider.timeout
    b.add(
        name=provider.name,
        base_url=provider.base_url,
        url_field="provider.base_url",
        key=key,
        models=models,
        timeout_s=timeout,
    )
    return b.result()
