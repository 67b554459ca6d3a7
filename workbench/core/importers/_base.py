"""What every importer shares: the result types, field access that names the field, and key
classification; our one error type and careful file loading live in `_files` (re-exported).

A reader only reads. A literal key found in a file is registered for redaction the moment it
is read and is kept in memory only (`FoundKey`); every error message goes through `redact`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from workbench.core.access.keys import parse_env_reference
from workbench.core.access.providers import (
    AuthScheme,
    KeyRef,
    ModelEntry,
    Protocol,
    Provider,
    mask_credentials,
)
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase, phrased, together
from workbench.core.foundation.redaction import redact, register_secret
from workbench.core.foundation.results import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    Prices,
)
from workbench.core.importers._files import CONTEXT
from workbench.core.importers._files import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES
from workbench.core.importers._files import ConfigImportError as ConfigImportError
from workbench.core.importers._files import NothingToImport as NothingToImport
from workbench.core.importers._files import Source as Source
from workbench.core.importers._files import load_json as load_json
from workbench.core.importers._files import load_toml as load_toml
from workbench.core.importers._files import parse_json_text as parse_json_text
from workbench.core.importers._files import parse_toml_text as parse_toml_text
from workbench.core.importers._files import read_text as read_text
from workbench.core.importers._files import strip_jsonc as strip_jsonc
from workbench.core.protocols.anthropic import ANTHROPIC
from workbench.core.protocols.base_url import NormalizedUrl, normalize_base_url

KeyKind = Literal["env", "literal", "placeholder", "missing"]
# Where a key comes from, marked for the UI's translation files (the importers' context)
FROM_LITERAL = QT_TRANSLATE_NOOP("ConfigImport", "a key written in the file, {shown}")
FROM_PLACEHOLDER = QT_TRANSLATE_NOOP("ConfigImport", "a placeholder, not a key: '{placeholder}'")
FROM_NOTHING = QT_TRANSLATE_NOOP("ConfigImport", "no key in the file")


@dataclass(frozen=True)
class FoundKey:
    """Where an imported provider's key comes from.

    `env`: a reference to an environment variable (`env_var`); `literal`: key text written in
    the file, held in memory only (never in repr, str or any file we write); `placeholder`:
    text like "sk-你的TaoTokenKey" that stands for a key; `missing`: no key in the file.
    """

    kind: KeyKind
    where: str  # "providers.json: providers.openai-compatible.settings.apiKey"
    env_var: str = ""
    placeholder: str = ""  # the placeholder text itself (not a secret)
    _secret: str = field(default="", repr=False, compare=False)

    @classmethod
    def env(cls, var: str, where: str) -> FoundKey:
        return cls("env", where, env_var=var)

    @classmethod
    def literal(cls, text: str, where: str) -> FoundKey:
        register_secret(text)
        return cls("literal", where, _secret=text)

    @classmethod
    def missing(cls, where: str = "") -> FoundKey:
        return cls("missing", where)

    @property
    def ref(self) -> KeyRef:
        """The reference an in-memory provider carries: env, a session literal, or none."""
        if self.kind == "env":
            return KeyRef("env", self.env_var)
        if self.kind == "literal":
            return KeyRef("session", "")
        return KeyRef("none")

    def secret(self) -> str | None:
        """The key text of a literal key (for the keyring or this session); else None."""
        return self._secret if self.kind == "literal" else None

    @property
    def redacted(self) -> str:
        """What may be shown: the first 3 characters of a literal key and ***."""
        if self.kind == "literal":
            return (self._secret[:3] if len(self._secret) > 8 else "") + "***"
        if self.kind == "env":
            return f"${self.env_var}"
        if self.kind == "placeholder":
            return self.placeholder
        return ""

    def identity(self) -> tuple[str, str]:
        """Equal for the same key; a literal is compared by a hash, never by its text."""
        if self.kind == "env":
            return ("env", self.env_var)
        if self.kind == "literal":
            return ("literal", hashlib.sha256(self._secret.encode()).hexdigest()[:16])
        return ("none", "")

    def said(self) -> Phrase:
        """Where the key comes from, for the window to say in its language (the `where` is
        data: a file and a field)."""
        if self.kind == "env":  # in the words of a saved provider's key reference
            found = self.ref.description()
        elif self.kind == "literal":
            found = phrase(FROM_LITERAL, context=CONTEXT, shown=self.redacted)
        elif self.kind == "placeholder":
            found = phrase(FROM_PLACEHOLDER, context=CONTEXT, placeholder=self.placeholder)
        else:
            found = phrase(FROM_NOTHING, context=CONTEXT)
        return together([found, f" ({self.where})"], "") if self.where else found

    def describe(self) -> str:
        """Where the key comes from, in English (the CLI's words)."""
        return str(self.said())

    def __str__(self) -> str:
        return self.describe()


@dataclass
class ImportResult:
    """What one file or folder holds. `keys` is keyed by provider name; `url_notes` holds what
    base-URL normalisation changed, per provider; `parts` lists (kind, file) read."""

    providers: list[Provider]
    keys: dict[str, FoundKey]
    warnings: list[str]  # each a PhrasedText where it is marked: the window says it in its language
    source: str
    kind: str
    url_notes: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    parts: list[tuple[str, str]] = field(default_factory=list)


# What an import warns about, marked for the UI's translation files; each is kept as a PhrasedText
# (its English for the CLI, its phrase for the window). Fields in {braces} are data.
HEADER_CARRIES_CREDENTIAL = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: header {header} carries a credential and was not imported (keys never go into "
    "the providers file); give the key through the key reference instead, or write the header "
    'as "Bearer ${{VAR}}"',
)
HEADER_INVALID = QT_TRANSLATE_NOOP(
    "ConfigImport", "{label}: ignored header {header}: not a valid HTTP header"
)
KEY_EMPTY = QT_TRANSLATE_NOOP("ConfigImport", "{at} is empty: no key imported")
KEY_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{at} holds a placeholder ('{placeholder}'), not a key: put the real key in an environment "
    "variable and import again, or add the provider with --api-key-env",
)
KEY_SPACES_REMOVED = QT_TRANSLATE_NOOP(
    "ConfigImport", "{at}: removed spaces around the key (a common cause of 401)"
)
ANTHROPIC_OWN_API = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: {url} is Anthropic's own API, which does not speak OpenAI chat completions; "
    'imported as chat anyway: set protocol = "anthropic" for it (or pass --protocol '
    "anthropic), and check it with `workbench doctor`",
)
ANTHROPIC_ONLY_ENDPOINT = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{label}: {url} looks like an Anthropic-only endpoint (Messages API); imported as chat "
    'since many gateways speak both: if it answers 404, set protocol = "anthropic" for it (or '
    "pass --protocol anthropic); check it with `workbench doctor`",
)
URL_PASSWORD_IS_KEY = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{where} has a user name and password in it: the URL is saved without them, and the "
    "password becomes this provider's key ({shown}), kept as the key plan below says; if the "
    "server wants HTTP Basic auth instead, give it the header Authorization: Basic ${{VAR}}",
)
URL_CREDENTIALS_LEFT_OUT = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{where} has a user name or password in it, which is never saved in a URL: left out",
)
URL_CREDENTIALS_OWN_KEY = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "{where} has a user name or password in it, which is never saved in a URL: left out (the "
    "file's own key is used)",
)


def warn(template: str, **fields: object) -> str:
    """A warning marked in the importers' context: its English, keeping its phrase."""
    return phrased(phrase(template, context=CONTEXT, **fields))


# ---------------------------------------------------------------------------------------------
# Headers
# ---------------------------------------------------------------------------------------------


_VAR_REF = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_SCHEME_WORDS = re.compile(r"(?i)\b(bearer|basic|token)\b")
_CREDENTIAL_HEADER = re.compile(r"(?i)(authorization|api[-_]?key|token|secret|cookie|password)")


def headers_from(
    headers: Mapping[str, str] | None, warnings: list[str], label: str
) -> dict[str, str]:
    """Extra HTTP headers (their types checked by the shape: `_shapes.Headers`). A header that
    carries a credential is not imported (it would end up in our TOML file); its value is
    registered for redaction and a warning says so."""
    kept: dict[str, str] = {}
    for name, text in (headers or {}).items():
        only_refs = not _SCHEME_WORDS.sub("", _VAR_REF.sub("", text)).strip()
        if (_CREDENTIAL_HEADER.search(name) and not only_refs) or redact(text) != text:
            register_secret(text)
            warnings.append(warn(HEADER_CARRIES_CREDENTIAL, label=label, header=repr(name)))
            continue
        if not name.strip() or any(ch in name + text for ch in "\r\n\0"):
            warnings.append(warn(HEADER_INVALID, label=label, header=repr(name)))
            continue
        kept[name.strip()] = text.strip()
    return kept


# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_reference(text: str) -> str | None:
    """The variable named by `${VAR}`, `$VAR` or `env:VAR`; None for anything else."""
    return parse_env_reference(text)


_PLACEHOLDER = re.compile(
    r"(?ix)"
    r"^(sk-)?(your|my|the)[\s_-]*(api[\s_-]*)?(key|token|secret)"  # YOUR_KEY, sk-your-key
    r"|^(sk-)?(insert|enter|put|paste)[\s_-]*(your|the|api|key)"
    r"|(api[\s_-]?)?key[\s_-]?here$|^(change|replace)[\s_-]?me$|^todo$|^example"
    r"|^(sk-)?[x*.]{3,}$|^(sk-)?x{6,}|^<.*>$|^\[.*\]$|^\{.*\}$|^(none|null|empty|key|token)$"
)


def is_placeholder(text: str) -> bool:
    """Text that stands for a key in an article or template, not a key itself: real keys are
    printable ASCII without spaces; "sk-你的TaoTokenKey", "你的_API_Key", "YOUR_KEY", "<key>",
    "sk-xxxxxxxx" are placeholders."""
    if any(ord(ch) > 126 or ord(ch) < 33 for ch in text):
        return True
    return bool(_PLACEHOLDER.search(text))


def classify_key(src: Source, value: str | None, where: str, warnings: list[str]) -> FoundKey:
    """A key field's text (its type checked by the shape) as a FoundKey."""
    at = f"{src.label}: {where}"
    if value is None:
        return FoundKey.missing()
    text = value.strip()
    if not text:
        warnings.append(warn(KEY_EMPTY, at=at))
        return FoundKey.missing(at)
    var = env_reference(text)
    if var is not None:
        return FoundKey.env(var, at)
    if text.startswith("$") or text.lower().startswith("env:"):
        raise src.field_error(where, "looks like an environment reference but names no variable")
    if is_placeholder(text):
        warnings.append(warn(KEY_PLACEHOLDER, at=at, placeholder=text[:40]))
        return FoundKey("placeholder", at, placeholder=text[:40])
    if text != value:
        register_secret(value)
        warnings.append(warn(KEY_SPACES_REMOVED, at=at))
    return FoundKey.literal(text, at)


def env_var_key(src: Source, value: str, where: str) -> FoundKey:
    """A field that names an environment variable (api_key_env, env_key)."""
    name = value.strip()
    ref = env_reference(name)
    if ref:
        name = ref
    if not _ENV_NAME.match(name):
        raise src.field_error(  # never echoed: it may be a key pasted where a name goes
            where,
            "is not an environment variable name (letters, digits and _, like MY_API_KEY); the "
            "key itself belongs in the variable, never in the file",
        )
    return FoundKey.env(name, f"{src.label}: {where}")


# ---------------------------------------------------------------------------------------------
# Providers
# ---------------------------------------------------------------------------------------------


def slug(text: str) -> str:
    """A provider name usable on a command line: lower case, letters, digits, - _ ."""
    name = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower()).strip("-._")
    return name[:48].strip("-._")


def name_from_url(url: str) -> str:
    """'https://api.deepseek.com/v1' → 'deepseek'; 'http://127.0.0.1:8000' → 'local-8000'."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in ("localhost", "::1") or re.match(r"^\d+(\.\d+){3}$", host):
        name = "local" if host in ("localhost", "::1") or host.startswith("127.") else host
        return slug(f"{name}-{parts.port}" if parts.port else name) or "provider"
    labels = [x for x in host.split(".") if x and x not in ("www", "api")]
    if len(labels) >= 2:
        return slug(labels[-2]) or "provider"
    return slug(labels[0] if labels else host) or "provider"


def unique_name(name: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if name not in used:
        return name
    n = 2
    while f"{name}-{n}" in used:
        n += 1
    return f"{name}-{n}"


def make_model(
    model_id: str,
    *,
    attention: str | None = None,
    context_window: float | None = None,
    prices: Prices | None = None,
    display_name: str | None = None,
) -> ModelEntry:
    """A model entry from a shape's checked values (`context_window` a whole number)."""
    return ModelEntry(
        id=model_id,
        display_name=display_name,
        attention=attention,
        context_window=None if context_window is None else int(context_window),
        prices=prices,
    )


def prices_of(inp: float | None, out: float | None) -> Prices | None:
    """Input and output prices in USD per million tokens; None when neither is given."""
    if inp is None and out is None:
        return None
    return Prices(input=inp or 0.0, output=out or 0.0)


def merge_models(*groups: Iterable[ModelEntry]) -> tuple[ModelEntry, ...]:
    """Union by id, first seen first; a later entry fills fields the earlier one left None."""
    merged: dict[str, ModelEntry] = {}
    for group in groups:
        for model in group:
            have = merged.get(model.id)
            if have is None:
                merged[model.id] = model
                continue
            merged[model.id] = replace(
                have,
                display_name=have.display_name or model.display_name,
                attention=have.attention or model.attention,
                context_window=have.context_window or model.context_window,
                prices=have.prices or model.prices,
            )
    return tuple(merged.values())


def anthropic_warning(url: str, label: str) -> str | None:
    """A warning when a base URL imported as chat looks like it only speaks Anthropic's
    Messages API."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = parts.path.lower()
    if host == "anthropic.com" or host.endswith(".anthropic.com"):
        return warn(ANTHROPIC_OWN_API, label=label, url=url)
    if re.search(r"/(anthropic|claude)(/|$)", path) or path.endswith(ANTHROPIC.path):
        return warn(ANTHROPIC_ONLY_ENDPOINT, label=label, url=url)
    return None


def claude_code_base_url(url: str) -> tuple[str, Phrase | None]:
    """Claude Code's ANTHROPIC_BASE_URL as our base URL, and a note when it changed: Claude
    Code posts to ANTHROPIC_BASE_URL + /v1/messages, and our base URLs end before the
    endpoint, at /v1, for every protocol (the Anthropic protocol's convention, which also
    takes the URL without /v1)."""
    trimmed = url.strip().rstrip("/")
    root = ANTHROPIC.api_root(trimmed)
    if root == trimmed:
        return trimmed, None
    note = QT_TRANSLATE_NOOP(
        "ConfigImport", "added /v1: Claude Code sends its requests to ANTHROPIC_BASE_URL/v1"
    )
    return root, phrase(note, context=CONTEXT)


@dataclass
class Builder:
    """Collects providers for one file with unique names, notes and warnings."""

    src: Source
    kind: str
    providers: list[Provider] = field(default_factory=list)
    keys: dict[str, FoundKey] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    url_notes: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    extra_parts: list[tuple[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.src.label

    def add(
        self,
        *,
        name: str | None,
        base_url: str,
        url_field: str,
        key: FoundKey,
        models: Iterable[ModelEntry] = (),
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        stall_s: float | None = None,
        origin: str = "",
        protocol: Protocol = "chat",
        auth: AuthScheme | None = None,
        src: Source | None = None,
    ) -> Provider:
        src = src or self.src
        outside_userinfo = mask_credentials(base_url)
        if redact(outside_userinfo) != outside_userinfo:  # a key pasted into the URL field
            raise src.field_error(url_field, "holds what looks like an API key, not a URL")
        try:
            normalized = normalize_base_url(base_url, drop_credentials=True)
        except ValueError as exc:
            raise src.field_error(url_field, f"is not a usable base URL: {exc}") from None
        url = normalized.url
        if normalized.credentials_removed:
            key = self._key_from_url(normalized, key, f"{src.label}: {url_field}")
        wanted = slug(name or "") or name_from_url(url)
        final = unique_name(wanted, (p.name for p in self.providers))
        first_token = DEFAULT_FIRST_TOKEN_TIMEOUT_S
        stall = DEFAULT_STALL_TIMEOUT_S
        if timeout_s is not None:
            first_token = min(first_token, timeout_s)
            stall = min(stall, timeout_s)
        if stall_s is not None:
            stall = stall_s if timeout_s is None else min(stall_s, timeout_s)
        provider = Provider(
            name=final,
            base_url=url,
            key=key.ref,
            headers=dict(headers or {}),
            first_token_timeout_s=first_token,
            stall_timeout_s=stall,
            total_timeout_s=timeout_s,
            models=merge_models(models),
            source=f"{src.path} ({origin})" if origin else str(src.path),
            protocol=protocol,
            auth=auth,
        )
        self.providers.append(provider)
        self.keys[final] = key
        if normalized.said:
            self.url_notes[final] = normalized.said
        warn = anthropic_warning(url, f"{src.label}: {final}") if protocol == "chat" else None
        if warn:
            self.warnings.append(warn)
        return provider

    def add_claude_code(self, base_url: str, token_field: str, **fields: Any) -> Provider:
        """A provider from Claude Code's settings: the Anthropic protocol, its base URL as
        Claude Code uses it, and the key sent as Claude Code sends it (ANTHROPIC_AUTH_TOKEN as a
        bearer token, ANTHROPIC_API_KEY as x-api-key)."""
        url, note = claude_code_base_url(base_url)
        auth: AuthScheme | None = "bearer" if token_field == "ANTHROPIC_AUTH_TOKEN" else None
        provider = self.add(base_url=url, protocol="anthropic", auth=auth, **fields)
        if note:
            self.url_notes[provider.name] = (*self.url_notes.get(provider.name, ()), note)
        return provider

    def _key_from_url(self, normalized: NormalizedUrl, key: FoundKey, where: str) -> FoundKey:
        """A URL's password is never saved in the URL: it becomes the provider's key when the
        file gives no other, else it is left out; a warning says which."""
        if normalized.password and key.kind in ("missing", "placeholder"):
            found = FoundKey.literal(normalized.password, f"{where} (the password in the URL)")
            self.warnings.append(warn(URL_PASSWORD_IS_KEY, where=where, shown=found.redacted))
            return found
        left_out = URL_CREDENTIALS_LEFT_OUT if key.kind == "missing" else URL_CREDENTIALS_OWN_KEY
        self.warnings.append(warn(left_out, where=where))
        return key

    def result(self) -> ImportResult:
        if not self.providers:
            raise self.src.nothing("no provider with a base URL found in it")
        return ImportResult(
            providers=list(self.providers),
            keys=dict(self.keys),
            warnings=list(dict.fromkeys(self.warnings)),
            source=str(self.src.path),
            kind=self.kind,
            url_notes=dict(self.url_notes),
            parts=[(self.kind, str(self.src.path)), *self.extra_parts],
        )
