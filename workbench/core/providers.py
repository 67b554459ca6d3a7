"""Providers: an OpenAI-compatible endpoint, where its key comes from, and how to reach it.

Saved as TOML in the user config directory, readable and hand-editable. A key's text is never
part of a Provider: only a reference to where the key lives (`KeyRef`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from workbench.core.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.results import Prices

KeySource = Literal["env", "keyring", "session", "none"]
ProxyMode = Literal["system", "none", "url"]
KEY_SOURCES: tuple[KeySource, ...] = ("env", "keyring", "session", "none")
PROXY_MODES: tuple[ProxyMode, ...] = ("system", "none", "url")

DEFAULT_FIRST_TOKEN_TIMEOUT_S = 300.0
DEFAULT_STALL_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class KeyRef:
    """Where a provider's key lives. `name` is the variable (env) or the account (keyring).

    `session` keys are typed into the app and held in memory for this session only.
    """

    source: KeySource = "none"
    name: str = ""

    def describe(self) -> str:
        return str(self.description())

    def description(self) -> Phrase:
        """Where the key lives, in words the UI can translate."""
        return phrase(_KEY_SOURCE_WORDS[self.source], context="KeyRef", name=self.name)


_KEY_SOURCE_WORDS: dict[str, str] = {
    "env": QT_TRANSLATE_NOOP("KeyRef", "environment variable ${name}"),
    "keyring": QT_TRANSLATE_NOOP("KeyRef", "OS keyring (account '{name}')"),
    "session": QT_TRANSLATE_NOOP("KeyRef", "typed in, held in memory for this session only"),
    "none": QT_TRANSLATE_NOOP("KeyRef", "no key (a keyless server)"),
}


@dataclass(frozen=True)
class ProxyChoice:
    """`system`: the *_PROXY environment (loopback hosts always bypass it); `none`: direct;
    `url`: this proxy for this provider only."""

    mode: ProxyMode = "system"
    url: str = ""

    def describe(self) -> str:
        return {
            "system": "system proxy settings (*_PROXY / NO_PROXY; loopback always direct)",
            "none": "direct, no proxy",
            "url": f"proxy {mask_url_password(self.url)}",
        }[self.mode]


@dataclass(frozen=True)
class ModelEntry:
    """A model as this provider serves it; None fields fall back to the catalog."""

    id: str
    display_name: str | None = None
    attention: str | None = None
    context_window: int | None = None
    prices: Prices | None = None


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    key: KeyRef = field(default_factory=KeyRef)
    headers: dict[str, str] = field(default_factory=dict)
    first_token_timeout_s: float = DEFAULT_FIRST_TOKEN_TIMEOUT_S
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S
    total_timeout_s: float | None = None
    proxy: ProxyChoice = field(default_factory=ProxyChoice)
    verify_tls: bool = True  # off only with a visible warning wherever the provider shows
    models: tuple[ModelEntry, ...] = ()
    source: str = ""  # where it was imported from, for the user's reference

    def model(self, model_id: str) -> ModelEntry | None:
        return next((m for m in self.models if m.id == model_id), None)

    def warnings(self) -> list[str]:
        """What the user must see wherever this provider shows (TLS off, a proxy for loopback)."""
        out = []
        if not self.verify_tls:
            out.append(
                f"TLS certificate verification is OFF for '{self.name}': anyone on the network "
                f"path can read the key and the traffic; turn it back on unless this is a lab"
            )
        return out


@dataclass(frozen=True)
class NormalizedUrl:
    url: str
    notes: tuple[str, ...]  # what was changed and why, for the user to see


_ENDPOINT_SUFFIXES = ("/chat/completions", "/completions", "/models", "/responses")


def normalize_base_url(raw: str) -> NormalizedUrl:
    """Trim spaces and trailing slashes; recognise a full endpoint URL pasted as the base URL.

    Raises ValueError with a fix when the text is not an http(s) URL. A URL with no scheme gets
    https://, or http:// for a loopback host (local servers rarely speak TLS).
    """
    from workbench.core.secrets import redact  # secrets imports this module for type hints

    shown = redact(raw)
    text = raw.strip().strip("\"'").strip()
    notes: list[str] = []
    if text != raw:
        notes.append("removed spaces or quotes around the URL")
    if not text:
        raise ValueError("the base URL is empty; write it like https://host/v1")
    if re.search(r"\s", text):
        raise ValueError(f"'{shown}' has spaces inside it; remove them (https://host/v1)")
    if not re.match(r"^https?://", text, re.IGNORECASE):
        if re.match(r"^[\w.-]+(:\d+)?(/|$)", text):
            host = re.split(r"[:/]", text, maxsplit=1)[0]
            scheme = "http" if is_loopback(f"http://{host}") else "https"
            text = f"{scheme}://{text}"
            notes.append(f"added {scheme}:// (the URL had no scheme)")
        else:
            raise ValueError(f"'{shown}' is not an http(s) URL; write it like https://host/v1")
    parts = urlsplit(text)
    if not parts.hostname:
        raise ValueError(f"'{shown}' has no host; write it like https://host/v1")
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number 0..65535
    except ValueError:
        raise ValueError(
            f"'{shown}' has an invalid port; write it like https://host:8443/v1"
        ) from None
    path = re.sub(r"/{2,}", "/", parts.path).rstrip("/")
    for suffix in _ENDPOINT_SUFFIXES:
        if path.lower().endswith(suffix):
            path = path[: -len(suffix)]
            notes.append(
                f"removed '{suffix}': that is an endpoint, the SDK appends it to the base URL"
            )
            break
    if parts.query or parts.fragment:
        notes.append("removed the query string (base URLs take none; keys never go in URLs)")
    if parts.path != path and not any("removed '" in n for n in notes):
        notes.append("removed trailing slashes")
    return NormalizedUrl(
        urlunsplit((parts.scheme.lower(), parts.netloc, path, "", "")), tuple(notes)
    )


def mask_url_password(url: str) -> str:
    """http://user:secret@proxy:3128 -> http://user:***@proxy:3128 (for showing a proxy URL)."""
    return re.sub(r"//([^:/@\s]+):[^@/\s]+@", r"//\1:***@", url)


def is_loopback(url: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1: hosts that must never go through a proxy."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in ("localhost", "::1") or host.endswith(".localhost") or host.startswith("127.")
