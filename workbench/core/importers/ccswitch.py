"""CC Switch's stores, and the Codex config.toml its Codex entries embed.

- `.cc-switch/cc-switch.db` (3.7+, SQLite, opened read-only): table `providers` (id, app_type,
  name, settings_config JSON) and the `settings` row `universal_providers` (a JSON map of
  providers with baseUrl, apiKey and per-app models).
- `.cc-switch/config.json` (before 3.7): `{"version": 2, "claude": {"providers": …},
  "codex": {"providers": …}}`, each provider with a `settingsConfig` like the db's.

A Claude entry keeps `env.ANTHROPIC_BASE_URL` / `env.ANTHROPIC_AUTH_TOKEN`; a Codex entry keeps
`auth.OPENAI_API_KEY` and `config`, a TOML string with `[model_providers.<id>] base_url`.
Entries without a base URL (an official login) are skipped with a warning. Each JSON or TOML
text is checked through its shape; only the database's own columns are checked by hand
(`_json_text`: SQLite hands back text, bytes or a number, whatever a row holds).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from workbench.core.access.providers import ModelEntry, Protocol
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers._base import (
    MAX_CONFIG_BYTES,
    Builder,
    FoundKey,
    ImportResult,
    Source,
    classify_key,
    env_var_key,
    headers_from,
    load_json,
    load_toml,
    make_model,
    parse_json_text,
    parse_toml_text,
    read_text,
    warn,
)
from workbench.core.importers._shapes import (
    LENIENT,
    EnvName,
    Foreign,
    Headers,
    KeyText,
    ModelId,
    PositiveMs,
    Text,
    read_shape,
)
from workbench.core.importers.claude import ClaudeEnv

DB_KIND = "ccswitch_db"
LEGACY_KIND = "ccswitch_legacy"
CODEX_KIND = "codex_toml"
APPS = ("claude", "codex", "gemini")
SKIPPED_APP = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: skipped {where} (app {app} is not one CC Switch entry type the workbench reads)",
)
SKIPPED_NO_BASE_URL = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: skipped {entry} ({app}): it has no base URL (an official login, nothing to import)",
)
SKIPPED_NO_BASEURL = QT_TRANSLATE_NOOP("ConfigImport", "{label}: skipped {where}: no baseUrl")
_CLAUDE_MODEL_VARS = (
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
)


@dataclass
class _Entry:
    base_url: str
    url_field: str
    key: FoundKey
    models: list[ModelEntry]
    headers: dict[str, str]
    stall_s: float | None = None
    protocol: Protocol = "chat"
    token_field: str = ""  # Claude's: which variable held the key (how it is sent)


class _ClaudeSettings(Foreign):
    env: ClaudeEnv | None = None
    model: ModelId | None = None


def _claude(src: Source, data: dict[str, Any], where: str, warnings: list[str]) -> _Entry | None:
    settings = read_shape(src, _ClaudeSettings, data, warnings, where)
    env = settings.env
    if env is None or env.base_url is None:
        return None
    token = env.token_field()
    key = classify_key(src, env.token(), f"{where}.env.{token}", warnings)
    models = [make_model(m) for m in env.models(_CLAUDE_MODEL_VARS)]
    if settings.model is not None:
        models.append(make_model(settings.model))
    entry = _Entry(env.base_url, f"{where}.env.ANTHROPIC_BASE_URL", key, models, {})
    entry.protocol, entry.token_field = "anthropic", token
    return entry


class _GeminiEnv(Foreign):
    base_url: Text = Field(None, alias="GOOGLE_GEMINI_BASE_URL")
    api_key: KeyText = Field(None, alias="GEMINI_API_KEY")
    model: ModelId | None = Field(None, alias="GEMINI_MODEL")


class _GeminiSettings(Foreign):
    env: _GeminiEnv | None = None


def _gemini(src: Source, data: dict[str, Any], where: str, warnings: list[str]) -> _Entry | None:
    env = read_shape(src, _GeminiSettings, data, warnings, where).env
    if env is None or env.base_url is None:
        return None
    key = classify_key(src, env.api_key, f"{where}.env.GEMINI_API_KEY", warnings)
    models = [make_model(env.model)] if env.model is not None else []
    return _Entry(env.base_url, f"{where}.env.GOOGLE_GEMINI_BASE_URL", key, models, {})


class _CodexProvider(Foreign):
    base_url: str | None = Field(None, description=QT_TRANSLATE_NOOP("Validation", "a URL"))
    env_key: EnvName = None
    http_headers: Headers = None
    stream_idle_timeout_ms: PositiveMs = None
    wire_api: Text = None  # "responses": Codex speaks OpenAI's Responses API to this provider


class CodexConfig(Foreign):
    """A Codex config.toml: only the chosen `[model_providers.X]` is read (and checked)."""

    model_provider: str | None = None
    model: ModelId | None = None
    model_providers: dict[str, Any] | None = Field(
        None, description=QT_TRANSLATE_NOOP("Validation", "tables")
    )


def codex_config(
    src: Source, data: dict[str, Any], where: str, warnings: list[str]
) -> _Entry | None:
    """A parsed Codex config.toml: the active `[model_providers.X]` with its base_url."""
    prefix = f"{where}: " if where else ""
    config = read_shape(src, CodexConfig, data, warnings, where)
    tables = config.model_providers
    if not tables:
        return None
    chosen = config.model_provider
    if chosen is None:
        if len(tables) != 1:
            return None
        chosen = next(iter(tables))
    if chosen not in tables:
        raise src.error(
            f"{prefix}model_provider = {chosen!r} but [model_providers.{chosen}] is missing"
        )
    tpath = f"model_providers.{chosen}"
    table = read_shape(src, _CodexProvider, tables[chosen], warnings, f"{prefix}{tpath}")
    if table.base_url is None:
        return None
    if not table.base_url.strip():
        raise src.error(f"{prefix}{tpath}.base_url must be a URL")
    key = FoundKey.missing()
    if table.env_key is not None:
        key = env_var_key(src, table.env_key, f"{prefix}{tpath}.env_key")
    stall_ms = table.stream_idle_timeout_ms
    return _Entry(
        table.base_url.strip(),
        f"{prefix}{tpath}.base_url",
        key,
        [make_model(config.model)] if config.model is not None else [],
        headers_from(table.http_headers, warnings, src.label),
        None if stall_ms is None else stall_ms / 1000.0,
        # Codex's wire_api: "responses" speaks OpenAI's Responses API; "chat" or none, chat
        "responses" if table.wire_api == "responses" else "chat",
    )


class _CodexAuth(Foreign):
    api_key: KeyText = Field(None, alias="OPENAI_API_KEY")


class _CodexSettings(Foreign):
    config: str | None = Field(
        None, description=QT_TRANSLATE_NOOP("Validation", "the text of a Codex config.toml")
    )
    auth: _CodexAuth | None = None


def _codex(src: Source, data: dict[str, Any], where: str, warnings: list[str]) -> _Entry | None:
    settings = read_shape(src, _CodexSettings, data, warnings, where)
    if settings.config is None:
        return None
    toml = parse_toml_text(src, settings.config, f"{where}.config")
    entry = codex_config(src, toml, f"{where}.config", warnings)
    if entry is None:
        return None
    if settings.auth is not None and settings.auth.api_key is not None:
        where_key = f"{where}.auth.OPENAI_API_KEY"
        literal = classify_key(src, settings.auth.api_key, where_key, warnings)
        if literal.kind != "missing" or entry.key.kind == "missing":
            entry.key = literal
    return entry


_PARSERS = {"claude": _claude, "codex": _codex, "gemini": _gemini}


def _add_entry(
    b: Builder,
    src: Source,
    app: str,
    entry_id: str,
    settings: dict[str, Any],
    where: str,
    display: str,
) -> None:
    parser = _PARSERS.get(app)
    if parser is None:
        b.warnings.append(warn(SKIPPED_APP, label=src.label, where=where, app=repr(app)))
        return
    entry = parser(src, settings, where, b.warnings)
    if entry is None:
        shown = display or entry_id
        b.warnings.append(warn(SKIPPED_NO_BASE_URL, label=src.label, entry=shown, app=app))
        return
    fields: dict[str, Any] = {
        "name": entry_id,
        "url_field": entry.url_field,
        "key": entry.key,
        "models": entry.models,
        "headers": entry.headers,
        "stall_s": entry.stall_s,
        "origin": where,
    }
    if entry.protocol == "anthropic":
        b.add_claude_code(entry.base_url, entry.token_field, **fields)
    else:
        b.add(base_url=entry.base_url, protocol=entry.protocol, **fields)


class _AppModel(Foreign):
    model: Annotated[Text, LENIENT] = None


class _Universal(Foreign):
    """One of the `universal_providers`: a gateway shared by the apps, a model per app."""

    base_url: Text = Field(None, alias="baseUrl")
    api_key: KeyText = Field(None, alias="apiKey")
    models: Annotated[dict[str, _AppModel] | None, LENIENT] = None


def _universal(b: Builder, src: Source, data: dict[str, Any], where: str) -> None:
    for uid, raw in data.items():
        uwhere = f"{where}.{uid}"
        spec = read_shape(src, _Universal, raw, b.warnings, uwhere)
        if spec.base_url is None:
            b.warnings.append(warn(SKIPPED_NO_BASEURL, label=src.label, where=uwhere))
            continue
        key = classify_key(src, spec.api_key, f"{uwhere}.apiKey", b.warnings)
        apps = (spec.models or {}).values()
        b.add(
            name=str(uid),
            base_url=spec.base_url,
            url_field=f"{uwhere}.baseUrl",
            key=key,
            models=[make_model(m.model) for m in apps if m.model],
            origin=uwhere,
        )


def _json_text(src: Source, value: object, where: str) -> dict[str, Any]:
    """A database column that holds JSON text (SQLite may hand it back as bytes)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        raise src.error(f"{where} must be JSON text")
    if len(value) > MAX_CONFIG_BYTES:  # a database cell is as bounded as a config file
        raise src.error(f"{where}: more than {MAX_CONFIG_BYTES} characters, too large for a config")
    return parse_json_text(src, value, where)


def read_ccswitch_db(path: Path) -> ImportResult:
    """cc-switch.db, opened read-only: the file is never written."""
    src = Source(path)
    if not path.is_file():
        raise src.error("not found, or not a file")
    b = Builder(src, DB_KIND)
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise src.error(f"cannot open it read-only ({exc})") from None
    try:
        try:
            found_tables = con.execute("SELECT name FROM sqlite_master WHERE type='table'")
            tables = {r[0] for r in found_tables}
        except sqlite3.Error as exc:
            raise src.error(f"not a readable SQLite database ({exc})") from None
        if "providers" not in tables:
            raise src.error("no table 'providers' (not a CC Switch database?)")
        try:
            rows = con.execute(
                "SELECT id, app_type, name, settings_config FROM providers"
            ).fetchall()
        except sqlite3.Error as exc:
            raise src.error(f"table providers: {exc}") from None
        universal = None
        if "settings" in tables:
            try:
                found = con.execute(
                    "SELECT value FROM settings WHERE key = 'universal_providers'"
                ).fetchone()
            except sqlite3.Error as exc:
                raise src.error(f"table settings: {exc}") from None
            universal = None if found is None else found[0]
    finally:
        con.close()
    for entry_id, app, name, config in rows:
        where = f"providers row {entry_id!s} ({app!s}): settings_config"
        settings = _json_text(src, config, where)
        _add_entry(b, src, str(app), str(entry_id), settings, where, str(name or ""))
    if universal is not None:
        where = "settings universal_providers"
        _universal(b, src, _json_text(src, universal, where), where)
    return b.result()


class _LegacyProvider(Foreign):
    settings: dict[str, Any] = Field(
        alias="settingsConfig", description=QT_TRANSLATE_NOOP("Validation", "a JSON object")
    )
    name: Annotated[Text, LENIENT] = None


class _LegacyApp(Foreign):
    providers: dict[str, Any] | None = Field(
        None, description=QT_TRANSLATE_NOOP("Validation", "an object of providers")
    )


class CcSwitchLegacy(Foreign):
    """config.json before 3.7: providers per app (version 2), or Claude's alone (version 1)."""

    claude: _LegacyApp | None = None
    codex: _LegacyApp | None = None
    gemini: _LegacyApp | None = None
    providers: Annotated[dict[str, Any] | None, LENIENT] = None


def read_ccswitch_legacy(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, LEGACY_KIND)
    config = read_shape(src, CcSwitchLegacy, data, b.warnings)
    sections: list[tuple[str, dict[str, Any], str]] = []
    for app in APPS:
        section: _LegacyApp | None = getattr(config, app)
        if section is not None and section.providers is not None:
            sections.append((app, section.providers, f"{app}.providers"))
    if not sections and config.providers is not None:  # version 1: Claude only
        sections.append(("claude", config.providers, "providers"))
    if not sections:
        raise src.error("no claude.providers or codex.providers (not a CC Switch config.json?)")
    for app, providers, path_prefix in sections:
        for entry_id, raw in providers.items():
            where = f"{path_prefix}.{entry_id}"
            entry = read_shape(src, _LegacyProvider, raw, b.warnings, where)
            settings_where = f"{where}.settingsConfig"
            _add_entry(b, src, app, str(entry_id), entry.settings, settings_where, entry.name or "")
    return b.result()


def read_codex_toml(path: Path) -> ImportResult:
    """A Codex config.toml (`model_provider` + `[model_providers.X] base_url`, `env_key`)."""
    src, data = load_toml(path)
    b = Builder(src, CODEX_KIND)
    entry = codex_config(src, data, "", b.warnings)
    if entry is None:
        raise src.error("no [model_providers.NAME] table with a base_url")
    b.add(
        name=read_shape(src, CodexConfig, data, b.warnings).model_provider,
        base_url=entry.base_url,
        url_field=entry.url_field,
        key=entry.key,
        models=entry.models,
        headers=entry.headers,
        stall_s=entry.stall_s,
        protocol=entry.protocol,
    )
    return b.result()


__all__ = ["read_ccswitch_db", "read_ccswitch_legacy", "read_codex_toml", "read_text"]
