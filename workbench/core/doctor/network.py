"""The checks before HTTP: the base URL's shape, the proxy route (the one decision of
core/access/proxy_route.py, which the client applies), DNS, TCP and TLS."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from workbench.core.access.providers import is_loopback
from workbench.core.access.proxy_route import ProxyRoute, mask_proxy, proxy_variables, route_for
from workbench.core.doctor import messages as msg
from workbench.core.doctor.checks import checked, skipped
from workbench.core.foundation.i18n import Phrase, data, phrase, together
from workbench.core.protocols.base_url import (
    TRAILING_SLASHES,
    BaseUrlError,
    normalize_base_url,
)

if TYPE_CHECKING:
    from workbench.core.doctor.state import Doctor


_PROXY_PROBE_TIMEOUT_S = 3.0


def _proxy_address(proxy: str) -> tuple[str, int] | None:
    text = proxy if "://" in proxy else "http://" + proxy
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    default = {"https": 443, "socks5": 1080, "socks5h": 1080, "socks4": 1080}.get(
        parts.scheme.lower(), 80
    )
    return parts.hostname, port or default


async def _tcp_connect(host: str, port: int, timeout_s: float) -> tuple[float, Phrase | None]:
    """(milliseconds, None) when a TCP connection opens; (ms, why not) otherwise."""
    start = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            _, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        why = phrase(msg.EV_NO_ANSWER_WITHIN, seconds=f"{timeout_s:g}")
        return (time.perf_counter() - start) * 1e3, why
    except ConnectionRefusedError:
        return (time.perf_counter() - start) * 1e3, phrase(msg.EV_CONNECTION_REFUSED)
    except OSError as exc:  # the system's words
        return (time.perf_counter() - start) * 1e3, data(exc.strerror or type(exc).__name__)
    elapsed = (time.perf_counter() - start) * 1e3
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass
    return elapsed, None


def check_base_url(d: Doctor) -> bool:
    try:
        normalized = normalize_base_url(d.raw_url)
    except ValueError as exc:
        d.add(
            checked(
                "base_url",
                False,
                phrase(msg.EV_BASE_URL_AS_GIVEN, raw=d.raw_url),
                phrase(
                    msg.BASE_URL_NOT_USABLE_PROBLEM,
                    problem=exc.said if isinstance(exc, BaseUrlError) else data(exc),
                ),
                phrase(msg.WRITE_BASE_URL_PROVIDER_DOCUMENTS_LIKE),
            )
        )
        return False
    d.url = normalized.url
    serious = [n for n in normalized.said if n.template != TRAILING_SLASHES]
    evidence = [phrase(msg.EV_BASE_URL_BECAME, raw=d.raw_url, url=d.url)]
    if normalized.said:
        evidence.append(phrase(msg.EV_NOTES, notes=together(normalized.said)))
    if serious:
        cause = [
            phrase(
                msg.BASE_URL_NOT_BASE_FORM_NOTES,
                notes=together(serious),
            )
        ]
        if any("/chat/completions" in str(n) for n in serious):
            cause.append(phrase(msg.FULL_ENDPOINT_URL_PASTED_SDK_APPENDS))
        fix = phrase(msg.BASE_URL_SHOULD_URL, url=d.url)
        d.add(checked("base_url", False, evidence, cause, fix))
    else:
        d.add(checked("base_url", True, evidence))
    return True


async def check_proxy(d: Doctor) -> ProxyRoute | None:
    """None when the proxy that carries this host's requests does not answer."""
    variables = proxy_variables()
    route = route_for(d.url, d.proxy_choice)
    shown: dict[str, list[str]] = {}
    for name, value in variables.items():
        shown.setdefault(value, []).append(name)
    parts = [f"{'/'.join(names)}={mask_proxy(value)}" for value, names in shown.items()]
    proxies = {v for k, v in variables.items() if not k.lower().startswith("no_")}
    if route.proxy:
        proxies.add(route.proxy)
    dead: list[tuple[str, Phrase]] = []
    for value in sorted(proxies):
        address = _proxy_address(value)
        if address is None:
            dead.append((value, phrase(msg.EV_NOT_A_PROXY_URL)))
            continue
        _, why = await _tcp_connect(*address, min(d.timeout_s, _PROXY_PROBE_TIMEOUT_S))
        if why is not None:
            dead.append((value, why))
    evidence = [
        data("; ".join(parts)) if parts else phrase(msg.EV_NO_PROXY_VARIABLES),
        phrase(msg.EV_FOR_THIS_HOST, reason=route.said),
    ]
    if d.proxy_choice.mode == "none" and proxies:
        evidence.append(phrase(msg.EV_PROXY_VARIABLES_IGNORED))
    if not dead:
        d.add(checked("proxy", True, evidence))
        return route
    names = together(
        [
            together([f"{'/'.join(shown.get(v, [route.source]))}={mask_proxy(v)} (", why, ")"], "")
            for v, why in dead
        ],
        ", ",
    )
    applies = route.proxy is not None and any(v == route.proxy for v, _ in dead)
    if applies:
        cause = phrase(
            msg.LOCAL_PROXY_FAILED_REQUESTS_HOST_GO,
            proxy=mask_proxy(route.proxy or ""),
            source=route.source,
            names=names,
        )
    else:
        cause = phrase(
            msg.LOCAL_PROXY_FAILED_NAMES_POINTS_PROXY,
            names=names,
            reason=route.said,
        )
    fix = phrase(msg.UNSET_FIX_START_PROXY_CORRECT_HOST)
    d.add(checked("proxy", False, evidence, cause, fix))
    if applies and d.proxy_choice.mode != "none":
        d.skip_rest(phrase(msg.SKIP_PROXY_DOES_NOT_ANSWER))
        return None
    return route


async def check_network(d: Doctor, route: ProxyRoute) -> bool:
    """DNS, TCP and TLS; True when HTTP checks can follow."""
    parts = urlsplit(d.url)
    via_proxy = route.proxy is not None
    if via_proxy:
        address = _proxy_address(route.proxy or "")
        assert address is not None  # check_proxy stopped the run for a proxy it cannot read
        host, port = address
        who: Phrase = phrase(msg.EV_PROXY_AT, address=f"{host}:{port}")
    else:
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        who = data(f"{host}:{port}")
    addresses = await _check_dns(d, host, port, via_proxy)
    if addresses is None:
        return False
    target = await _check_tcp(d, host, port, who, addresses)
    if target is None:
        return False
    if parts.scheme != "https":
        note = [phrase(msg.SKIP_PLAIN_HTTP)]
        if not is_loopback(d.url):
            note.append(phrase(msg.SKIP_PLAIN_HTTP_KEY_UNENCRYPTED))
        d.add(skipped("tls", note, applies=False))
        return True
    if via_proxy:
        d.add(
            skipped(
                "tls",
                phrase(msg.SKIP_TLS_THROUGH_PROXY),
                applies=False,
            )
        )
        return True
    return await check_tls(d, parts.hostname or host, target, port)


async def _check_dns(d: Doctor, host: str, port: int, via_proxy: bool) -> list[str] | None:
    """The host's addresses (an IP address is its own), or None when it does not resolve."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        d.add(checked("dns", True, phrase(msg.EV_HOST_IS_IP, host=host)))
        return [host.strip("[]")]
    start = time.perf_counter()
    try:
        async with asyncio.timeout(d.timeout_s):
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
    except (OSError, TimeoutError) as exc:
        problem = (
            phrase(msg.EV_NO_ANSWER_WITHIN, seconds=f"{d.timeout_s:g}")
            if isinstance(exc, TimeoutError)
            else data(exc)
        )
        d.add(
            checked(
                "dns",
                False,
                phrase(msg.EV_LOOKING_UP, host=host, problem=problem),
                phrase(
                    msg.HOST_NAME_HOST_DOES_NOT_RESOLVE,
                    host=host,
                    url=phrase(msg.PROXY_URL) if via_proxy else phrase(msg.BASE_URL),
                ),
                phrase(msg.CHECK_SPELLING_HOST_COPY_PROVIDER),
            )
        )
        d.skip_rest(phrase(msg.SKIP_HOST_DOES_NOT_RESOLVE, host=host))
        return None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    ms = (time.perf_counter() - start) * 1e3
    shown = ", ".join(addresses[:4]) + (" …" if len(addresses) > 4 else "")
    d.add(checked("dns", True, phrase(msg.EV_RESOLVED, host=host, addresses=shown, ms=f"{ms:.0f}")))
    return addresses


async def _check_tcp(
    d: Doctor, host: str, port: int, who: Phrase, addresses: list[str]
) -> str | None:
    """The address a TCP connection opened to (of the first three), or None."""
    why: Phrase | None = data("no address")
    ms = 0.0
    target = addresses[0]
    for target in addresses[:3]:
        ms, why = await _tcp_connect(target, port, d.timeout_s)
        if why is None:
            break
    shown_ip = f" ({target})" if target != host.strip("[]") else ""
    if why is None:
        connected = phrase(msg.EV_CONNECTED, who=who, ip=shown_ip, ms=f"{ms:.1f}")
        d.add(checked("tcp", True, connected))
        return target
    refused = "refused" in str(why)
    d.add(
        checked(
            "tcp",
            False,
            phrase(msg.EV_CONNECT_FAILED, who=who, ip=shown_ip, why=why),
            phrase(
                msg.NOTHING_LISTENS_WHO_SERVER_NOT_RUNNING
                if refused
                else msg.WHO_CANNOT_REACHED_WHY_FIREWALL_WRONG,
                who=who,
                why=why,
            ),
            phrase(
                msg.START_SERVER_CORRECT_PORT_BASE_URL
                if refused
                else msg.CHECK_HOST_PORT_IF_NETWORK_NEEDS
            ),
        )
    )
    d.skip_rest(phrase(msg.SKIP_NO_TCP, who=who))
    return None


async def check_tls(d: Doctor, hostname: str, address: str, port: int) -> bool:
    context = d.ssl_context()
    start = time.perf_counter()
    try:
        async with asyncio.timeout(d.timeout_s):
            _, writer = await asyncio.open_connection(
                address, port, ssl=context, server_hostname=hostname
            )
    except ssl.SSLCertVerificationError as exc:
        message = exc.verify_message or str(exc)
        d.add(
            checked(
                "tls",
                False,
                phrase(msg.EV_TLS_HANDSHAKE_FAILED, host=hostname, port=port, message=message),
                _certificate_cause(message, hostname),
                phrase(msg.IF_CORPORATE_PROXY_ANTIVIRUS_INSPECTS_TLS),
            )
        )
        d.skip_rest(phrase(msg.SKIP_TLS_FAILED))
        return False
    except (ssl.SSLError, OSError, TimeoutError) as exc:
        text = str(exc) or type(exc).__name__
        plain = "WRONG_VERSION_NUMBER" in text.upper() or "record layer" in text.lower()
        d.add(
            checked(
                "tls",
                False,
                phrase(msg.EV_TLS_HANDSHAKE_FAILED, host=hostname, port=port, message=text),
                phrase(
                    msg.PORT_DOES_NOT_SPEAK_TLS_SERVER
                    if plain
                    else msg.TLS_HANDSHAKE_FAILED_OLD_TLS_VERSION
                ),
                phrase(
                    msg.USE_HTTP_INSTEAD_OF_HTTPS_FOR_PORT
                    if plain
                    else msg.CHECK_URL_SCHEME_PORT_WITHOUT_PROXY,
                    port=port,
                ),
            )
        )
        d.skip_rest(phrase(msg.SKIP_TLS_FAILED))
        return False
    ms = (time.perf_counter() - start) * 1e3
    ssl_object = writer.get_extra_info("ssl_object")
    version = ssl_object.version() if ssl_object is not None else "TLS"
    cert = ssl_object.getpeercert() if ssl_object is not None else None
    writer.close()
    try:
        await writer.wait_closed()
    except (OSError, ssl.SSLError):
        pass
    evidence = [phrase(msg.EV_TLS_DONE, version=version, host=hostname, ms=f"{ms:.0f}")]
    if cert:
        subject = dict(x[0] for x in cert.get("subject", ()) if x)
        evidence.append(phrase(msg.EV_CERTIFICATE_FOR, name=subject.get("commonName", "?")))
        if cert.get("notAfter"):
            evidence.append(phrase(msg.EV_VALID_UNTIL, date=cert["notAfter"]))
    if not d.verify_tls:
        evidence.append(phrase(msg.EV_VERIFICATION_OFF))
    d.add(checked("tls", True, evidence))
    return True


def _certificate_cause(message: str, hostname: str) -> Phrase:
    lowered = message.lower()
    if "expired" in lowered:
        return phrase(msg.SERVER_CERTIFICATE_HAS_EXPIRED)
    if "self-signed" in lowered or "self signed" in lowered:
        return phrase(msg.CERTIFICATE_SELF_SIGNED_NOT_ISSUED_TRUSTED)
    if "local issuer" in lowered or "issuer" in lowered:
        return phrase(msg.CERTIFICATE_ISSUER_NOT_TRUSTED_HERE)
    if "hostname" in lowered or "ip address mismatch" in lowered:
        return phrase(
            msg.CERTIFICATE_ANOTHER_HOST_NAME_NOT_HOST,
            host=hostname,
        )
    if "not yet valid" in lowered:
        return phrase(msg.CERTIFICATE_NOT_VALID_YET_CHECK_MACHINE)
    return phrase(msg.CERTIFICATE_REFUSED_MESSAGE, message=message)
