"""Claude Code's settings.json in both shapes: the real one (`env.ANTHROPIC_BASE_URL`,
`env.ANTHROPIC_AUTH_TOKEN`, `env.ANTHROPIC_MODEL` or `model`) and the flat one some gateway
setup guides show (`api_base`, `api_key`, `model`). Either becomes a provider that speaks the
Anthropic Messages API, as Claude Code does (`protocol = "anthropic"`)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.importers._base import (
    Builder,
    ImportResult,
    classify_key,
    get_str,
    get_table,
    load_json,
    make_model,
)

KIND = "claude_settings"
MODEL_VARS = (
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
)


def read_claude_settings(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, KIND)
    env = get_table(src, data, "env", "")
    models = []
    if env is not None and ("ANTHROPIC_BASE_URL" in env or "api_base" not in data):
        base = get_str(src, env, "ANTHROPIC_BASE_URL", "env")
        if base is None:
            raise src.nothing(
                "env.ANTHROPIC_BASE_URL is missing (without it Claude Code talks to Anthropic "
                "directly; there is no gateway to import)"
            )
        token_field = (
            "ANTHROPIC_AUTH_TOKEN" if "ANTHROPIC_AUTH_TOKEN" in env else ("ANTHROPIC_API_KEY")
        )
        key = classify_key(src, env.get(token_field), f"env.{token_field}", b.warnings)
        for var in MODEL_VARS:
            if env.get(var) is not None:
                models.append(make_model(env[var], f"env.{var}", src))
        url_field = "env.ANTHROPIC_BASE_URL"
    else:
        token_field = "api_key"
        field = "api_base" if "api_base" in data else "base_url"
        base = get_str(src, data, field, "")
        if base is None:
            raise src.nothing("api_base is missing, and there is no env.ANTHROPIC_BASE_URL")
        key = classify_key(src, data.get("api_key"), "api_key", b.warnings)
        url_field = field
        b.warnings.append(
            f"{src.label}: this is the flat api_base/api_key shape some setup guides show; Claude "
            "Code itself reads env.ANTHROPIC_BASE_URL and env.ANTHROPIC_AUTH_TOKEN"
        )
    if data.get("model") is not None:
        models.append(make_model(data["model"], "model", src))
    b.add_claude_code(base, token_field, name=None, url_field=url_field, key=key, models=models)
    return b.result()
