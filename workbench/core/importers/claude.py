"""Claude Code's settings.json in both shapes: the real one (`env.ANTHROPIC_BASE_URL`,
`env.ANTHROPIC_AUTH_TOKEN`, `env.ANTHROPIC_MODEL` or `model`) and the flat one some gateway
setup guides show (`api_base`, `api_key`, `model`). Either becomes a provider that speaks the
Anthropic Messages API, as Claude Code does (`protocol = "anthropic"`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    Builder,
    ImportResult,
    classify_key,
    load_json,
    make_model,
    warn,
)
from workbench.core.importers._shapes import Foreign, KeyText, ModelId, Text, read_shape

KIND = "claude_settings"
FLAT_SHAPE = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: this is the flat api_base/api_key shape some setup guides show; Claude Code "
    "itself reads env.ANTHROPIC_BASE_URL and env.ANTHROPIC_AUTH_TOKEN",
)
MODEL_VARS = (
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
)


class ClaudeEnv(Foreign):
    """The `env` table Claude Code (and CC Switch's Claude entries) keep a gateway in."""

    base_url: Text = Field(None, alias="ANTHROPIC_BASE_URL")
    auth_token: KeyText = Field(None, alias="ANTHROPIC_AUTH_TOKEN")
    api_key: KeyText = Field(None, alias="ANTHROPIC_API_KEY")
    model: ModelId | None = Field(None, alias="ANTHROPIC_MODEL")
    sonnet: ModelId | None = Field(None, alias="ANTHROPIC_DEFAULT_SONNET_MODEL")
    opus: ModelId | None = Field(None, alias="ANTHROPIC_DEFAULT_OPUS_MODEL")
    haiku: ModelId | None = Field(None, alias="ANTHROPIC_DEFAULT_HAIKU_MODEL")
    small_fast: ModelId | None = Field(None, alias="ANTHROPIC_SMALL_FAST_MODEL")

    def token_field(self) -> str:
        """The key's variable: the auth token when it is set, else the API key."""
        return (
            "ANTHROPIC_AUTH_TOKEN" if "auth_token" in self.model_fields_set else "ANTHROPIC_API_KEY"
        )

    def token(self) -> str | None:
        return self.auth_token if "auth_token" in self.model_fields_set else self.api_key

    def models(self, names: tuple[str, ...] = MODEL_VARS) -> list[str]:
        """The model ids of these variables that are set, in that order."""
        fields = type(self).model_fields
        by_alias = {info.alias: getattr(self, name) for name, info in fields.items()}
        return [by_alias[name] for name in names if by_alias.get(name)]


class ClaudeSettings(Foreign):
    env: ClaudeEnv | None = None
    api_base: Text = None
    base_url: Text = None
    api_key: KeyText = None
    model: ModelId | None = None


def read_claude_settings(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, KIND)
    settings = read_shape(src, ClaudeSettings, data, b.warnings)
    env = settings.env
    models = []
    if env is not None and ("base_url" in env.model_fields_set or "api_base" not in data):
        if env.base_url is None:
            raise src.nothing(
                "env.ANTHROPIC_BASE_URL is missing (without it Claude Code talks to Anthropic "
                "directly; there is no gateway to import)"
            )
        base = env.base_url
        token_field = env.token_field()
        key = classify_key(src, env.token(), f"env.{token_field}", b.warnings)
        models = [make_model(m) for m in env.models()]
        url_field = "env.ANTHROPIC_BASE_URL"
    else:
        token_field = "api_key"
        url_field = "api_base" if "api_base" in data else "base_url"
        found = settings.api_base if "api_base" in data else settings.base_url
        if found is None:
            raise src.nothing("api_base is missing, and there is no env.ANTHROPIC_BASE_URL")
        base = found
        key = classify_key(src, settings.api_key, "api_key", b.warnings)
        b.warnings.append(warn(FLAT_SHAPE, label=src.label))
    if settings.model is not None:
        models.append(make_model(settings.model))
    b.add_claude_code(base, token_field, name=None, url_field=url_field, key=key, models=models)
    return b.result()
