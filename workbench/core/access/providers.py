"""Providers: an OpenAI-compatible endpoint, where its key comes from, and how to reach it.

Saved as TOML in the user config directory, readable and hand-editable. A key's text is never
part of a Provider: only a reference to where the key lives (`KeyRef`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.foundation.redaction import register_secret
from workbench.core.foundation.results import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    Prices,
)

KeySource = Literal["env", "keyring", "session", "none"]
# The wire protocol a provider speaks: a registered protocol's name (core/protocols/registry.py:
# chat, responses, anthropic), checked where providers.toml is read; `auth` says how its key is
# sent, None for the protocol's own way (registry.auth_for).
Protocol = str
AuthScheme = Literal["bearer", "x-api-key"]
AUTH_SCHEMES: tuple[AuthScheme, ...] = ("bearer", "x-api-key")
ProxyMode = Literal["system", "none", "url"]
KEY_SOURCES: tuple[KeySource, ...] = ("env", "keyring", "session", "none")
PROXY_MODES: tuple[ProxyMode, ...] = ("system", "none", "url")


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
    `url`: this proxy for this provider only.

    `url` never holds a password (a user name may stay): a proxy that wants one reads it from
    the environment variable `password_env` when connecting (`connect_url`).
    """

    mode: ProxyMode = "system"
    url: str = ""
    password_env: str = ""

    def describe(self) -> str:
        if self.mode != "url":
            return {
                "system": "system proxy settings (*_PROXY / NO_PROXY; loopback always direct)",
                "none": "direct, no proxy",
            }[self.mode]
        password = f" (password from ${self.password_env})" if self.password_env else ""
        return f"proxy {mask_url_password(self.url)}{password}"

    def connect_url(self) -> str:
        """The proxy URL to connect with: the password from $`password_env` put in, when set.

        The password is registered for redaction. An unset variable gives the URL without it
        (the proxy then answers 407, and `Provider.warnings` names the variable).
        """
        url = self.url.strip()
        if not self.password_env:
            return url
        password = os.environ.get(self.password_env, "").strip()
        register_secret(password)
        if not password:
            return url
        parts = urlsplit(url)
        user = quote(unquote(parts.username or ""), safe="")
        host = parts.netloc.rpartition("@")[2]
        netloc = f"{user}:{quote(password, safe='')}@{host}"
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


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
    protocol: Protocol = "chat"
    auth: AuthScheme | None = None  # None: the protocol's own (registry.auth_for)
    # what loading the providers file left out and the user must fix (a password in a URL)
    load_notes: tuple[str, ...] = field(default=(), compare=False)

    def model(self, model_id: str) -> ModelEntry | None:
        return next((m for m in self.models if m.id == model_id), None)

    def warnings(self) -> list[str]:
        """What the user must see wherever this provider shows (TLS off, a password left out
        of a URL, a proxy password variable that is not set)."""
        out = list(self.load_notes)
        if not self.verify_tls:
            out.append(
                f"TLS certificate verification is OFF for '{self.name}': anyone on the network "
                f"path can read the key and the traffic; turn it back on unless this is a lab"
            )
        var = self.proxy.password_env
        if self.proxy.mode == "url" and var and not os.environ.get(var, "").strip():
            out.append(
                f"the proxy password of '{self.name}' comes from ${var}, which is not set in "
                f"this shell: the proxy will refuse the connection (407); export {var}=<password>"
            )
        return out


_PASSWORD_IN_URL = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^/@\s:]*):([^@\s]*)@")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)\S*@")


def mask_url_password(url: str) -> str:
    """http://user:secret@proxy:3128 -> http://user:***@proxy:3128 (for showing a proxy URL)."""
    return _PASSWORD_IN_URL.sub(lambda m: f"{m[1]}{m[2]}:***@", url)


def mask_credentials(text: str) -> str:
    """Any `scheme://…@` in `text` as `scheme://***@`: for echoing what the user typed, where
    a password may hold '/', '?' or '#' and the URL parser would not find it."""
    return _USERINFO.sub(r"\1***@", text)


def split_url_password(url: str) -> tuple[str, str]:
    """(the URL without its password, the password or ''); a user name stays.

    By pattern rather than by urlsplit, so that a password with '/' or '@' in it is found.
    """
    text = url.strip()
    match = _PASSWORD_IN_URL.match(text)
    if not match:
        return text, ""
    user = f"{match[2]}@" if match[2] else ""
    return f"{match[1]}{user}{text[match.end() :]}", unquote(match[3])


def is_loopback(url: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1: hosts that must never go through a proxy."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in ("localhost", "::1") or host.endswith(".localhost") or host.startswith("127.")
