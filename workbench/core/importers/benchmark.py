"""benchmark_config.json, as a gateway setup guide's benchmark scripts read it: `base_url`,
`api_key_env`, `models.{name}.{id, attention_type, max_context}`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator, Field

from workbench.core.access.providers import ModelEntry
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    Builder,
    FoundKey,
    ImportResult,
    classify_key,
    env_var_key,
    load_json,
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
    models_table,
    read_shape,
)

KIND = "benchmark_json"
NO_KEY_FIELD = QT_TRANSLATE_NOOP(
    "ConfigImport", "{label}: no api_key_env: the provider is saved without a key"
)


class _Model(Foreign):
    id: ModelId
    attention_type: Attention = None
    attention: Attention = None
    max_context: Whole = None
    context_window: Whole = None
    input_price: Number = None
    output_price: Number = None

    def entry(self) -> ModelEntry:
        return make_model(
            self.id,
            attention=self.attention_type or self.attention,
            context_window=self.max_context or self.context_window,
            prices=prices_of(self.input_price, self.output_price),
        )


class _Limits(Foreign):
    timeout: Positive = None


class BenchmarkConfig(Foreign):
    base_url: Filled
    api_key_env: EnvName = None
    api_key: KeyText = None
    name: Annotated[Text, LENIENT] = None
    # a model id, a list of them, or an object of models by name (each an id or a table)
    models: Annotated[
        dict[str | int, _Model] | None,
        BeforeValidator(models_table),
        Field(
            description=QT_TRANSLATE_NOOP(
                "Validation", "an object of models or a list of model ids"
            )
        ),
    ] = None
    benchmark: Annotated[_Limits | None, LENIENT] = None
    request: Annotated[_Limits | None, LENIENT] = None


def read_benchmark_config(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, KIND)
    config = read_shape(src, BenchmarkConfig, data, b.warnings)
    if config.api_key_env is not None:
        key = env_var_key(src, config.api_key_env, "api_key_env")
    elif config.api_key is not None:
        key = classify_key(src, config.api_key, "api_key", b.warnings)
    else:
        key = FoundKey.missing()
        b.warnings.append(warn(NO_KEY_FIELD, label=src.label))
    limits = [t.timeout for t in (config.benchmark, config.request) if t and t.timeout]
    b.add(
        name=config.name,
        base_url=config.base_url,
        url_field="base_url",
        key=key,
        models=[m.entry() for m in (config.models or {}).values()],
        timeout_s=limits[0] if limits else None,
    )
    return b.result()
