"""The connection doctor: an ordered set of checks that say what is wrong with a connection.

Each check passes or fails with the evidence that was seen (status codes, times, headers, the
first bytes of a body; always redacted) and, when it fails, the cause and the fix in plain words.
A check that an earlier failure makes meaningless (no TCP connection: no HTTP checks) is
`skipped`, with the reason as its evidence; a skipped check is not a failure. A skipped check's
`ok` says which kind of skip it is: True when the check does not apply (plain http has no TLS),
False when an earlier failure made it meaningless. So the exit code is 0 exactly when every
check is `ok`.

The checks, in order (their `name`):

    base_url     the base URL's shape: a pasted .../chat/completions, a query string, no scheme
    proxy        *_PROXY / NO_PROXY in effect; the route to this host (the client's own, from
                 core/access/proxy_route.py) with the variable and NO_PROXY entry that
                 decided; a dead proxy
    dns          the host name resolves
    tcp          a TCP connection opens (and how long it took)
    tls          the TLS handshake for https (certificate problems named)
    models_path  /models and the protocol's path (/chat/completions, /responses, /messages) at
                 the base URL and with /v1 added or removed; when that path is not there but
                 another protocol's is, which protocol the URL speaks
    auth         401/403: no key, whitespace or quotes around it, rejected, another header
    model        the model is on the server's list; close matches when it is not
    stream       a short (16-token) streamed request in the protocol: TTFT, usage (and whether
                 it is made up), role-only first chunk, reasoning
    rate_limit   a 429 / 402 / quota answer anywhere, with the wait it asks for (Retry-After,
                 retry-after-ms, a gateway's *-retry-after)
    html         an HTML page where JSON was expected (proxy login page, the web site)
    baseline     network round trip as runs measure it (core/run/baseline.py): on the protocol's
                 path, GET /models when no model answered; the evidence names the method

Every check speaks the chosen protocol (`diagnose(protocol=...)`): Anthropic's key goes in
`x-api-key` with `anthropic-version`, its list and errors have Anthropic's shapes. A check that
sent requests names the protocol and path it tested (`Check.tested`, "anthropic /v1/messages").

Every error that gateway troubleshooting guides list maps to a check (`TROUBLESHOOTING_ERRORS`).

The package holds one module per group of checks: `network` (base_url, proxy, dns, tcp, tls),
`paths` (models_path, and the order of the HTTP checks), `protocols` (each protocol's path and
key header, and the probe of the others), `auth`, `model`, `stream`, `baseline`,
`rate_limit`, `html`; `answers` reads the HTTP answers, `state` holds one run's state and probes,
`checks` the `Check` record, and `messages` every sentence the doctor says, marked for
translation. The proxy check reports `workbench.core.access.proxy_route`'s decision: the route the
client takes.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.core.access.providers import AuthScheme, Protocol, ProxyChoice
from workbench.core.access.proxy_route import PROXY_VARIABLES, ProxyRoute, proxy_variables
from workbench.core.access.proxy_route import route_for as proxy_route
from workbench.core.doctor import messages as msg
from workbench.core.doctor.checks import CHECK_NAMES, TROUBLESHOOTING_ERRORS, Check, passed
from workbench.core.doctor.html import check_html
from workbench.core.doctor.key_text import key_problems as _key_problems
from workbench.core.doctor.model import suggest_models
from workbench.core.doctor.network import check_base_url, check_network, check_proxy
from workbench.core.doctor.paths import check_http
from workbench.core.doctor.rate_limit import check_rate_limit
from workbench.core.doctor.state import Doctor
from workbench.core.foundation.i18n import Phrase, phrase


async def _run(d: Doctor) -> list[Check]:
    if not check_base_url(d):
        d.skip_rest(phrase(msg.NO_USABLE_BASE_URL))
        return d.ordered()
    route = await check_proxy(d)
    if route is not None and await check_network(d, route):
        await check_http(d)
    check_rate_limit(d)
    check_html(d)
    d.skip_rest(phrase(msg.AN_EARLIER_CHECK_FAILED))
    return d.ordered()


async def diagnose(
    base_url: str,
    api_key: str | None,
    model: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    proxy: ProxyChoice | None = None,
    verify_tls: bool = True,
    timeout_s: float = 10.0,
    key_source: str | Phrase = "",
    protocol: Protocol = "chat",
    auth: AuthScheme | None = None,
) -> list[Check]:
    """Run every check against `base_url` in order; never raises for a connection problem.

    `key_source` says where the key came from (e.g. "environment variable $X, not set in this
    shell"; a phrase is said in the UI's language) for the auth check's evidence; `proxy` None
    means the system proxy settings.
    `protocol` is the wire protocol the checks speak (its path, key header, version header and
    error shapes); `auth` how the key is sent, None for the protocol's own way.
    """
    doctor = Doctor(
        base_url, api_key, model, headers, proxy, verify_tls, timeout_s, key_source, protocol, auth
    )
    return await _run(doctor)


__all__ = [
    "CHECK_NAMES",
    "PROXY_VARIABLES",
    "TROUBLESHOOTING_ERRORS",
    "Check",
    "ProxyRoute",
    "_key_problems",
    "diagnose",
    "passed",
    "proxy_route",
    "proxy_variables",
    "suggest_models",
]
