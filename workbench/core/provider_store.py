"""Saved providers: one hand-editable TOML file in the user config directory.

Layout (`providers.toml`)::

    [providers.deepseek]
    base_url = "https://api.deepseek.com/v1"
    first_token_timeout_s = 300.0
    stall_timeout_s = 60.0
    verify_tls = true
    headers = { "X-Title" = "bench", "X-Api-Key" = "${OTHER_KEY}" }   # ${VAR} expands from env

    [providers.deepseek.key]        # or, by hand: key = "${DEEPSEEK_API_KEY}"
    source = "env"                  # env | keyring | session | none
    name = "DEEPSEEK_API_KEY"       # the variable (env) or the keyring account

    [providers.deepseek.proxy]      # or, by hand: proxy = "none" | "system" | "http://p:3128"
    mode = "system"                 # system | none | url (with url = "...")

    [[providers.deepseek.models]]   # or, by hand: models = ["deepseek-chat", ...]
    id = "deepseek-chat"
    attention = "MLA"               # optional overrides of the catalog
    context_window = 65536
    prices = { input = 0.27, output = 1.1 }

A key's text is never written: a KeyRef says where it lives. A `session` key (typed into the app)
is saved as `source = "session"` with no text, so the app asks for it again next session. Header
values that carry a literal credential are refused; write `${VAR}` instead.

Every file that parses is copied to `providers.toml.last-good`. A broken file does not stop the
app: `load_providers` returns the last good copy with a warning naming file, line and problem.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from workbench.core.providers import (
    KEY_SOURCES,
    PROXY_MODES,
    KeyRef,
    ModelEntry,
    Provider,
    ProxyChoice,
    normalize_base_url,
)
from workbench.core.results import Prices
from workbench.core.secrets import is_env_var_name, parse_env_reference, redact

APP_NAME = "attention-workbench"
CONFIG_DIR_ENV = "WORKBENCH_CONFIG_DIR"
PROVIDERS_FILENAME = "providers.toml"
LAST_GOOD_SUFFIX = ".last-good"
BROKEN_SUFFIX = ".broken"

_HEADER = """\
# Attention Workbench providers. Hand-editable; keys are never stored here, only where each
# key lives: key.source = "env" (name = the variable), "keyring" (name = the account),
# "session" (typed in each session) or "none". Header values may use ${VAR}.
# proxy.mode = "system" (the *_PROXY environment; loopback always direct), "none", or "url".
"""

_EXPORT_HEADER = """\
# Attention Workbench provider set, exported without secrets: each key is a reference
# (environment variable, keyring account, or typed in per session). Import it with the app or
# copy the tables into providers.toml.
"""

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


@dataclass
class ProviderSet:
    """What `load_providers` found. `warning` is set when the file was broken or unreadable."""

    providers: list[Provider] = field(default_factory=list)
    path: Path | None = None
    warning: str | None = None
    from_backup: bool = False

    def get(self, name: str) -> Provider | None:
        return next((p for p in self.providers if p.name == name), None)

    def names(self) -> list[str]:
        return [p.name for p in self.providers]


def default_config_dir() -> Path:
    """$WORKBENCH_CONFIG_DIR when set, else the per-user config directory of the OS."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def default_providers_path() -> Path:
    return default_config_dir() / PROVIDERS_FILENAME


def last_good_path(path: Path) -> Path:
    return path.with_name(path.name + LAST_GOOD_SUFFIX)


# ---- loading ----


def load_providers(path: Path | None = None) -> ProviderSet:
    """Read the providers file; never raises for a broken file (see `ProviderSet.warning`)."""
    path = path or default_providers_path()
    if not path.exists():
        return ProviderSet([], path)
    try:
        text = path.read_text(encoding="utf-8")
        providers = parse_providers_toml(text, path)
    except (ProviderConfigError, OSError, UnicodeDecodeError) as exc:
        problem = str(exc) if isinstance(exc, ProviderConfigError) else f"{path}: {exc}"
        backup = last_good_path(path)
        try:
            good = parse_providers_toml(backup.read_text(encoding="utf-8"), backup)
        except (ProviderConfigError, OSError, UnicodeDecodeError):
            return ProviderSet(
                [], path, f"{problem}. No good copy to fall back on: no providers loaded.", False
            )
        return ProviderSet(
            good,
            path,
            f"{problem}. Loaded the last good copy ({backup.name}, {len(good)} provider(s)); "
            f"fix the file, or save the providers again to replace it.",
            True,
        )
    _write_last_good(path, text)
    return ProviderSet(providers, path)


def get_provider(name: str, path: Path | None = None) -> Provider:
    """The saved provider called `name`; ProviderConfigError with close names when none is."""
    found = load_providers(path)
    provider = found.get(name)
    if provider is None:
        lowered = {p.name.lower(): p for p in found.providers}
        provider = lowered.get(name.lower())
    if provider is not None:
        return provider
    names = found.names()
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    saved = f"saved: {', '.join(names)}" if names else "none are saved yet"
    extra = f" ({found.warning})" if found.warning else ""
    raise ProviderConfigError(
        f"no provider named '{name}' in {found.path} ({saved}).{hint} "
        f"Add one with `workbench providers add NAME --base-url URL`.{extra}",
        path=found.path,
        provider=name,
    )


def parse_providers_toml(text: str, path: Path | None = None) -> list[Provider]:
    """Providers from TOML text; ProviderConfigError naming file, line, provider and field."""
    where = str(path) if path else "<providers>"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = _decode_error_line(exc)
        raise ProviderConfigError(
            f"{where}: line {line}: not valid TOML ({exc})" if line else f"{where}: {exc}",
            path=path,
            line=line,
        ) from None
    providers_table = data.get("providers", {})
    if not isinstance(providers_table, dict):
        raise ProviderConfigError(
            f"{where}: 'providers' must be a table of [providers.NAME] sections", path=path
        )
    out: list[Provider] = []
    for name, table in providers_table.items():
        try:
            out.append(provider_from_dict(name, table))
        except ProviderConfigError as exc:
            line = _line_of(text, name, exc.field)
            at = f"line {line}: " if line else ""
            raise ProviderConfigError(
                f"{where}: {at}{exc}", path=path, line=line, provider=name, field=exc.field
            ) from None
    return out


def _decode_error_line(exc: tomllib.TOMLDecodeError) -> int | None:
    lineno = getattr(exc, "lineno", None)  # Python 3.14 adds it; the message has it before
    if isinstance(lineno, int):
        return lineno
    match = re.search(r"line (\d+)", str(exc))
    return int(match.group(1)) if match else None


def _line_of(text: str, provider: str, field_name: str | None) -> int | None:
    """Best effort: the line of `field` inside the provider's section, else the section header."""
    lines = text.splitlines()
    quoted = re.escape(provider)
    name = rf"(?:\"{quoted}\"|'{quoted}'|{quoted})"
    header = re.compile(rf"^\s*\[\[?\s*providers\s*\.\s*{name}\s*(\]|\.)")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return None
    if not field_name:
        return start + 1
    parts = [re.sub(r"\[\d+\]$", "", part) for part in field_name.split(".")]
    top, sub = parts[0], parts[1] if len(parts) > 1 else None
    assign = re.compile(rf"^\s*[\"']?{re.escape(top)}[\"']?\s*=")
    table = re.compile(rf"^\s*\[\[?\s*providers\s*\.\s*{name}\s*\.\s*{re.escape(top)}\s*\]")
    for i in range(start, len(lines)):
        line = lines[i]
        if i > start and line.lstrip().startswith("[") and not header.match(line):
            break  # the next provider's section
        if assign.match(line):
            return i + 1
        if table.match(line):
            if sub:
                sub_assign = re.compile(rf"^\s*[\"']?{re.escape(sub)}[\"']?\s*=")
                for j in range(i + 1, len(lines)):
                    if lines[j].lstrip().startswith("["):
                        break
                    if sub_assign.match(lines[j]):
                        return j + 1
            return i + 1
    return start + 1


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
    if value <= 0:
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
    try:
        base_url = normalize_base_url(_expect_str(name, "base_url", table["base_url"])).url
    except ValueError as exc:
        if isinstance(exc, ProviderConfigError):
            raise
        raise _err(name, "base_url", str(exc)) from None
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
        proxy=_proxy_from(name, table.get("proxy", "system")),
        verify_tls=verify,
        models=_models_from(name, table.get("models", [])),
        source=source,
    )


def _key_from(name: str, table: dict[str, Any]) -> KeyRef:
    if "api_key_env" in table:  # the spelling of benchmark and TOML client configs
        var = _expect_str(name, "api_key_env", table["api_key_env"])
        var = parse_env_reference(var) or var
        if not is_env_var_name(var):
            raise _err(name, "api_key_env", "expected an environment variable name like MY_API_KEY")
        return KeyRef("env", var)
    raw = table.get("key", {"source": "none"})
    if isinstance(raw, str):
        var = parse_env_reference(raw)
        if var is None:
            # never echo the text: it may be the key itself
            raise _err(
                name,
                "key",
                "a key's text is never stored in this file; reference an environment variable "
                'as key = "${MY_API_KEY}", or use key = { source = "keyring", name = "ACCOUNT" }',
            )
        return KeyRef("env", var)
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
    return KeyRef(source, key_name)  # type: ignore[arg-type]


def _proxy_from(name: str, raw: object) -> ProxyChoice:
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
    unknown = sorted(set(raw) - {"mode", "url"})
    if unknown:
        raise _err(name, f"proxy.{unknown[0]}", "unknown field; a proxy has only 'mode' and 'url'")
    mode = _expect_str(name, "proxy.mode", raw.get("mode", "url" if raw.get("url") else "system"))
    if mode not in PROXY_MODES:
        raise _err(
            name, "proxy.mode", f"unknown proxy mode '{mode}'; use one of {', '.join(PROXY_MODES)}"
        )
    url = _expect_str(name, "proxy.url", raw.get("url", ""))
    if mode == "url":
        check_proxy_url(name, url)
        return ProxyChoice("url", url.strip())
    return ProxyChoice(mode)  # type: ignore[arg-type]


def check_proxy_url(provider: str, url: str) -> None:
    if not re.match(r"^(https?|socks5h?|socks4)://[^\s/]+", url.strip(), re.IGNORECASE):
        raise _err(
            provider,
            "proxy.url",
            "expected a proxy URL like http://proxy:3128 (or socks5://host:1080)",
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


# ---- saving ----


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


def dumps_providers(providers: list[Provider] | tuple[Provider, ...], header: str = _HEADER) -> str:
    names = [p.name for p in providers]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ProviderConfigError(f"two providers are named '{dupes[0]}'; names must be unique")
    for name in names:
        if not name.strip():
            raise ProviderConfigError("a provider needs a name")
    body = tomli_w.dumps({"providers": {p.name: provider_to_dict(p) for p in providers}})
    text = header + "\n" + body
    parse_providers_toml(text)  # what we write must load back
    return text


def export_providers_toml(providers: list[Provider] | tuple[Provider, ...]) -> str:
    """A provider set as TOML without secrets (keys stay references), for sharing."""
    return dumps_providers(providers, _EXPORT_HEADER)


def save_providers(
    providers: list[Provider] | tuple[Provider, ...], path: Path | None = None
) -> Path:
    """Write the providers atomically and refresh the last-good copy; returns the path.

    A current file that does not parse is kept as `providers.toml.broken` rather than lost.
    """
    path = path or default_providers_path()
    text = dumps_providers(providers)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        try:
            parse_providers_toml(path.read_text(encoding="utf-8"), path)
        except (ProviderConfigError, OSError, UnicodeDecodeError):
            with contextlib.suppress(OSError):
                _atomic_write(
                    path.with_name(path.name + BROKEN_SUFFIX),
                    path.read_bytes().decode("utf-8", "replace"),
                )
    _atomic_write(path, text)
    _write_last_good(path, text)
    return path


def _write_last_good(path: Path, text: str) -> None:
    backup = last_good_path(path)
    with contextlib.suppress(OSError):
        if backup.exists() and backup.read_text(encoding="utf-8") == text:
            return
        _atomic_write(backup, text)


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
