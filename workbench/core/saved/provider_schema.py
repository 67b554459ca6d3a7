"""The providers file's schema: one provider's TOML table checked field by field, and back.

The tables' shapes and types are `validation` schemas (pydantic); what the values mean (a key
source, a variable name, a URL) is checked here after. Every problem raises
ProviderConfigError naming the provider and the field (provider_store adds the file and the
line). A key's text is never accepted: only a reference to where it lives. A password in a URL
is never accepted either: `check_proxy_url` refuses one where it is entered, and a file that
already has one loads without it, with a note on the provider (`Provider.load_notes`) that says
how to fix it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from workbench.core.access.keys import is_env_var_name, parse_env_reference
from workbench.core.access.providers import (
    AUTH_SCHEMES,
    KEY_SOURCES,
    PROXY_MODES,
    AuthScheme,
    KeyRef,
    ModelEntry,
    Protocol,
    Provider,
    ProxyChoice,
    mask_credentials,
    split_url_password,
)
from workbench.core.foundation.redaction import redact, register_secret
from workbench.core.foundation.results import Prices
from workbench.core.foundation.validation import (
    Count,
    Invalid,
    PricesTable,
    Schema,
    Seconds,
    validate,
)
from workbench.core.protocols.base_url import normalize_base_url
from workbench.core.protocols.registry import protocol_names, protocols

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


def _key_shorthand(raw: object) -> object:
    """`key = "${VAR}"` is `{ source = "env", name = "VAR" }`; any other text is refused."""
    if not isinstance(raw, str):
        return raw
    var = parse_env_reference(raw)
    if var is None:
        # never echo the text: it may be the key itself
        raise ValueError(
            "a key's text is never stored in this file; reference an environment variable "
            'as key = "${MY_API_KEY}", or use key = { source = "keyring", name = "ACCOUNT" }'
        )
    return {"source": "env", "name": var}


def _proxy_shorthand(raw: object) -> object:
    """`proxy = "system" | "none" | "http://p:3128"` is the proxy table it stands for."""
    if not isinstance(raw, str):
        return raw
    return {"mode": raw} if raw in ("system", "none") else {"mode": "url", "url": raw}


def _model_shorthand(raw: object) -> object:
    """`models = ["id", ...]`: a bare id is a model table with only its id."""
    return {"id": raw} if isinstance(raw, str) else raw


def _model_id(text: str) -> str:
    if not text.strip():
        raise ValueError("empty; every model needs its id")
    return text.strip()


class ModelTable(Schema):
    id: Annotated[str, AfterValidator(_model_id)] = Field(description="the model's id as text")
    display_name: str | None = Field(None, description="text in quotes")
    attention: str | None = Field(None, description="text in quotes, like GQA or MLA")
    context_window: Count | None = Field(None, description="a positive whole number of tokens")
    prices: PricesTable | None = Field(
        None, description="{ input = ..., output = ... } (USD per million tokens)"
    )


class KeyTable(Schema):
    source: str = Field("none", description=f"one of {', '.join(KEY_SOURCES)} in quotes")
    name: str = Field("", description="a variable name or a keyring account in quotes")


class ProxyTable(Schema):
    mode: str | None = Field(None, description=f"one of {', '.join(PROXY_MODES)} in quotes")
    url: str = Field("", description="a proxy URL like http://proxy:3128 in quotes")
    password_env: str = Field("", description="an environment variable name in quotes")


class ProviderTable(Schema):
    """One [providers.NAME] table as written; `provider_from_dict` checks what the values mean."""

    base_url: str = Field(description="a base URL like https://host/v1")
    key: Annotated[KeyTable, BeforeValidator(_key_shorthand)] = Field(
        default=KeyTable(),
        description='a table like { source = "env", name = "VAR" }',
    )
    api_key_env: str | None = Field(None, description="an environment variable name in quotes")
    headers: dict[str, str] = Field(
        default_factory=dict, description="a table of name = value (values in quotes)"
    )
    first_token_timeout_s: Seconds = Field(
        Provider.first_token_timeout_s, description="seconds (a number)"
    )
    stall_timeout_s: Seconds = Field(Provider.stall_timeout_s, description="seconds (a number)")
    total_timeout_s: Seconds | None = Field(None, description="seconds (a number)")
    proxy: Annotated[ProxyTable, BeforeValidator(_proxy_shorthand)] = Field(
        default=ProxyTable(),
        description='"system", "none", a proxy URL or a table',
    )
    verify_tls: bool = Field(True, description="true or false")
    models: list[Annotated[ModelTable, BeforeValidator(_model_shorthand)]] = Field(
        default_factory=list, description="a list of [[providers.NAME.models]] tables or ids"
    )
    source: str = Field("", description="text in quotes")
    protocol: str = Field("chat", description=f"one of {', '.join(protocol_names())} in quotes")
    auth: str | None = Field(None, description=f"one of {', '.join(AUTH_SCHEMES)} in quotes")


def _protocol_from(name: str, table: ProviderTable) -> tuple[Protocol, AuthScheme | None]:
    """The wire protocol and how the key is sent, each one of its allowed words."""
    known = protocols()
    protocol = next((p.name for p in known if p.name == table.protocol), None)
    if protocol is None:
        paths = ", ".join(f"{p.name}: {p.path}" for p in known)
        raise _err(
            name,
            "protocol",
            f"unknown protocol '{table.protocol}'; use one of {', '.join(protocol_names())} "
            f"({paths})",
        )
    auth = next((a for a in AUTH_SCHEMES if a == table.auth), None)
    if table.auth is not None and auth is None:
        raise _err(
            name,
            "auth",
            f"unknown auth '{table.auth}'; use one of {', '.join(AUTH_SCHEMES)} (or leave it "
            "out: the protocol's own, x-api-key for anthropic, bearer otherwise)",
        )
    return protocol, auth


def provider_from_dict(name: str, table: object) -> Provider:
    """One provider from its TOML table; ProviderConfigError naming the provider and field."""
    if not isinstance(table, dict):
        raise _err(name, "providers", f"[providers.{name}] must be a table")
    try:
        checked = validate(ProviderTable, table)
    except Invalid as exc:
        raise _err(name, exc.field, exc.cause) from None
    notes: list[str] = []
    base_url = _base_url_from(name, checked.base_url, notes)
    check_headers(name, checked.headers)
    protocol, auth = _protocol_from(name, checked)
    return Provider(
        name=name,
        base_url=base_url,
        key=_key_from(name, checked),
        headers=dict(checked.headers),
        first_token_timeout_s=checked.first_token_timeout_s,
        stall_timeout_s=checked.stall_timeout_s,
        total_timeout_s=checked.total_timeout_s,
        proxy=_proxy_from(name, checked.proxy, notes),
        verify_tls=checked.verify_tls,
        models=tuple(_model_from(m) for m in checked.models),
        source=checked.source,
        protocol=protocol,
        auth=auth,
        load_notes=tuple(notes),
    )


def _base_url_from(name: str, raw: str, notes: list[str]) -> str:
    """The normalised base URL; user:password@ in it is left out and noted in `notes`."""
    try:
        normalized = normalize_base_url(raw, drop_credentials=True)
    except ValueError as exc:
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


def _key_from(name: str, table: ProviderTable) -> KeyRef:
    if table.api_key_env is not None:  # the spelling of benchmark and TOML client configs
        var = parse_env_reference(table.api_key_env) or table.api_key_env
        if not is_env_var_name(var):
            raise _err(name, "api_key_env", "expected an environment variable name like MY_API_KEY")
        return KeyRef("env", var)
    source, key_name = table.key.source, table.key.name
    if source not in KEY_SOURCES:
        raise _err(
            name,
            "key.source",
            f"unknown key source '{source}'; use one of {', '.join(KEY_SOURCES)}",
        )
    if source == "env":
        key_name = parse_env_reference(key_name) or key_name
        if not is_env_var_name(key_name):
            raise _err(name, "key.name", "expected an environment variable name like MY_API_KEY")
    elif source == "keyring" and not key_name:
        key_name = name  # the account defaults to the provider's name
    elif source in ("session", "none"):
        key_name = ""
    return KeyRef(source, key_name)


def _proxy_from(name: str, raw: ProxyTable, notes: list[str]) -> ProxyChoice:
    """The proxy choice; a password found in its URL is left out and noted in `notes`."""
    mode = raw.mode or ("url" if raw.url else "system")
    if mode not in PROXY_MODES:
        raise _err(
            name, "proxy.mode", f"unknown proxy mode '{mode}'; use one of {', '.join(PROXY_MODES)}"
        )
    url, password = split_url_password(raw.url)
    var = raw.password_env.strip()
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


def _model_from(table: ModelTable) -> ModelEntry:
    prices = None
    if table.prices is not None:
        prices = Prices(
            input=table.prices.input or 0.0,
            output=table.prices.output or 0.0,
            cached_input=table.prices.cached_input,
        )
    return ModelEntry(table.id, table.display_name, table.attention, table.context_window, prices)


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
    if provider.protocol != "chat":  # chat, the default, is left out: older files stay as they are
        out["protocol"] = provider.protocol
    if provider.auth is not None:
        out["auth"] = provider.auth
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
