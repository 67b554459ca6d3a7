"""CC Switch's stores, and the Codex config.toml its Codex entries embed.

- `.cc-switch/cc-switch.db` (3.7+, SQLite, opened read-only): table `providers` (id, app_type,
  name, settings_config JSON) and the `settings` row `universal_providers` (a JSON map of
  providers with baseUrl, apiKey and per-app models).
- `.cc-switch/config.json` (before 3.7): `{"version": 2, "claude": {"providers": …},
  "codex": {"providers": …}}`, each provider with a `settingsConfig` like the db's.

A Claude entry keeps `env.ANTHROPIC_BASE_URL` / `env.ANTHROPIC_AUTH_TOKEN`; a Codex entry keeps
`auth.OPENAI_API_KEY` and `config`, a TOML string with `[model_providers.<id>] base_url`.
Entries without a base URL (an official login) are skipped with a warning.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
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
    load_json,
    load_toml,
    make_model,
    opt_headers,
    opt_number,
    parse_json_text,
    parse_toml_text,
    read_text,
)
from workbench.core.providers import ModelEntry, Protocol

DB_KIND = "ccswitch_db"
LEGACY_KIND = "ccswitch_legacy"
CODEX_KIND = "codex_toml"
APPS = ("claude", "codex", "gemini")
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


def _claude(
    src: Source, settings: dict[str, Any], where: str, warnings: list[str]
) -> _Entry | None:
    env = get_table(src, settings, "env", where)
    if env is None:
        return None
    base = get_str(src, env, "ANTHROPIC_BASE_URL", f"{where}.env")
    if base is None:
        return None
    token = "ANTHROPIC_AUTH_TOKEN" if "ANTHROPIC_AUTH_TOKEN" in env else "ANTHROPIC_API_KEY"
    key = classify_key(src, env.get(token), f"{where}.env.{token}", warnings)
    models = [
        make_model(env[var], f"{where}.env.{var}", src)
        for var in _CLAUDE_MODEL_VARS
        if env.get(var) is not None
    ]
    if settings.get("model") is not None:
        models.append(make_model(settings["model"], f"{where}.model", src))
    entry = _Entry(base, f"{where}.env.ANTHROPIC_BASE_URL", key, models, {})
    entry.protocol, entry.token_field = "anthropic", token
    return entry


def _gemini(
    src: Source, settings: dict[str, Any], where: str, warnings: list[str]
) -> _Entry | None:
    env = get_table(src, settings, "env", where)
    if env is None:
        return None
    base = get_str(src, env, "GOOGLE_GEMINI_BASE_URL", f"{where}.env")
    if base is None:
        return None
    key = classify_key(src, env.get("GEMINI_API_KEY"), f"{where}.env.GEMINI_API_KEY", warnings)
    models = []
    if env.get("GEMINI_MODEL") is not None:
        models.append(make_model(env["GEMINI_MODEL"], f"{where}.env.GEMINI_MODEL", src))
    return _Entry(base, f"{where}.env.GOOGLE_GEMINI_BASE_URL", key, models, {})


def codex_config(
    src: Source, data: dict[str, Any], where: str, warnings: list[str]
) -> _Entry | None:
    """A parsed Codex config.toml: the active `[model_providers.X]` with its base_url."""
    prefix = f"{where}: " if where else ""
    tables = get_table(src, data, "model_providers", "")
    if not tables:
        return None
    chosen = data.get("model_provider")
    if chosen is None:
        if len(tables) != 1:
            return None
        chosen = next(iter(tables))
    if not isinstance(chosen, str):
        raise src.error(f"{prefix}model_provider must be text")
    table = tables.get(chosen)
    if table is None:
        raise src.error(
            f"{prefix}model_provider = {chosen!r} but [model_providers.{chosen}] is missing"
        )
    tpath = f"model_providers.{chosen}"
    if not isinstance(table, dict):
        raise src.error(f"{prefix}{tpath} must be a table")
    base = table.get("base_url")
    if base is None:
        return None
    if not isinstance(base, str) or not base.strip():
        raise src.error(f"{prefix}{tpath}.base_url must be a URL")
    key = FoundKey.missing()
    if table.get("env_key") is not None:
        key = env_var_key(src, table["env_key"], f"{prefix}{tpath}.env_key")
    models = []
    if data.get("model") is not None:
        models.append(make_model(data["model"], f"{prefix}model", src))
    headers = opt_headers(table, "http_headers", tpath, warnings, src.label)
    stall_ms = opt_number(table, "stream_idle_timeout_ms", tpath, warnings, src.label, minimum=1)
    return _Entry(
        base.strip(),
        f"{prefix}{tpath}.base_url",
        key,
        models,
        headers,
        None if stall_ms is None else stall_ms / 1000.0,
        # Codex's wire_api: "responses" speaks OpenAI's Responses API; "chat" or none, chat
        "responses" if table.get("wire_api") == "responses" else "chat",
    )


def _codex(src: Source, settings: dict[str, Any], where: str, warnings: list[str]) -> _Entry | None:
    config = settings.get("config")
    if config is None:
        return None
    if not isinstance(config, str):
        raise src.field_error(f"{where}.config", "must be the text of a Codex config.toml")
    data = parse_toml_text(src, config, f"{where}.config")
    entry = codex_config(src, data, f"{where}.config", warnings)
    if entry is None:
        return None
    auth = get_table(src, settings, "auth", where)
    if auth is not None and auth.get("OPENAI_API_KEY") is not None:
        literal = classify_key(
            src, auth["OPENAI_API_KEY"], f"{where}.auth.OPENAI_API_KEY", warnings
        )
        if literal.kind != "missing" or entry.key.kind == "missing":
            entry.key = literal
    return entry


_PARSERS = {"claude": _claude, "codex": _codex, "gemini": _gemini}


def _add_entry(
    b: Builder,
    src: Source,
    app: str,
    entry_id: str,
    settings: Any,
    where: str,
    display: str,
) -> None:
    parser = _PARSERS.get(app)
    if parser is None:
        b.warnings.append(
            f"{src.label}: skipped {where} (app {app!r} is not one CC Switch "
            "entry type the workbench reads)"
        )
        return
    if not isinstance(settings, dict):
        raise src.field_error(where, "settings must be a JSON object")
    entry = parser(src, settings, where, b.warnings)
    if entry is None:
        b.warnings.append(
            f"{src.label}: skipped {display or entry_id} ({app}): it has no base "
            "URL (an official login, nothing to import)"
        )
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


def _universal(b: Builder, src: Source, text: Any, where: str) -> None:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        raise src.error(f"{where} must be JSON text")
    data = parse_json_text(src, text, where)
    for uid, spec in data.items():
        uwhere = f"{where}.{uid}"
        if not isinstance(spec, dict):
            raise src.error(f"{uwhere} must be an object")
        base = get_str(src, spec, "baseUrl", uwhere)
        if base is None:
            b.warnings.append(f"{src.label}: skipped {uwhere}: no baseUrl")
            continue
        key = classify_key(src, spec.get("apiKey"), f"{uwhere}.apiKey", b.warnings)
        models = []
        per_app = get_table(src, spec, "models", uwhere) or {}
        for app, m in per_app.items():
            if isinstance(m, dict) and isinstance(m.get("model"), str) and m["model"].strip():
                models.append(make_model(m["model"], f"{uwhere}.models.{app}.model", src))
        b.add(
            name=str(uid),
            base_url=base,
            url_field=f"{uwhere}.baseUrl",
            key=key,
            models=models,
            origin=uwhere,
        )


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
        where = f"providers row {entry_id!s} ({app!s})"
        if isinstance(config, bytes):
            config = config.decode("utf-8", "replace")
        if not isinstance(config, str):
            raise src.error(f"{where}: settings_config must be JSON text")
        settings = parse_json_text(src, config, f"{where}: settings_config")
        _add_entry(
            b, src, str(app), str(entry_id), settings, f"{where}: settings_config", str(name or "")
        )
    if universal is not None:
        _universal(b, src, universal, "settings universal_providers")
    return b.result()


def read_ccswitch_legacy(path: Path) -> ImportResult:
    src, data = load_json(path)
    b = Builder(src, LEGACY_KIND)
    sections: list[tuple[str, dict[str, Any], str]] = []
    for app in APPS:
        section = get_table(src, data, app, "")
        if section is None:
            continue
        providers = get_table(src, section, "providers", app)
        if providers is not None:
            sections.append((app, providers, f"{app}.providers"))
    if not sections and isinstance(data.get("providers"), dict):  # version 1: Claude only
        sections.append(("claude", data["providers"], "providers"))
    if not sections:
        raise src.error("no claude.providers or codex.providers (not a CC Switch config.json?)")
    for app, providers, path_prefix in sections:
        for entry_id, entry in providers.items():
            where = f"{path_prefix}.{entry_id}"
            if not isinstance(entry, dict):
                raise src.field_error(where, "must be an object")
            settings = entry.get("settingsConfig")
            if settings is None:
                raise src.error(f"{where}.settingsConfig is missing")
            raw_name = entry.get("name")
            display = raw_name if isinstance(raw_name, str) else ""
            _add_entry(b, src, app, str(entry_id), settings, f"{where}.settingsConfig", display)
    return b.result()


def read_codex_toml(path: Path) -> ImportResult:
    """A Codex config.toml (`model_provider` + `[model_providers.X] base_url`, `env_key`)."""
    src, data = load_toml(path)
    b = Builder(src, CODEX_KIND)
    entry = codex_config(src, data, "", b.warnings)
    if entry is None:
        raise src.error("no [model_providers.NAME] table with a base_url")
    chosen = data.get("model_provider")
    b.add(
        name=chosen if isinstance(chosen, str) else None,
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
