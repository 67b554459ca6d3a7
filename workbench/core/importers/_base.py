"""What every importer shares: the result types, our one error type, careful file loading
(JSON with comments, TOML, UTF-8), field access that names the field, and key classification.

A reader only reads. A literal key found in a file is registered for redaction the moment it
is read and is kept in memory only (`FoundKey`); every error message goes through `redact`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from workbench.core.providers import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    KeyRef,
    ModelEntry,
    Provider,
    normalize_base_url,
)
from workbench.core.results import Prices
from workbench.core.secrets import parse_env_reference, redact, register_secret

MAX_CONFIG_BYTES = 16 * 1024 * 1024  # no config file is this large; refuse rather than chew


class ConfigImportError(Exception):
    """Broken or unknown input. The message names the file and the field or line; it is
    redacted, so no key text can travel in it."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))

    @property
    def message(self) -> str:
        return str(self)


class NothingToImport(ConfigImportError):
    """A readable file that holds no OpenAI-compatible gateway (e.g. Claude Code with no
    ANTHROPIC_BASE_URL). Importing that file alone fails; a home-folder scan skips it."""


KeyKind = Literal["env", "literal", "placeholder", "missing"]


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

    def describe(self) -> str:
        at = f" ({self.where})" if self.where else ""
        if self.kind == "env":
            return f"environment variable ${self.env_var}{at}"
        if self.kind == "literal":
            return f"a key written in the file, {self.redacted}{at}"
        if self.kind == "placeholder":
            return f"a placeholder, not a key: '{self.placeholder}'{at}"
        return f"no key in the file{at}"

    def __str__(self) -> str:
        return self.describe()


@dataclass
class ImportResult:
    """What one file or folder holds. `keys` is keyed by provider name; `url_notes` holds what
    base-URL normalisation changed, per provider; `parts` lists (kind, file) read."""

    providers: list[Provider]
    keys: dict[str, FoundKey]
    warnings: list[str]
    source: str
    kind: str
    url_notes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    parts: list[tuple[str, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Loading files
# ---------------------------------------------------------------------------------------------


@dataclass
class Source:
    """A file being read, for error messages that name it."""

    path: Path
    text: str = ""

    @property
    def label(self) -> str:
        return self.path.name or str(self.path)

    def error(self, message: str, line: int | None = None) -> ConfigImportError:
        where = f"{self.label}, line {line}" if line else self.label
        return ConfigImportError(f"{where}: {message}")

    def nothing(self, message: str) -> NothingToImport:
        return NothingToImport(f"{self.label}: {message}")

    def line_of(self, key: str) -> int | None:
        """The first line that holds `"key"` (JSON) or `key =` (TOML), as a hint."""
        for pattern in (f'"{key}"', f"{key} =", f"{key}="):
            pos = self.text.find(pattern)
            if pos >= 0:
                return self.text.count("\n", 0, pos) + 1
        return None

    def field_error(self, fieldpath: str, problem: str) -> ConfigImportError:
        leaf = fieldpath.rsplit(".", 1)[-1] if "." in fieldpath else fieldpath
        line = self.line_of(leaf) if "is missing" not in problem else None
        return self.error(f"{fieldpath} {problem}", line)


def read_text(path: Path) -> Source:
    """The file as UTF-8 text (a BOM is fine); errors name the file."""
    src = Source(path)
    try:
        if not path.is_file():
            raise src.error("not found, or not a file")
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise src.error(f"{size} bytes is too large for a config file")
        data = path.read_bytes()
    except OSError as exc:
        raise src.error(f"cannot read it ({exc.strerror or exc})") from None
    try:
        src.text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise src.error(f"not UTF-8 text (byte {exc.start})", line) from None
    return src


def strip_jsonc(text: str) -> str:
    """JSON with `//` and `/* */` comments and trailing commas → strict JSON.

    Comments become spaces (newlines kept) so line and column numbers still match the file;
    text inside strings, such as "http://x//y" or "a/*b*/c", is left alone.
    Raises ValueError(message, line) for a comment that never ends.
    """
    out = list(text)
    n = len(text)
    i = 0
    in_string = False
    last_comma: int | None = None  # a comma after a value, which a closing bracket makes trailing
    prev = ""  # the last significant character outside strings and comments
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
                prev = '"'
            i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                line = text.count("\n", 0, i) + 1
                raise ValueError("a /* comment is never closed", line)
            for j in range(i, end + 2):
                if out[j] != "\n":
                    out[j] = " "
            i = end + 2
            continue
        if c.isspace():
            i += 1
            continue
        if c == "," and prev not in ("", ",", ":", "[", "{"):
            last_comma = i
        elif c in "}]" and last_comma is not None and prev == ",":
            out[last_comma] = " "
            last_comma = None
        else:
            last_comma = None if c != "," else last_comma
        if c == '"':
            in_string = True
        prev = c
        i += 1
    return "".join(out)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(path: Path) -> tuple[Source, dict[str, Any]]:
    """A JSON (or JSONC) file whose top level must be an object."""
    src = read_text(path)
    return src, parse_json_text(src, src.text)


def parse_json_text(src: Source, text: str, what: str = "") -> dict[str, Any]:
    prefix = f"{what}: " if what else ""
    try:
        data = json.loads(strip_jsonc(text), parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise src.error(
            f"{prefix}not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno
        ) from None
    except ValueError as exc:  # an unclosed comment, NaN, a number too long to read
        line = exc.args[1] if len(exc.args) > 1 and isinstance(exc.args[1], int) else None
        raise src.error(f"{prefix}not valid JSON: {exc.args[0]}", line) from None
    except RecursionError:
        raise src.error(f"{prefix}not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise src.error(f"{prefix}expected a JSON object at the top level, found {_type(data)}")
    return data


_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def load_toml(path: Path) -> tuple[Source, dict[str, Any]]:
    src = read_text(path)
    return src, parse_toml_text(src, src.text)


def parse_toml_text(src: Source, text: str, what: str = "") -> dict[str, Any]:
    prefix = f"{what}: " if what else ""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        match = _TOML_POS.search(msg)
        line = None
        if match:
            line = int(match.group(1))
            msg = f"{msg[: match.start()]} (column {match.group(2)})"
        if what:  # the TOML is embedded in another file: its line is not the file's line
            where = f", line {line}" if line else ""
            raise src.error(f"{what}{where}: not valid TOML: {msg}") from None
        raise src.error(f"{prefix}not valid TOML: {msg}", line) from None
    except (ValueError, RecursionError) as exc:
        raise src.error(f"{prefix}not valid TOML: {type(exc).__name__}") from None


# ---------------------------------------------------------------------------------------------
# Fields
# ---------------------------------------------------------------------------------------------


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table/object"
    return type(value).__name__


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def get_table(
    src: Source, obj: Mapping[str, Any], key: str, path: str, *, required: bool = False
) -> dict[str, Any] | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise src.field_error(join(path, key), "is missing")
        return None
    if not isinstance(value, dict):
        raise src.field_error(join(path, key), f"must be a table/object, found {_type(value)}")
    return value


def get_str(
    src: Source, obj: Mapping[str, Any], key: str, path: str, *, required: bool = False
) -> str | None:
    """A text field; empty text counts as absent. A wrong type is an error."""
    value = obj.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise src.field_error(join(path, key), "is missing" if value is None else "is empty")
        return None
    if not isinstance(value, str):
        raise src.field_error(join(path, key), f"must be text, found {_type(value)}")
    return value.strip()


def opt_number(
    obj: Mapping[str, Any],
    key: str,
    path: str,
    warnings: list[str],
    label: str,
    *,
    whole: bool = False,
    minimum: float = 0.0,
) -> float | None:
    """An optional descriptive number (context window, price, timeout): a bad value is
    ignored with a warning rather than failing the import."""
    value = obj.get(key)
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    ok = number is not None and math.isfinite(number) and number >= minimum
    if ok and whole and (number != int(number) or number < 1):  # type: ignore[arg-type]
        ok = False
    if ok and number is not None and number > 1e15:
        ok = False
    if not ok:
        what = "a whole number >= 1" if whole else f"a number >= {minimum:g}"
        warnings.append(f"{label}: ignored {join(path, key)}: must be {what}, found {value!r}")
        return None
    return number


def opt_int(
    obj: Mapping[str, Any], key: str, path: str, warnings: list[str], label: str
) -> int | None:
    value = opt_number(obj, key, path, warnings, label, whole=True)
    return None if value is None else int(value)


_VAR_REF = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_SCHEME_WORDS = re.compile(r"(?i)\b(bearer|basic|token)\b")
_CREDENTIAL_HEADER = re.compile(r"(?i)(authorization|api[-_]?key|token|secret|cookie|password)")


def opt_headers(
    obj: Mapping[str, Any], key: str, path: str, warnings: list[str], label: str
) -> dict[str, str]:
    """Extra HTTP headers. A header that carries a credential is not imported (it would end
    up in our TOML file); its value is registered for redaction and a warning says so."""
    value = obj.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        warnings.append(f"{label}: ignored {join(path, key)}: must be an object of headers")
        return {}
    headers: dict[str, str] = {}
    for name, raw in value.items():
        if not isinstance(raw, str | int | float) or isinstance(raw, bool):
            warnings.append(f"{label}: ignored header {name!r}: its value must be text")
            continue
        text = str(raw)
        only_refs = not _SCHEME_WORDS.sub("", _VAR_REF.sub("", text)).strip()
        if (_CREDENTIAL_HEADER.search(name) and not only_refs) or redact(text) != text:
            register_secret(text)
            warnings.append(
                f"{label}: header {name!r} carries a credential and was not imported "
                "(keys never go into the providers file); give the key through the "
                'key reference instead, or write the header as "Bearer ${VAR}"'
            )
            continue
        if not name.strip() or any(ch in name + text for ch in "\r\n\0"):
            warnings.append(f"{label}: ignored header {name!r}: not a valid HTTP header")
            continue
        headers[name.strip()] = text.strip()
    return headers


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


def classify_key(src: Source, value: Any, where: str, warnings: list[str]) -> FoundKey:
    """A key field's value as a FoundKey. A non-text value is an error naming the field."""
    at = f"{src.label}: {where}"
    if value is None:
        return FoundKey.missing()
    if not isinstance(value, str):
        raise src.field_error(where, f"must be text, found {_type(value)}")
    text = value.strip()
    if not text:
        warnings.append(f"{at} is empty: no key imported")
        return FoundKey.missing(at)
    var = env_reference(text)
    if var is not None:
        return FoundKey.env(var, at)
    if text.startswith("$") or text.lower().startswith("env:"):
        raise src.field_error(where, "looks like an environment reference but names no variable")
    if is_placeholder(text):
        warnings.append(
            f"{at} holds a placeholder ('{text[:40]}'), not a key: put the real key in an "
            "environment variable and import again, or add the provider with --api-key-env"
        )
        return FoundKey("placeholder", at, placeholder=text[:40])
    if text != value:
        register_secret(value)
        warnings.append(f"{at}: removed spaces around the key (a common cause of 401)")
    return FoundKey.literal(text, at)


def env_var_key(src: Source, value: Any, where: str) -> FoundKey:
    """A field that names an environment variable (api_key_env, env_key)."""
    if not isinstance(value, str):
        raise src.field_error(
            where, f"must be the name of an environment variable, found {_type(value)}"
        )
    name = value.strip()
    ref = env_reference(name)
    if ref:
        name = ref
    if not _ENV_NAME.match(name):
        raise src.field_error(where, f"{name[:40]!r} is not an environment variable name")
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


def normalize_attention(value: Any, where: str, warnings: list[str], label: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not re.match(r"^[A-Za-z][A-Za-z0-9_-]{0,15}$", value.strip()):
        warnings.append(f"{label}: ignored {where}: not an attention type like GQA or MLA")
        return None
    text = value.strip()
    return "MoBA" if text.lower() == "moba" else text.upper()


def make_model(
    model_id: Any,
    where: str,
    src: Source,
    *,
    attention: str | None = None,
    context_window: int | None = None,
    prices: Prices | None = None,
    display_name: str | None = None,
) -> ModelEntry:
    if not isinstance(model_id, str) or not model_id.strip():
        raise src.field_error(where, "must be a model id (text)")
    return ModelEntry(
        id=model_id.strip(),
        display_name=display_name,
        attention=attention,
        context_window=context_window,
        prices=prices,
    )


def prices_from(
    obj: Mapping[str, Any],
    input_key: str,
    output_key: str,
    path: str,
    warnings: list[str],
    label: str,
) -> Prices | None:
    inp = opt_number(obj, input_key, path, warnings, label)
    out = opt_number(obj, output_key, path, warnings, label)
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
    """A warning when a base URL looks like it only speaks Anthropic's Messages API."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = parts.path.lower()
    if host == "anthropic.com" or host.endswith(".anthropic.com"):
        return (
            f"{label}: {url} is Anthropic's own API, which does not speak the OpenAI chat "
            "completions protocol the workbench uses; imported anyway, check it with "
            "`workbench doctor`"
        )
    if re.search(r"/(anthropic|claude)(/|$)", path) or path.endswith("/messages"):
        return (
            f"{label}: {url} looks like an Anthropic-only endpoint (Messages API); imported "
            "anyway since many gateways speak both, check it with `workbench doctor`"
        )
    return None


@dataclass
class Builder:
    """Collects providers for one file with unique names, notes and warnings."""

    src: Source
    kind: str
    providers: list[Provider] = field(default_factory=list)
    keys: dict[str, FoundKey] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    url_notes: dict[str, tuple[str, ...]] = field(default_factory=dict)
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
        anthropic_source: bool = False,
        src: Source | None = None,
    ) -> Provider:
        src = src or self.src
        if redact(base_url) != base_url:  # a key pasted into the URL field must not be saved
            raise src.field_error(url_field, "holds what looks like an API key, not a URL")
        try:
            normalized = normalize_base_url(base_url)
        except ValueError as exc:
            raise src.field_error(url_field, f"is not a usable base URL: {exc}") from None
        url = normalized.url
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
        )
        self.providers.append(provider)
        self.keys[final] = key
        if normalized.notes:
            self.url_notes[final] = normalized.notes
        warn = anthropic_warning(url, f"{src.label}: {final}")
        if warn:
            self.warnings.append(warn)
        elif anthropic_source:
            self.warnings.append(
                f"{src.label}: {final}: the base URL comes from a Claude Code setting (Anthropic "
                "Messages API); the workbench calls it as OpenAI-compatible — check it with "
                f"`workbench doctor {final}`"
            )
        return provider

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
