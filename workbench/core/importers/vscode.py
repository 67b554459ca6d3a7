"""The Cline-style VS Code settings.json of setup guides: JSONC with `cline.openAiBaseUrl`,
`cline.openAiApiKey`, `cline.openAiModelId` and `cline.openAiModelInfo`.

These keys are not settings Cline itself reads; users copy them from such guides all the same.
The file is JSON with comments: `_files.strip_jsonc` makes it JSON, and its shape is then
checked like any other (the keys hold dots, so the shape names them by alias).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    Builder,
    ImportResult,
    classify_key,
    headers_from,
    load_json,
    make_model,
    prices_of,
    warn,
)
from workbench.core.importers._shapes import (
    LENIENT,
    Foreign,
    Headers,
    KeyText,
    ModelId,
    Number,
    Text,
    Whole,
    read_shape,
)

KIND = "vscode_cline_settings"
NOT_OPENAI = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: cline.apiProvider is {value}, not 'openai'; imported the cline.openAi* settings "
    "anyway",
)
_OPENAI = ("openai", "openai-compatible", "openai_compatible")


class ModelInfo(Foreign):
    """Cline's model info: the context window and prices of one model."""

    context_window: Whole = Field(None, alias="contextWindow")
    input_price: Number = Field(None, alias="inputPrice")
    output_price: Number = Field(None, alias="outputPrice")


class VsCodeSettings(Foreign):
    provider: Annotated[Text, LENIENT] = Field(None, alias="cline.apiProvider")
    base_url: Text = Field(None, alias="cline.openAiBaseUrl")
    api_key: KeyText = Field(None, alias="cline.openAiApiKey")
    model: ModelId | None = Field(None, alias="cline.openAiModelId")
    info: Annotated[ModelInfo | None, LENIENT] = Field(None, alias="cline.openAiModelInfo")
    headers: Headers = Field(None, alias="cline.openAiHeaders")


def read_vscode_settings(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, KIND)
    settings = read_shape(src, VsCodeSettings, data, b.warnings)
    other = settings.provider if settings.provider not in (None, *_OPENAI) else None
    if settings.base_url is None:
        why = f" (cline.apiProvider is {other!r}; only OpenAI Compatible can be imported)"
        raise src.nothing(f"cline.openAiBaseUrl is missing{why if other else ''}")
    if other:
        b.warnings.append(warn(NOT_OPENAI, label=src.label, value=repr(other)))
    key = classify_key(src, settings.api_key, "cline.openAiApiKey", b.warnings)
    models = []
    if settings.model is not None:
        info = settings.info or ModelInfo()
        models.append(
            make_model(
                settings.model,
                context_window=info.context_window,
                prices=prices_of(info.input_price, info.output_price),
            )
        )
    b.add(
        name=None,
        base_url=settings.base_url,
        url_field="cline.openAiBaseUrl",
        key=key,
        models=models,
        headers=headers_from(settings.headers, b.warnings, src.label),
    )
    return b.result()
