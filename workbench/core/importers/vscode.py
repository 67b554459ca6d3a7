"""The Cline-style VS Code settings.json of setup guides: JSONC with `cline.openAiBaseUrl`,
`cline.openAiApiKey`, `cline.openAiModelId` and `cline.openAiModelInfo`.

These keys are not settings Cline itself reads; users copy them from such guides all the same.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.importers._base import (
    Builder,
    ImportResult,
    classify_key,
    get_str,
    load_json,
    make_model,
    opt_headers,
    opt_int,
    prices_from,
)

KIND = "vscode_cline_settings"
_OPENAI = ("openai", "openai-compatible", "openai_compatible")


def read_vscode_settings(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, KIND)
    provider = data.get("cline.apiProvider")
    base = get_str(src, data, "cline.openAiBaseUrl", "")
    if base is None:
        why = ""
        if isinstance(provider, str) and provider not in _OPENAI:
            why = f" (cline.apiProvider is {provider!r}; only OpenAI Compatible can be imported)"
        raise src.nothing(f"cline.openAiBaseUrl is missing{why}")
    if isinstance(provider, str) and provider not in _OPENAI:
        b.warnings.append(
            f"{src.label}: cline.apiProvider is {provider!r}, not 'openai'; imported the "
            "cline.openAi* settings anyway"
        )
    key = classify_key(src, data.get("cline.openAiApiKey"), "cline.openAiApiKey", b.warnings)
    models = []
    model_id = data.get("cline.openAiModelId")
    if model_id is not None:
        info = data.get("cline.openAiModelInfo")
        context = None
        prices = None
        if isinstance(info, dict):
            where = "cline.openAiModelInfo"
            context = opt_int(info, "contextWindow", where, b.warnings, src.label)
            prices = prices_from(info, "inputPrice", "outputPrice", where, b.warnings, src.label)
        elif info is not None:
            b.warnings.append(f"{src.label}: ignored cline.openAiModelInfo: not an object")
        models.append(
            make_model(model_id, "cline.openAiModelId", src, context_window=context, prices=prices)
        )
    b.add(
        name=None,
        base_url=base,
        url_field="cline.openAiBaseUrl",
        key=key,
        models=models,
        headers=opt_headers(data, "cline.openAiHeaders", "", b.warnings, src.label),
    )
    return b.result()
