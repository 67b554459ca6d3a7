"""The one proxy decision: how a request to a URL travels, direct or through which proxy, and why.

The client (clients.py) applies this decision with httpx's public `proxy=`/`mounts=` arguments
and never lets httpx or aiohttp read the environment themselves; the doctor reports the same
decision in its words. So what the doctor says is the route the client takes.

The order of the rules:
1. the provider's own setting: `none` (direct) or `url` (that proxy);
2. loopback hosts (localhost, 127.0.0.0/8, ::1) go direct: a global proxy must not break a
   local server;
3. the environment: `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy`/`HTTP_PROXY` for
   http ones, else `all_proxy`/`ALL_PROXY`; the lower-case variable wins when both are set (as
   curl and Python's urllib read them). A proxy URL without a scheme is an HTTP proxy.
4. `no_proxy`/`NO_PROXY` (lower case wins) exempts a host when one entry matches: `*` (every
   host); a domain, with or without a leading `.` or `*.` (the domain itself and every host
   under it, as curl reads it); an IP address; a CIDR block (`10.0.0.0/8`, `fd00::/8`); any of
   these with `:port` (then only that port).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from workbench.core.access.providers import ProxyChoice, is_loopback
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase

PROXY_VARIABLES: tuple[str, ...] = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
)
SOCKS_SCHEMES = ("socks4", "socks4a", "socks5", "socks5h")
_DEFAULT_PORTS = {"http": 80, "https": 443}


# A route's reason, marked for the UI's translation files (context "ProxyRoute"); the doctor's
# proxy check shows it. {fields} are data: hosts, variables, proxy URLs.
_CONTEXT = "ProxyRoute"
DIRECT_PROVIDER_NONE = QT_TRANSLATE_NOOP(
    "ProxyRoute", "direct (the provider's proxy setting is 'none')"
)
VIA_PROVIDER_PROXY = QT_TRANSLATE_NOOP("ProxyRoute", "via the provider's proxy {proxy}")
DIRECT_LOOPBACK = QT_TRANSLATE_NOOP("ProxyRoute", "direct ({host} is loopback: *_PROXY ignored)")
DIRECT_NO_VARIABLE = QT_TRANSLATE_NOOP("ProxyRoute", "direct (no proxy variable applies)")
DIRECT_NO_PROXY_ENTRY = QT_TRANSLATE_NOOP(
    "ProxyRoute", "direct ({variable} entry '{entry}' matches {host})"
)
VIA_VARIABLE = QT_TRANSLATE_NOOP("ProxyRoute", "via {proxy} ({variable})")


def _said(template: str, **fields: str) -> Phrase:
    return phrase(template, context=_CONTEXT, **fields)


@dataclass(frozen=True)
class ProxyRoute:
    """How requests to one URL travel: `proxy` is None for a direct connection.

    `proxy` is the URL to connect with (a password from the provider's `password_env` put in);
    `source` names the setting that decided (`provider`, `loopback`, a variable's name, `none`);
    `no_proxy_entry` is the NO_PROXY entry that exempted the host, if one did; `said` says all
    of it in plain words, any password masked, for the UI to show in its language; `reason` is
    its English.
    """

    proxy: str | None
    source: str
    said: Phrase
    no_proxy_entry: str | None = None

    @property
    def reason(self) -> str:
        return str(self.said)

    @property
    def socks(self) -> bool:
        return self.proxy is not None and is_socks(self.proxy)

    def describe(self) -> str:
        return self.reason


def is_socks(url: str) -> bool:
    return url.strip().lower().split("://", 1)[0] in SOCKS_SCHEMES


def mask_proxy(url: str) -> str:
    """A proxy URL as it may be shown: any password masked."""
    return re.sub(r"//([^:/@\s]+):[^@/\s]+@", r"//\1:***@", url)


def proxy_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy variables that are set (upper and lower case), in a fixed order."""
    env = os.environ if environ is None else environ
    return {name: env[name] for name in PROXY_VARIABLES if env.get(name, "").strip()}


def _variable(env: Mapping[str, str], name: str) -> tuple[str, str] | None:
    """(the variable's name as set, its value): the lower-case one wins over the upper-case."""
    for candidate in (name.lower(), name.upper()):
        value = env.get(candidate, "").strip()
        if value:
            return candidate, value
    return None


def _as_url(proxy: str) -> str:
    return proxy if "://" in proxy else "http://" + proxy


def route_for(
    url: str, choice: ProxyChoice | None = None, environ: Mapping[str, str] | None = None
) -> ProxyRoute:
    """The route of a request to `url` under the provider's `choice` (None: `system`) and the
    environment (None: `os.environ`)."""
    choice = choice or ProxyChoice()
    if choice.mode == "none":
        return ProxyRoute(None, "provider", _said(DIRECT_PROVIDER_NONE))
    if choice.mode == "url":
        shown = mask_proxy(choice.url.strip())
        return ProxyRoute(choice.connect_url(), "provider", _said(VIA_PROVIDER_PROXY, proxy=shown))
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().rstrip(".")
    if is_loopback(url):
        return ProxyRoute(None, "loopback", _said(DIRECT_LOOPBACK, host=host))
    env = os.environ if environ is None else environ
    scheme = (parts.scheme or "https").lower()
    found = _variable(env, f"{scheme}_proxy") or _variable(env, "all_proxy")
    if found is None:
        return ProxyRoute(None, "none", _said(DIRECT_NO_VARIABLE))
    variable, value = found
    exempt = _variable(env, "no_proxy")
    if exempt is not None:
        port = parts.port or _DEFAULT_PORTS.get(scheme, 443)
        entry = no_proxy_match(host, port, exempt[1])
        if entry is not None:
            reason = _said(DIRECT_NO_PROXY_ENTRY, variable=exempt[0], entry=entry, host=host)
            return ProxyRoute(None, exempt[0], reason, entry)
    proxy = _as_url(value)
    return ProxyRoute(
        proxy, variable, _said(VIA_VARIABLE, proxy=mask_proxy(proxy), variable=variable)
    )


def no_proxy_match(host: str, port: int, no_proxy: str) -> str | None:
    """The first entry of a NO_PROXY value that exempts `host`:`port`, or None."""
    for raw in re.split(r"[,\s]+", no_proxy):
        entry = raw.strip()
        if entry and _entry_matches(entry, host.lower().rstrip("."), port):
            return entry
    return None


def _entry_matches(entry: str, host: str, port: int) -> bool:
    if entry == "*":
        return True
    pattern = entry.lower().split("://", 1)[-1]
    pattern, want_port = _split_port(pattern)
    if want_port is not None and want_port != port:
        return False
    address = _ip(host)
    if "/" in pattern:
        try:
            network = ipaddress.ip_network(pattern, strict=False)
        except ValueError:
            return False
        return address is not None and address in network
    if _ip(pattern) is not None:
        return address is not None and address == _ip(pattern)
    domain = pattern.lstrip("*").lstrip(".").rstrip(".")
    return bool(domain) and (host == domain or host.endswith("." + domain))


def _split_port(pattern: str) -> tuple[str, int | None]:
    """('host', port) from 'host:port', '[v6]:port' or a bare pattern (a bare IPv6 address and a
    CIDR keep their colons)."""
    if pattern.startswith("["):
        inside, _, rest = pattern[1:].partition("]")
        return inside, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    head, sep, tail = pattern.rpartition(":")
    if sep and tail.isdigit() and ":" not in head:
        return head, int(tail)
    return pattern, None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
