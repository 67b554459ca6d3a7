"""The providers file's schema: one provider's TOML table checked field by field, and back.

Every problem raises ProviderConfigError naming the provider and the field (provider_store adds
the file and the line). A key's text is never accepted: only a reference to where it lives. A
password in a URL is never accepted either: `check_proxy_url` refuses one where it is entered,
and a file that already has one loads without it, with a note on the provider
(`Provider.load_notes`) that says how to fix it.
"""

from __future__ import annotations

import difflib
import math
import re
from pathlib import Path
from typing import Any

from workbench.core.providers import (
    KEY_SOURCES,
    PROXY_MODES,
    KeyRef,
    ModelEntry,
    Provider,
    ProxyChoice,
    mask_credentials,
    normalize_base_url,
    split_url_password,
)
from workbench.core.results import Prices
from workbench.core.secrets import (
    is_env_var_name,
    parse_env_reference,
    redact,
    register_secret,
)

_PROVIDER_FIELDS = {
    "base_url",
    "key",
    "api_key_env",
    "headers",
    "first_token_timeout_s",
    "stall_timeout_s",
    "total_timeout_s",
    "proxy",
    "verify_tls",
    "models",
    "source",
}
_MODEL_FIELDS = {"id", "display_name", "attention", "context_window", "prices"}
_PRICE_FIELDS = {"input", "output", "cached_input"}
_SENSITIVE_HEADER = re.compile(r"(?i)(authorization|api[-_]?key|token|secret|password|cookie)")
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_SCHEME_WORDS = re.compile(r"(?i)\b(bearer|basic|token)\b")


class ProviderConfigError(ValueError):
    """The providers file (or a provider being saved) is not valid; the message says where."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        line: int | None = None,
        provider: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(redact(message))
        self.path = path
        self.line = line
        self.provider = provider
        self.field = field


def _err(provider: str, field_name: str, problem: str) -> ProviderConfigError:
    return ProviderConfigError(
        f"provider '{provider}', field '{field_name}': {problem}",
        provider=provider,
        field=field_name,
    )


def _type_name(value: object) -> str:
    return {
        str: "text",
        bool: "true/false",
        int: "a whole number",
        float: "a number",
        dict: "a table",
        list: "a list",
    }.get(type(value), type(value).__name__)


def _expect_str(provider: str, field_name: str, value: object) -> str:
    if not isinstance(value, str):
        raise _err(provider, field_name, f"expected text in quotes, got {_type_name(value)}")
    return value


def _expect_seconds(provider: str, field_name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _err(provider, field_name, f"expected seconds (a number), got {_type_name(value)}")
    if not math.isfinite(value) or value <= 0:
        raise _err(provider, field_name, f"must be more than 0 seconds, got {value}")
    return float(value)


def provider_from_dict(name: str, table: object) -> Provider:
    """One provider from its TOML table; ProviderConfigError naming the provider and field."""
    if not isinstance(table, dict):
        raise _err(name, "providers", f"[providers.{name}] must be a table")
    unknown = sorted(set(table) - _PROVIDER_FIELDS)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(_PROVIDER_FIELDS), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise _err(
            name, unknown[0], f"unknown field{hint}; known: {', '.join(sorted(_PROVIDER_FIELDS))}"
        )
    if "base_url" not in table:
        raise _err(
            name, "base_url", "missing; every provider needs a base URL like https://host/v1"
        )
    notes: list[str] = []
    base_url = _base_url_from(name, table["base_url"], notes)
    key = _key_from(name, table)
    headers_raw = table.get("headers", {})
    if not isinstance(headers_raw, dict):
        raise _err(
            name, "headers", f"expected a table of name = value, got {_type_name(headers_raw)}"
        )
    headers: dict[str, str] = {}
    for header, value in headers_raw.items():
        headers[header] = _expect_str(name, f"headers.{header}", value)
    check_headers(name, headers)
    first = _expect_seconds(
        name,
        "first_token_timeout_s",
        table.get("first_token_timeout_s", Provider.first_token_timeout_s),
    )
    stall = _expect_seconds(
        name, "stall_timeout_s", table.get("stall_timeout_s", Provider.stall_timeout_s)
    )
    total = table.get("total_timeout_s")
    total_s = None if total is None else _expect_seconds(name, "total_timeout_s", total)
    verify = table.get("verify_tls", True)
    if not isinstance(verify, bool):
        raise _err(name, "verify_tls", f"expected true or false, got {_type_name(verify)}")
    source = _expect_str(name, "source", table.get("source", ""))
    return Provider(
        name=name,
        base_url=base_url,
        key=key,
        headers=headers,
        first_token_timeout_s=first,
        stall_timeout_s=stall,
        total_timeout_s=total_s,
        proxy=_proxy_from(name, table.get("proxy", "system"), notes),
        verify_tls=verify,
        models=_models_from(name, table.get("models", [])),
        source=source,
        load_notes=tuple(notes),
    )


def _base_url_from(name: str, raw: object, notes: list[str]) -> str:
    """The normalised base URL; user:password@ in it is left out and noted in `notes`."""
    try:
        normalized = normalize_base_url(_expect_str(name, "base_url", raw), drop_credentials=True)
    except ValueError as exc:
        if isinstance(exc, ProviderConfigError):
            raise
        raise _err(name, "base_url", str(exc)) from None
    if normalized.credentials_removed:
        var = _env_hint(name, "API_KEY")
        notes.append(
            f"provider '{name}': its base URL in the providers file has a user name or "
            f"password in it, which Attention Workbench never uses, shows or saves: it is "
            f"ignored, and left out of the file the next time providers are saved. Fix: "
            f'export {var}=<the password>, then set base_url = "{normalized.url}" and '
            f'key = "${{{var}}}" for it in the providers file (or in the app)'
        )
    return normalized.url


def _env_hint(name: str, suffix: str) -> str:
    """A variable name to suggest for provider `name`: MY_GATEWAY_API_KEY."""
    stem = re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")
    return f"{stem}_{suffix}" if stem and not stem[0].isdigit() else f"PROVIDER_{suffix}"


def _key_from(name: str, table: dict[str, Any]) -> KeyRef:
    if "api_key_env" in table:  # the spelling of benchmark and TOML client configs
        var = _expect_str(name, "api_key_env", table["api_key_env"])
        var = parse_env_reference(var) or var
        if not is_env_var_name(var):
            raise _err(name, "api_key_env", "expected an environment variable name like MY_API_KEY")
        return KeyRef("env", var)
    raw = table.get("key", {"source": "none"})
    if isinstance(raw, str):
        referenced = parse_env_reference(raw)
        if referenced is None:
            # never echo the text: it may be the key itself
            raise _err(
                name,
                "key",
                "a key's text is never stored in this file; reference an environment variable "
                'as key = "${MY_API_KEY}", or use key = { source = "keyring", name = "ACCOUNT" }',
            )
        return KeyRef("env", referenced)
    if not isinstance(raw, dict):
        raise _err(
            name,
            "key",
            f'expected a table like {{ source = "env", name = "VAR" }}, got {_type_name(raw)}',
        )
    unknown = sorted(set(raw) - {"source", "name"})
    if unknown:
        raise _err(name, f"key.{unknown[0]}", "unknown field; a key has only 'source' and 'name'")
    source = _expect_str(name, "key.source", raw.get("source", "none"))
    if source not in KEY_SOURCES:
        raise _err(
            name,
            "key.source",
            f"unknown key source '{source}'; use one of {', '.join(KEY_SOURCES)}",
        )
    key_name = _expect_str(name, "key.name", raw.get("name", ""))
    if source == "env":
        key_name = parse_env_reference(key_name) or key_name
        if not is_env_var_name(key_name):
            raise _err(name, "key.name", "expected an environment variable name like MY_API_KEY")
    elif source == "keyring" and not key_name:
        key_name = name  # the account defaults to the provider's name
    elif source in ("session", "none"):
        key_name = ""
    return KeyRef(source, key_name)


def _proxy_from(name: str, raw: object, notes: list[str]) -> ProxyChoice:
    """The proxy choice; a password found in its URL is left out and noted in `notes`."""
    if isinstance(raw, str):
        if raw in ("system", "none"):
            return ProxyChoice(raw)  # type: ignore[arg-type]
        raw = {"mode": "url", "url": raw}
    if not isinstance(raw, dict):
        raise _err(
            name,
            "proxy",
            f'expected "system", "none", a proxy URL or a table, got {_type_name(raw)}',
        )
    unknown = sorted(set(raw) - {"mode", "url", "password_env"})
    if unknown:
        raise _err(
            name,
            f"proxy.{unknown[0]}",
            "unknown field; a proxy has only 'mode', 'url' and 'password_env'",
        )
    mode = _expect_str(name, "proxy.mode", raw.get("mode", "url" if raw.get("url") else "system"))
    if mode not in PROXY_MODES:
        raise _err(
            name, "proxy.mode", f"unknown proxy mode '{mode}'; use one of {', '.join(PROXY_MODES)}"
        )
    url, password = split_url_password(_expect_str(name, "proxy.url", raw.get("url", "")))
    var = _expect_str(name, "proxy.password_env", raw.get("password_env", "")).strip()
    var = parse_env_reference(var) or var
    if var and not is_env_var_name(var):
        raise _err(
            name, "proxy.password_env", "expected an environment variable name like PROXY_PASSWORD"
        )
    if mode != "url":
        return ProxyChoice(mode)
    if password:
        register_secret(password)
        hint = var or _env_hint(name, "PROXY_PASSWORD")
        notes.append(
            f"provider '{name}': its proxy URL in the providers file has a password in it, "
            f"which Attention Workbench never uses, shows or saves: the proxy is used without "
            f"it, and it is left out of the file the next time providers are saved. Fix: "
            f"export {hint}=<the password>, then set "
            f'proxy = {{ url = "{url}", password_env = "{hint}" }} for it in the providers file'
        )
    check_proxy_url(name, url)
    return ProxyChoice("url", url, var)


def check_proxy_url(provider: str, url: str) -> None:
    """A proxy URL to save: http(s) or SOCKS, and no password in it (a user name may stay)."""
    if not re.match(r"^(https?|socks5h?|socks4)://[^\s/]+", url.strip(), re.IGNORECASE):
        raise _err(
            provider,
            "proxy.url",
            "expected a proxy URL like http://proxy:3128 (or socks5://host:1080)",
        )
    bare, password = split_url_password(url)
    if password:
        register_secret(password)
        raise _err(
            provider,
            "proxy.url",
            f"'{mask_credentials(url)}' has a password in it, which is never saved in a file; "
            f"give the URL without it ({bare}) and the password as a reference: export "
            f"PROXY_PASSWORD=<the password> and pass --proxy-password-env PROXY_PASSWORD (in "
            f'providers.toml: password_env = "PROXY_PASSWORD" in the proxy table)',
        )


def _models_from(name: str, raw: object) -> tuple[ModelEntry, ...]:
    if not isinstance(raw, list):
        raise _err(
            name, "models", f"expected a list of [[providers.{name}.models]], got {_type_name(raw)}"
        )
    out: list[ModelEntry] = []
    for i, item in enumerate(raw):
        where = f"models[{i}]"
        if isinstance(item, str):
            out.append(ModelEntry(item))
            continue
        if not isinstance(item, dict):
            raise _err(name, where, f"expected a model table or id, got {_type_name(item)}")
        unknown = sorted(set(item) - _MODEL_FIELDS)
        if unknown:
            raise _err(
                name,
                f"{where}.{unknown[0]}",
                f"unknown field; known: {', '.join(sorted(_MODEL_FIELDS))}",
            )
        if "id" not in item:
            raise _err(name, f"{where}.id", "missing; every model needs its id")
        model_id = _expect_str(name, f"{where}.id", item["id"]).strip()
        if not model_id:
            raise _err(name, f"{where}.id", "empty")
        display = item.get("display_name")
        attention = item.get("attention")
        ctx = item.get("context_window")
        if display is not None:
            _expect_str(name, f"{where}.display_name", display)
        if attention is not None:
            _expect_str(name, f"{where}.attention", attention)
        if ctx is not None and (isinstance(ctx, bool) or not isinstance(ctx, int) or ctx <= 0):
            raise _err(
                name,
                f"{where}.context_window",
                f"expected a positive whole number of tokens, got {ctx!r}",
            )
        prices = None
        if "prices" in item:
            prices = _prices_from(name, f"{where}.prices", item["prices"])
        out.append(ModelEntry(model_id, display, attention, ctx, prices))
    return tuple(out)


def _prices_from(name: str, where: str, raw: object) -> Prices:
    if not isinstance(raw, dict):
        raise _err(
            name,
            where,
            "expected { input = ..., output = ... } (USD per million tokens), "
            f"got {_type_name(raw)}",
        )
    unknown = sorted(set(raw) - _PRICE_FIELDS)
    if unknown:
        raise _err(
            name, f"{where}.{unknown[0]}", "unknown field; prices have input, output, cached_input"
        )
    values: dict[str, float | None] = {}
    for key in _PRICE_FIELDS:
        value = raw.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise _err(
                name,
                f"{where}.{key}",
                f"expected a price of 0 or more (USD per million tokens), got {value!r}",
            )
        values[key] = float(value)
    return Prices(
        input=values.get("input") or 0.0,
        output=values.get("output") or 0.0,
        cached_input=values.get("cached_input"),
    )


def check_headers(provider: str, headers: dict[str, str]) -> None:
    """Refuse a header that carries a literal credential: files hold `${VAR}`, never the text."""
    for header, value in headers.items():
        literal = _SCHEME_WORDS.sub("", _PLACEHOLDER.sub("", value)).strip()
        if (_SENSITIVE_HEADER.search(header) and literal) or redact(value) != value:
            raise _err(
                provider,
                f"headers.{header}",
                "looks like it carries a credential, which is never stored in this file; keep "
                f"the credential in an environment variable (export MY_VAR=...) and set the "
                f'value of {header} to "${{MY_VAR}}" or "Bearer ${{MY_VAR}}"',
            )


def provider_to_dict(provider: Provider) -> dict[str, Any]:
    """The TOML table for one provider: references only, no key text."""
    check_headers(provider.name, provider.headers)
    out: dict[str, Any] = {"base_url": provider.base_url}
    if provider.source:
        out["source"] = provider.source
    out["first_token_timeout_s"] = float(provider.first_token_timeout_s)
    out["stall_timeout_s"] = float(provider.stall_timeout_s)
    if provider.total_timeout_s is not None:
        out["total_timeout_s"] = float(provider.total_timeout_s)
    out["verify_tls"] = bool(provider.verify_tls)
    if provider.headers:
        out["headers"] = dict(provider.headers)
    key: dict[str, str] = {"source": provider.key.source}
    if provider.key.source in ("env", "keyring") and provider.key.name:
        key["name"] = provider.key.name
    out["key"] = key
    proxy: dict[str, str] = {"mode": provider.proxy.mode}
    if provider.proxy.mode == "url":
        check_proxy_url(provider.name, provider.proxy.url)
        proxy["url"] = provider.proxy.url
        if provider.proxy.password_env:
            proxy["password_env"] = provider.proxy.password_env
    out["proxy"] = proxy
    if provider.models:
        models = []
        for m in provider.models:
            entry: dict[str, Any] = {"id": m.id}
            if m.display_name is not None:
                entry["display_name"] = m.display_name
            if m.attention is not None:
                entry["attention"] = m.attention
            if m.context_window is not None:
                entry["context_window"] = m.context_window
            if m.prices is not None:
                prices: dict[str, float] = {"input": m.prices.input, "output": m.prices.output}
                if m.prices.cached_input is not None:
                    prices["cached_input"] = m.prices.cached_input
                entry["prices"] = prices
            models.append(entry)
        out["models"] = models
    return out
