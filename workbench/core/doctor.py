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
    proxy        *_PROXY / NO_PROXY in effect, whether they apply to this host, a dead proxy
    dns          the host name resolves
    tcp          a TCP connection opens (and how long it took)
    tls          the TLS handshake for https (certificate problems named)
    models_path  /models and /chat/completions at the base URL and with /v1 added or removed
    auth         401/403: no key, whitespace or quotes around it, rejected, another header
    model        the model is on the server's list; close matches when it is not
    stream       a short (16-token) streamed chat request: TTFT, usage (and whether it is made
                 up), role-only first chunk, reasoning
    rate_limit   a 429 / 402 / quota answer anywhere, with the wait it asks for (Retry-After,
                 retry-after-ms, a gateway's *-retry-after)
    html         an HTML page where JSON was expected (proxy login page, the web site)
    baseline     network round trip: median of 3 GET /models

Every error that gateway troubleshooting guides list maps to a check (`TROUBLESHOOTING_ERRORS`).
"""

from __future__ import annotations

import asyncio
import difflib
import ipaddress
import json
import re
import socket
import ssl
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx2

from workbench.core.clients import check_headers, make_client, network_baseline_ms, plan_route
from workbench.core.errors import (
    GATEWAY_AUTH_CAUSE,
    GATEWAY_AUTH_FIX,
    GATEWAY_COOLDOWN_WORDS,
    UnsendableHeader,
    diagnosis,
    looks_like_html,
    retry_after_from_headers,
    says_auth,
)
from workbench.core.i18n import QT_TRANSLATE_NOOP, Phrase, joined, marked, phrase
from workbench.core.providers import ProxyChoice, is_loopback, normalize_base_url
from workbench.core.results import ErrorClass, RequestResult
from workbench.core.secrets import redact, redact_and_cut, register_secret

if TYPE_CHECKING:  # the SDK costs ~1 s to import: loaded on first use
    import openai

CHECK_NAMES: tuple[str, ...] = (
    "base_url",
    "proxy",
    "dns",
    "tcp",
    "tls",
    "models_path",
    "auth",
    "model",
    "stream",
    "rate_limit",
    "html",
    "baseline",
)

# Each error that troubleshooting guides for LLM gateways and coding tools list (the phrase as
# such a guide writes it, often in Chinese) -> the checks that detect it and say its cause.
TROUBLESHOOTING_ERRORS: dict[str, tuple[str, ...]] = {
    "401 Unauthorized": ("auth",),  # key incomplete, spaces, quotes, Bearer format, expired
    "有没有多余的空格": ("auth",),  # a key with stray whitespace
    "多写引号": ("auth",),  # quotes around the key
    "OAuth": ("auth",),  # a leftover OAuth token sent instead of the key
    # an env var not set in this shell: the key's source is shown
    "配置改了不生效": ("auth", "base_url"),
    "404 Not Found": ("models_path",),
    "多写了/v1": ("models_path",),  # an extra /v1
    "/v1反而会 404": ("models_path",),
    "也不要加/chat/completions": ("base_url",),  # a full endpoint URL pasted as the base URL
    "返回 429": ("rate_limit",),
    "并发过高触发限流": ("rate_limit",),
    "insufficient quota": ("rate_limit",),
    "余额不足": ("rate_limit",),
    "local proxy failed": ("proxy",),
    "reading choices": ("html", "stream", "model"),  # HTML or a JSON shape that is not OpenAI's
    "model not found": ("model", "stream"),
    "模型名不识别": ("model",),
    "timeout": ("tcp", "stream"),  # connect timeout; first-token timeout
    "长上下文请求超时": ("stream",),
    "返回内容被截断": ("stream",),  # finish_reason "length": max_tokens cut the answer
}

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

# Several tokens, not one: usage that counts fewer tokens than arrived (made up by a gateway)
# shows only when more than one token comes.
_PROBE_PROMPT = [{"role": "user", "content": "Count from one to ten in words."}]
_PROBE_TOKENS = 16
_BODY_KEEP = 4000
_PROBE_READ_BYTES = 64 << 10  # of a probe's answer; an endless body is not read further
_PROXY_PROBE_TIMEOUT_S = 3.0
_ALT_AUTH_HEADERS = ("x-api-key", "api-key")
# Words with which a gateway's error names the upstream behind it (LiteLLM: "litellm.
# NotFoundError: OpenAIException - Error code: 404 ...", "No deployments available")
_UPSTREAM_WORDS = re.compile(
    r"upstream|litellm\.|exception|deployment|provider|api_base|error code: \d{3}|channel|渠道",
    re.IGNORECASE,
)
# the headers `errors.retry_after_from_headers` reads: Retry-After, retry-after-ms, and both
# behind a gateway's prefix (LiteLLM: llm_provider-retry-after)
_RETRY_HEADER_ENDINGS = ("retry-after", "retry-after-ms")
_QUOTA_WORDS = re.compile(r"quota|insufficient|balance|credit|余额|额度", re.IGNORECASE)


@dataclass(frozen=True)
class Check:
    """One check's outcome. Its cause and fix are phrases (workbench.core.i18n): the UI shows
    them in its language; `cause` and `fix` are their English."""

    name: str
    ok: bool
    evidence: str
    cause_phrases: tuple[Phrase, ...] = ()
    fix_phrases: tuple[Phrase, ...] = ()
    skipped: bool = False

    @property
    def cause(self) -> str:
        return redact("".join(str(p) for p in self.cause_phrases))

    @property
    def fix(self) -> str:
        return redact("".join(str(p) for p in self.fix_phrases))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "evidence": self.evidence,
            "cause": self.cause,
            "fix": self.fix,
            "skipped": self.skipped,
        }


Said = Phrase | Sequence[Phrase]


def _phrases(text: Said) -> tuple[Phrase, ...]:
    """A cause or a fix as phrases, every data field redacted."""
    parts = (text,) if isinstance(text, Phrase) else tuple(text)
    return tuple(p.map_fields(redact) for p in parts)


def _check(
    name: str, ok: bool, evidence: str, cause: Said = (), fix: Said = (), skipped: bool = False
) -> Check:
    """Every text a check carries goes through `redact`: no key ever leaves in a Check."""
    return Check(name, ok, redact(evidence), _phrases(cause), _phrases(fix), skipped)


def _skip(name: str, reason: str, *, applies: bool = True) -> Check:
    """A check that did not run. `applies=False`: it does not apply here (plain http has no
    TLS), so it is ok; otherwise an earlier failure made it meaningless, so it is not ok."""
    return _check(name, not applies, f"skipped: {reason}", skipped=True)


def passed(checks: list[Check]) -> bool:
    """True when every check that ran passed (skipped checks are not failures)."""
    return all(c.ok for c in checks if not c.skipped)


# ---------------------------------------------------------------------------------------------
# Proxies
# ---------------------------------------------------------------------------------------------


def _mask_proxy(url: str) -> str:
    """A proxy URL as it may be shown: any password masked."""
    return re.sub(r"//([^:/@\s]+):[^@/\s]+@", r"//\1:***@", url)


def proxy_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy variables that are set (upper and lower case), in a fixed order."""
    import os

    env = os.environ if environ is None else environ
    return {name: env[name] for name in PROXY_VARIABLES if env.get(name, "").strip()}


@dataclass(frozen=True)
class ProxyRoute:
    """How requests to a URL travel: `proxy` is None for a direct connection."""

    proxy: str | None
    source: str  # the variable or setting that chose it
    reason: str  # in plain words, for the evidence


def proxy_route(url: str, choice: ProxyChoice | None = None) -> ProxyRoute:
    """Which proxy a request to `url` uses under `choice` (None = the system environment).

    Loopback hosts are always reached directly under the system setting: a global proxy must
    not break a local server.
    """
    choice = choice or ProxyChoice()
    if choice.mode == "none":
        return ProxyRoute(None, "provider", "direct (the provider's proxy setting is 'none')")
    if choice.mode == "url":
        return ProxyRoute(choice.url, "provider", f"the provider's proxy {_mask_proxy(choice.url)}")
    parts = urlsplit(url)
    host = parts.hostname or ""
    if is_loopback(url):
        return ProxyRoute(
            None, "loopback", f"{host} is loopback: reached directly, *_PROXY ignored"
        )
    proxies = urllib.request.getproxies_environment()
    scheme = parts.scheme.lower()
    proxy = proxies.get(scheme) or proxies.get("all")
    if not proxy:
        return ProxyRoute(None, "none", "no proxy variable applies: direct")
    if proxies.get("no") and urllib.request.proxy_bypass_environment(  # type: ignore[attr-defined]
        host, proxies
    ):
        return ProxyRoute(None, "no_proxy", f"NO_PROXY matches {host}: direct")
    var = _variable_for(scheme if proxies.get(scheme) else "all")
    if "://" not in proxy:
        proxy = "http://" + proxy
    return ProxyRoute(proxy, var, f"{var} applies: via {_mask_proxy(proxy)}")


def _variable_for(scheme: str) -> str:
    variables = proxy_variables()
    for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY"):
        if name in variables:
            return name
    return f"{scheme.upper()}_PROXY"


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


async def _tcp_connect(host: str, port: int, timeout_s: float) -> tuple[float, str | None]:
    """(milliseconds, None) when a TCP connection opens; (ms, why not) otherwise."""
    start = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            _, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        return (time.perf_counter() - start) * 1e3, f"no answer within {timeout_s:g} s"
    except ConnectionRefusedError:
        return (time.perf_counter() - start) * 1e3, "connection refused (nothing listens there)"
    except OSError as exc:
        return (time.perf_counter() - start) * 1e3, exc.strerror or type(exc).__name__
    elapsed = (time.perf_counter() - start) * 1e3
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass
    return elapsed, None


# ---------------------------------------------------------------------------------------------
# HTTP answers
# ---------------------------------------------------------------------------------------------


@dataclass
class _Answer:
    """One HTTP exchange as the doctor saw it."""

    method: str
    url: str
    status: int | None = None
    content_type: str = ""
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    ms: float = 0.0
    error: str | None = None
    proxy_error: bool = False
    timeout: bool = False

    @property
    def html(self) -> bool:
        return self.status is not None and looks_like_html(self.content_type, self.body)

    def json(self) -> Any:
        if self.status is None or self.html:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def message(self) -> str:
        """The server's error message (or the body's first bytes)."""
        data = self.json()
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                return redact_and_cut(str(err.get("message") or err.get("code") or ""), 200)
            return redact_and_cut(str(err), 200)
        return _first_bytes(self.body, 120)

    @property
    def retry_after(self) -> str | None:
        """The answer's wait headers as said (`Retry-After: 2`), or None when it has none."""
        said = [
            f"{'Retry-After' if name == 'retry-after' else name}: {value}"
            for name, value in sorted(self.headers.items())
            if name.endswith(_RETRY_HEADER_ENDINGS)
        ]
        return "; ".join(said) or None

    @property
    def retry_after_s(self) -> float | None:
        return retry_after_from_headers(self.headers)

    def label(self, base: str | None = None) -> str:
        path = self.url[len(base) :] if base and self.url.startswith(base) else self.url
        return f"{self.method} {path or '/'}"

    def outcome(self) -> str:
        if self.status is None:
            return f"no answer ({self.error})"
        kind = "HTML" if self.html else ("JSON" if self.json() is not None else "")
        text = f"HTTP {self.status}" + (f" {kind}" if kind else "")
        return f"{text} ({self.ms:.0f} ms)"


def _first_bytes(text: str, n: int) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return redact_and_cut(flat, n, ellipsis="…")


def _html_title(body: str) -> str:
    match = re.search(r"<title[^>]*>(.*?)</title>", body, re.IGNORECASE | re.DOTALL)
    return _first_bytes(match.group(1), 80) if match else ""


def _route(answer: _Answer) -> str:
    """Whether a path exists: 'yes', 'no', 'gated' (refused before routing?) or 'unknown'."""
    if answer.status is None:
        return "unknown"
    if answer.html:
        return "no" if answer.status in (200, 404) else "unknown"
    if answer.status in (404, 405):
        return "no"
    if answer.status < 300 and answer.json() is not None:
        return "yes"
    if answer.status in (400, 413, 415, 422):
        return "yes"  # the path exists: the server read the request and refused it
    if answer.status in (401, 402, 403, 407, 429):
        return "gated"
    return "unknown"


def _verdict(answers: list[_Answer]) -> str:
    routes = [_route(a) for a in answers]
    for word in ("yes", "gated", "unknown"):
        if word in routes:
            return word
    return "no"


def _alternative(url: str) -> tuple[str, str]:
    """The base URL with /v1 removed (when it ends with /v1) or added, and which it was."""
    if re.search(r"/v1$", url, re.IGNORECASE):
        return url[:-3], "removed"
    return url + "/v1", "added"


# ---------------------------------------------------------------------------------------------
# The doctor
# ---------------------------------------------------------------------------------------------


def _key_problems(raw: str | None) -> tuple[str | None, list[Phrase]]:
    """(the key to send, what is wrong with its text). The key text itself is never returned
    inside the problems."""
    if raw is None or raw == "":
        return None, []
    problems: list[Phrase] = []
    key = raw.strip()
    if key != raw:
        where: list[Phrase] = []
        lead, trail = raw[: len(raw) - len(raw.lstrip())], raw[len(raw.rstrip()) :]
        if "\n" in lead or "\r" in lead:
            where.append(phrase(QT_TRANSLATE_NOOP("Doctor", "a leading newline")))
        elif lead:
            where.append(phrase(QT_TRANSLATE_NOOP("Doctor", "leading spaces")))
        if "\n" in trail or "\r" in trail:
            where.append(phrase(QT_TRANSLATE_NOOP("Doctor", "a trailing newline")))
        elif trail:
            where.append(phrase(QT_TRANSLATE_NOOP("Doctor", "trailing spaces")))
        both = (
            phrase(
                QT_TRANSLATE_NOOP("Doctor", "{first} and {second}"), first=where[0], second=where[1]
            )
            if len(where) == 2
            else where[0]
        )
        problems.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "the key has {where} (whitespace around it: a copy-paste or `$(cat file)` "
                    "leftover); sent as is, servers answer 401, and a newline cannot even be "
                    "sent in a header",
                ),
                where=both,
            )
        )
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        key = key[1:-1].strip()
        problems.append(
            phrase(
                QT_TRANSLATE_NOOP("Doctor", "the key is wrapped in quotes, which became part of it")
            )
        )
    if key.lower().startswith("bearer "):
        key = key[7:].strip()
        problems.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor", "the key starts with 'Bearer ': the client adds that word itself"
                )
            )
        )
    if re.search(r"\s", key):
        problems.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor", "the key has spaces inside it (an incomplete or joined copy?)"
                )
            )
        )
    if not key.isascii():
        problems.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "the key has non-ASCII characters: probably the placeholder text of an "
                    "example (like 你的_API_Key) rather than a real key",
                )
            )
        )
    return key or None, problems


def _sendable(key: str) -> bool:
    """Whether a key can go into a header at all (the auth check names what is wrong)."""
    try:
        check_headers(key)
    except UnsendableHeader:
        return False
    return True


class _Doctor:
    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str | None,
        headers: Mapping[str, str] | None,
        proxy: ProxyChoice | None,
        verify_tls: bool,
        timeout_s: float,
        key_source: str,
    ) -> None:
        self.raw_url = base_url
        self.raw_key = api_key
        register_secret(api_key)
        self.key, self.key_problems = _key_problems(api_key)
        register_secret(self.key)
        self.model = model.strip() if model else None
        self.headers = dict(headers or {})
        self.proxy_choice = proxy or ProxyChoice()
        self.verify_tls = verify_tls
        self.timeout_s = timeout_s
        self.key_source = key_source
        self.answers: list[_Answer] = []
        self.checks: dict[str, Check] = {}
        self.url = ""
        self.stream_result: RequestResult | None = None

    # plumbing

    def _add(self, check: Check) -> None:
        self.checks[check.name] = check

    def _skip_rest(self, reason: str) -> None:
        for name in CHECK_NAMES:
            if name not in self.checks:
                self._add(_skip(name, reason))

    def _request_headers(self, auth: str | None = "Authorization") -> dict[str, str]:
        out: dict[str, str] = {"Accept": "application/json"}
        if self.key and _sendable(self.key) and auth:
            out[auth] = f"Bearer {self.key}" if auth == "Authorization" else self.key
        for name, value in self.headers.items():
            out[name] = value
        return out

    def _ssl_context(self) -> ssl.SSLContext:
        # as make_client builds it: SSL_CERT_FILE / SSL_CERT_DIR apply
        return httpx2.create_ssl_context(verify=self.verify_tls, trust_env=True)

    def _http_client(self) -> httpx2.AsyncClient:
        """A plain httpx client for the raw probes, routed as make_client routes the SDK's."""
        route = plan_route(self.url, self.proxy_choice, "httpx")
        return httpx2.AsyncClient(
            proxy=route.proxy_url,
            trust_env=route.trust_env,
            verify=self._ssl_context(),
            timeout=httpx2.Timeout(self.timeout_s),
            follow_redirects=True,
        )

    async def _probe(
        self,
        client: httpx2.AsyncClient,
        method: str,
        url: str,
        *,
        payload: Any = None,
        auth: str | None = "Authorization",
        record: bool = True,
    ) -> _Answer:
        answer = _Answer(method, url)
        start = time.perf_counter()
        head = bytearray()
        encoding = "utf-8"
        try:
            # bounded in time and bytes: a server that streams forever gets timeout_s in all
            async with asyncio.timeout(self.timeout_s):
                async with client.stream(
                    method, url, json=payload, headers=self._request_headers(auth)
                ) as response:
                    answer.status = response.status_code
                    answer.content_type = response.headers.get("content-type", "")
                    answer.headers = {
                        k.lower(): v
                        for k, v in response.headers.items()
                        if k.lower() in ("www-authenticate", "content-type", "server")
                        or k.lower().endswith(_RETRY_HEADER_ENDINGS)
                        or k.lower().startswith(("x-litellm-", "x-ms-", "apim-request-id"))
                    }
                    encoding = response.encoding or "utf-8"
                    async for piece in response.aiter_bytes():
                        head += piece
                        if len(head) >= _PROBE_READ_BYTES:
                            break
        except httpx2.ProxyError as exc:
            answer.error, answer.proxy_error = f"proxy failed: {exc}", True
        except (httpx2.TimeoutException, TimeoutError):
            if answer.status is None:  # else an endless body: keep the answer and its start
                answer.error, answer.timeout = f"no answer within {self.timeout_s:g} s", True
        except (httpx2.HTTPError, OSError, ssl.SSLError) as exc:
            answer.status = None  # a body that broke off is no answer
            answer.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if answer.status is not None:
            answer.body = head.decode(encoding, "replace")[:_BODY_KEEP]
        answer.ms = (time.perf_counter() - start) * 1e3
        if record:
            self.answers.append(answer)
        return answer

    def _sdk_client(self) -> openai.AsyncOpenAI:
        """The client the app itself uses (make_client), with the provider's settings."""
        return make_client(
            self.url,
            self.key,
            connect_timeout_s=self.timeout_s,
            headers=self.headers or None,
            proxy=self.proxy_choice,
            verify_tls=self.verify_tls,
        )

    # the checks

    async def run(self) -> list[Check]:
        if not self._check_base_url():
            self._skip_rest("no usable base URL (see base_url)")
            return self._ordered()
        route = await self._check_proxy()
        if route is not None and await self._check_network(route):
            await self._check_http()
        self._check_rate_limit()
        self._check_html()
        self._skip_rest("an earlier check failed")
        return self._ordered()

    def _ordered(self) -> list[Check]:
        return [self.checks[name] for name in CHECK_NAMES]

    def _check_base_url(self) -> bool:
        try:
            normalized = normalize_base_url(self.raw_url)
        except ValueError as exc:
            self._add(
                _check(
                    "base_url",
                    False,
                    f"'{self.raw_url}'",
                    phrase(
                        QT_TRANSLATE_NOOP("Doctor", "the base URL is not usable: {problem}"),
                        problem=exc,
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "write the base URL the provider documents, like https://host/v1",
                        )
                    ),
                )
            )
            return False
        self.url = normalized.url
        serious = [n for n in normalized.notes if n != "removed trailing slashes"]
        evidence = f"'{self.raw_url}' → {self.url}"
        if normalized.notes:
            evidence += f" ({'; '.join(normalized.notes)})"
        if serious:
            cause = [
                phrase(
                    QT_TRANSLATE_NOOP("Doctor", "the base URL is not in base form: {notes}"),
                    notes="; ".join(serious),
                )
            ]
            if any("/chat/completions" in n for n in serious):
                cause.append(
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            " (a full endpoint URL was pasted; the SDK appends "
                            "/chat/completions itself, so the request would go to "
                            ".../chat/completions/chat/completions)",
                        )
                    )
                )
            fix = phrase(QT_TRANSLATE_NOOP("Doctor", "the base URL should be {url}"), url=self.url)
            self._add(_check("base_url", False, evidence, cause, fix))
        else:
            self._add(_check("base_url", True, evidence))
        return True

    async def _check_proxy(self) -> ProxyRoute | None:
        """None when the proxy that carries this host's requests does not answer."""
        variables = proxy_variables()
        route = proxy_route(self.url, self.proxy_choice)
        shown: dict[str, list[str]] = {}
        for name, value in variables.items():
            shown.setdefault(value, []).append(name)
        parts = [f"{'/'.join(names)}={_mask_proxy(value)}" for value, names in shown.items()]
        proxies = {v for k, v in variables.items() if not k.lower().startswith("no_")}
        if route.proxy:
            proxies.add(route.proxy)
        dead: list[tuple[str, str]] = []
        for value in sorted(proxies):
            address = _proxy_address(value)
            if address is None:
                dead.append((value, "not a proxy URL like http://host:port"))
                continue
            _, why = await _tcp_connect(*address, min(self.timeout_s, _PROXY_PROBE_TIMEOUT_S))
            if why is not None:
                dead.append((value, why))
        evidence = ("; ".join(parts) if parts else "no proxy variables set") + (
            f"; for this host: {route.reason}"
        )
        if self.proxy_choice.mode == "none" and proxies:
            evidence += " (the variables are ignored for this provider)"
        if not dead:
            self._add(_check("proxy", True, evidence))
            return route
        names = ", ".join(
            f"{'/'.join(shown.get(v, [route.source]))}={_mask_proxy(v)} ({why})" for v, why in dead
        )
        applies = route.proxy is not None and any(v == route.proxy for v, _ in dead)
        if applies:
            cause = phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "local proxy failed: requests to this host go through {proxy} ({source}), "
                    "and it does not answer: {names}",
                ),
                proxy=_mask_proxy(route.proxy or ""),
                source=route.source,
                names=names,
            )
        else:
            cause = phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "local proxy failed: {names} points at a proxy nothing answers on; this host "
                    "is reached directly ({reason}), but other hosts and other tools that read "
                    "these variables will fail",
                ),
                names=names,
                reason=route.reason,
            )
        fix = phrase(
            QT_TRANSLATE_NOOP(
                "Doctor",
                "unset it or fix it (start the proxy, or correct its host and port); "
                "a local server is reached directly",
            )
        )
        self._add(_check("proxy", False, evidence, cause, fix))
        if applies and self.proxy_choice.mode != "none":
            self._skip_rest("the proxy that carries this host's requests does not answer (proxy)")
            return None
        return route

    async def _check_network(self, route: ProxyRoute) -> bool:
        """DNS, TCP and TLS; True when HTTP checks can follow."""
        parts = urlsplit(self.url)
        via_proxy = route.proxy is not None
        if via_proxy:
            address = _proxy_address(route.proxy or "")
            assert address is not None
            host, port = address
            who = f"proxy {host}:{port}"
        else:
            host = parts.hostname or ""
            port = parts.port or (443 if parts.scheme == "https" else 80)
            who = f"{host}:{port}"
        # DNS
        try:
            ipaddress.ip_address(host.strip("[]"))
            addresses = [host.strip("[]")]
            self._add(_check("dns", True, f"{host} is an IP address: nothing to look up"))
        except ValueError:
            start = time.perf_counter()
            try:
                async with asyncio.timeout(self.timeout_s):
                    infos = await asyncio.get_running_loop().getaddrinfo(
                        host, port, type=socket.SOCK_STREAM
                    )
                addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
                ms = (time.perf_counter() - start) * 1e3
                shown = ", ".join(addresses[:4]) + (" …" if len(addresses) > 4 else "")
                self._add(_check("dns", True, f"{host} → {shown} ({ms:.0f} ms)"))
            except (OSError, TimeoutError) as exc:
                problem = (
                    f"no answer within {self.timeout_s:g} s"
                    if isinstance(exc, TimeoutError)
                    else str(exc)
                )
                self._add(
                    _check(
                        "dns",
                        False,
                        f"looking up {host}: {problem}",
                        phrase(
                            QT_TRANSLATE_NOOP(
                                "Doctor",
                                "the host name {host} does not resolve: a typo in the {url}, or "
                                "no network / DNS here",
                            ),
                            host=host,
                            url=phrase(QT_TRANSLATE_NOOP("Doctor", "proxy URL"))
                            if via_proxy
                            else phrase(QT_TRANSLATE_NOOP("Doctor", "base URL")),
                        ),
                        phrase(
                            QT_TRANSLATE_NOOP(
                                "Doctor",
                                "check the spelling of the host (copy it from the provider's "
                                "docs) and that this machine is online",
                            )
                        ),
                    )
                )
                self._skip_rest(f"{host} does not resolve (dns)")
                return False
        # TCP
        why: str | None = "no address"
        ms = 0.0
        target = addresses[0]
        for target in addresses[:3]:
            ms, why = await _tcp_connect(target, port, self.timeout_s)
            if why is None:
                break
        if why is not None:
            refused = "refused" in why
            self._add(
                _check(
                    "tcp",
                    False,
                    f"connect to {who}"
                    + (f" ({target})" if target != host.strip("[]") else "")
                    + f": {why}",
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "nothing listens on {who}: the server is not running, or the port "
                            "is wrong",
                        )
                        if refused
                        else QT_TRANSLATE_NOOP(
                            "Doctor",
                            "{who} cannot be reached ({why}): a firewall, a wrong host, or a "
                            "network that needs a proxy (a timeout)",
                        ),
                        who=who,
                        why=why,
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor", "start the server, or correct the port in the base URL"
                        )
                        if refused
                        else QT_TRANSLATE_NOOP(
                            "Doctor",
                            "check the host and port; if this network needs a proxy, set "
                            "HTTPS_PROXY; a local server is reached directly",
                        )
                    ),
                )
            )
            self._skip_rest(f"no TCP connection to {who} (tcp)")
            return False
        shown_ip = f" ({target})" if target != host.strip("[]") else ""
        self._add(_check("tcp", True, f"connected to {who}{shown_ip} in {ms:.1f} ms"))
        # TLS
        if parts.scheme != "https":
            note = "plain http: no TLS"
            if not is_loopback(self.url):
                note += " (the key travels unencrypted to a non-local host)"
            self._add(_skip("tls", note, applies=False))
            return True
        if via_proxy:
            self._add(
                _skip(
                    "tls",
                    "TLS runs through the proxy (CONNECT); the HTTP checks cover it",
                    applies=False,
                )
            )
            return True
        return await self._check_tls(parts.hostname or host, target, port)

    async def _check_tls(self, hostname: str, address: str, port: int) -> bool:
        context = self._ssl_context()
        start = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout_s):
                _, writer = await asyncio.open_connection(
                    address, port, ssl=context, server_hostname=hostname
                )
        except ssl.SSLCertVerificationError as exc:
            message = exc.verify_message or str(exc)
            self._add(
                _check(
                    "tls",
                    False,
                    f"TLS handshake with {hostname}:{port}: {message}",
                    _certificate_cause(message, hostname),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "if a corporate proxy or antivirus inspects TLS, install its root "
                            "certificate (or point SSL_CERT_FILE at it); otherwise tell the "
                            "provider. Turn verification off only for a lab server, with its "
                            "warning shown",
                        )
                    ),
                )
            )
            self._skip_rest("the TLS handshake failed (tls)")
            return False
        except (ssl.SSLError, OSError, TimeoutError) as exc:
            text = str(exc) or type(exc).__name__
            plain = "WRONG_VERSION_NUMBER" in text.upper() or "record layer" in text.lower()
            self._add(
                _check(
                    "tls",
                    False,
                    f"TLS handshake with {hostname}:{port}: {text}",
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor", "the port does not speak TLS: the server answers plain HTTP"
                        )
                        if plain
                        else QT_TRANSLATE_NOOP(
                            "Doctor",
                            "the TLS handshake failed (an old TLS version, or something between "
                            "you and the server cut it)",
                        )
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor", "use http:// instead of https:// for port {port}"
                        )
                        if plain
                        else QT_TRANSLATE_NOOP(
                            "Doctor", "check the URL's scheme and port; try without a proxy or VPN"
                        ),
                        port=port,
                    ),
                )
            )
            self._skip_rest("the TLS handshake failed (tls)")
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
        evidence = f"{version} with {hostname} in {ms:.0f} ms"
        if cert:
            subject = dict(x[0] for x in cert.get("subject", ()) if x)
            evidence += f"; certificate for {subject.get('commonName', '?')}"
            if cert.get("notAfter"):
                evidence += f", valid until {cert['notAfter']}"
        if not self.verify_tls:
            evidence += (
                "; WARNING: certificate verification is OFF for this provider (anyone on the "
                "path can read the key)"
            )
        self._add(_check("tls", True, evidence))
        return True

    async def _check_http(self) -> None:
        base = self.url
        alt, change = _alternative(base)
        try:
            client = self._http_client()
        except (ImportError, ValueError) as exc:  # e.g. a socks:// proxy without its package
            self._add(
                _check(
                    "models_path",
                    False,
                    f"cannot build an HTTP client: {exc}",
                    phrase(
                        QT_TRANSLATE_NOOP("Doctor", "the proxy URL cannot be used by this client")
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor", "use an http:// proxy, or set the provider's proxy to 'none'"
                        )
                    ),
                )
            )
            self._skip_rest("no HTTP client (models_path)")
            return
        async with client:
            probes = await asyncio.gather(
                self._probe(client, "GET", base + "/models"),
                self._probe(client, "POST", base + "/chat/completions", payload={}),
                self._probe(client, "GET", alt + "/models"),
                self._probe(client, "POST", alt + "/chat/completions", payload={}),
            )
            at_base, at_alt = list(probes[:2]), list(probes[2:])
            if not self._check_models_path(base, alt, change, at_base, at_alt):
                return
            models_answer, chat_answer = at_base if self.url == base else at_alt
            auth_ok = await self._check_auth(client, models_answer, chat_answer)
        if auth_ok is False:
            self._skip_rest("the server refused the key (auth)")
            return
        ids = self._check_model(models_answer, auth_ok)
        try:
            sdk = self._sdk_client()
        except UnsendableHeader as exc:  # the auth check has said what is wrong with the key
            d = diagnosis(ErrorClass.INVALID_KEY, str(exc))
            cause, fix = marked("ErrorFix", d.cause), marked("ErrorFix", d.fix)
            self._add(_check("stream", False, str(exc), cause, fix))
            self._skip_rest("no client (stream)")
            return
        except ValueError as exc:  # ProxyUnsupported: a SOCKS proxy without socksio
            self._add(
                _check(
                    "stream",
                    False,
                    f"cannot build the client: {exc}",
                    phrase(QT_TRANSLATE_NOOP("Doctor", "the proxy cannot be used")),
                    phrase(QT_TRANSLATE_NOOP("Doctor", "use an http:// proxy")),
                )
            )
            self._skip_rest("no client (stream)")
            return
        try:
            await self._check_stream(sdk, ids)
            await self._check_baseline(sdk, models_answer)
        finally:
            await sdk.close()

    def _check_models_path(
        self, base: str, alt: str, change: str, at_base: list[_Answer], at_alt: list[_Answer]
    ) -> bool:
        evidence = (
            f"{base}: "
            + ", ".join(f"{a.label(base)} → {a.outcome()}" for a in at_base)
            + f"; with /v1 {change} ({alt}): "
            + ", ".join(f"{a.label(alt)} → {a.outcome()}" for a in at_alt)
        )
        b, a = _verdict(at_base), _verdict(at_alt)
        if all(x.status is None for x in at_base + at_alt):
            first = at_base[0]
            self._add(
                _check(
                    "models_path",
                    False,
                    evidence,
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "the server accepted the connection but gave no HTTP answer ({error})",
                        ),
                        error=first.error,
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "check that the URL's scheme and port are the API's; raise the "
                            "timeout for a slow server; try without a proxy",
                        )
                    ),
                )
            )
            self._skip_rest("no HTTP answer (models_path)")
            return False
        if b == "yes":
            self._add(_check("models_path", True, evidence))
            return True
        if a == "yes" or (a == "gated" and b == "no"):
            if change == "added":
                what = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor", "the base URL lacks /v1: this server's API lives under /v1"
                    )
                )
            else:
                what = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor",
                        "the base URL has an extra /v1: this server's API root has no /v1 (the "
                        "SDK appends /chat/completions to the base URL as given)",
                    )
                )
            answers = phrase(
                QT_TRANSLATE_NOOP("Doctor", "{alt} probably answers, {base} does not")
                if a == "gated"
                else QT_TRANSLATE_NOOP("Doctor", "{alt} answers, {base} does not"),
                alt=alt,
                base=base,
            )
            cause = phrase(
                QT_TRANSLATE_NOOP("Doctor", "{what}; {answers} (the 404 of a wrong /v1)"),
                what=what,
                answers=answers,
            )
            fix = phrase(QT_TRANSLATE_NOOP("Doctor", "the base URL should be {url}"), url=alt)
            self._add(_check("models_path", False, evidence, cause, fix))
            self.url = alt  # the checks below use the URL that answers
            return True
        if b == "no" and a in ("no", "unknown"):
            html = any(x.html for x in at_base + at_alt)
            self._add(
                _check(
                    "models_path",
                    False,
                    evidence,
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "neither the base URL nor its /v1 variant answers /models or "
                            "/chat/completions: the path is wrong, or a web site (HTML) answered "
                            "instead of the API, or this is not an OpenAI-compatible API",
                        )
                        if html
                        else QT_TRANSLATE_NOOP(
                            "Doctor",
                            "neither the base URL nor its /v1 variant answers /models or "
                            "/chat/completions: the path is wrong, or this is not an "
                            "OpenAI-compatible API",
                        )
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "use the API base URL from the provider's docs (not the web site's "
                            "address)",
                        )
                    ),
                )
            )
            self._skip_rest("no API path answers (models_path)")
            return False
        statuses = ", ".join(x.outcome() for x in at_base)
        self._add(_skip("models_path", f"cannot tell which path is right ({statuses}); {evidence}"))
        return True

    async def _check_auth(
        self, client: httpx2.AsyncClient, models: _Answer, chat: _Answer
    ) -> bool | None:
        """True: accepted; False: refused (401/403); None: cannot tell."""
        leftover = next((k for k in self.headers if k.lower() == "authorization"), None)
        problems: list[Phrase] = list(self.key_problems)
        if leftover:
            problems.append(
                phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor",
                        "the provider's extra headers set '{header}', which replaces the key: a "
                        "leftover OAuth login or an old token is sent instead",
                    ),
                    header=leftover,
                )
            )
        source = f" (key from {self.key_source})" if self.key_source else ""
        judged = next(
            (
                a
                for a in (models, chat)
                if a.status is not None and not a.html and a.status not in (404, 405)
            ),
            None,
        )
        sent = "no key sent" if not self.key else "key sent as a Bearer token"
        refusal = _refused_by_words(models, chat)
        if refusal is not None:
            self._add(self._gateway_refusal(refusal, f"{sent}{source}", problems))
            return False
        if judged is None:
            if problems:
                self._add(
                    _check(
                        "auth",
                        False,
                        f"{sent}{source}; the server's answer could not be judged",
                        joined(problems),
                        _key_fix(problems),
                    )
                )
                return None
            self._add(_skip("auth", f"{sent}{source}; no JSON answer to judge the key by"))
            return None
        seen = f"{judged.label(self.url)} → HTTP {judged.status}"
        if judged.status in (401, 403):
            message = judged.message
            evidence = f"{sent}{source}; {seen}" + (f": {message}" if message else "")
            if judged.headers.get("www-authenticate"):
                evidence += (
                    f"; WWW-Authenticate: {redact_and_cut(judged.headers['www-authenticate'], 80)}"
                )
            if not self.key:
                cause = [
                    phrase(QT_TRANSLATE_NOOP("Doctor", "no key was sent and the server wants one"))
                ]
                if self.key_source:
                    cause.append(
                        phrase(
                            QT_TRANSLATE_NOOP("Doctor", "; the key should come from {source}"),
                            source=self.key_source,
                        )
                    )
                fix = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor",
                        "set the key: --api-key-env VAR, or the provider's key; for an "
                        "environment variable, export it in this shell (a changed config needs a "
                        "new terminal or a reloaded window)",
                    )
                )
                self._add(_check("auth", False, evidence, cause, fix))
                return False
            other = await self._other_header()
            cause: Said
            fix: Said
            if other is not None:
                cause = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor",
                        "the server wants the key in the header '{header}', not in "
                        "'Authorization: Bearer'",
                    ),
                    header=other,
                )
                fix = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor", "add the header '{header}: <key>' to the provider's extra headers"
                    ),
                    header=other,
                )
            elif leftover:
                cause = problems[-1]
                fix = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor", "remove the '{header}' header from the provider's extra headers"
                    ),
                    header=leftover,
                )
            else:
                hinted = re.search(r"\b(x-api-key|api-key|x-goog-api-key)\b", message, re.I)
                rejected = [
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "the key was sent and rejected: mistyped, copied incompletely, "
                            "deleted or expired, or a key of another provider",
                        )
                    )
                ]
                if hinted:
                    rejected.append(
                        phrase(
                            QT_TRANSLATE_NOOP(
                                "Doctor", "; the server mentions the header '{header}'"
                            ),
                            header=hinted.group(1),
                        )
                    )
                cause = [*joined(problems), Phrase("; "), *rejected] if problems else rejected
                fix = phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor",
                        "copy the key again from the provider's console (keys show once); check "
                        "that the variable holds it whole (echo ${VAR:0:6}); if a tool logged "
                        "in with OAuth before, clear its old login so the key is used",
                    )
                )
            self._add(_check("auth", False, evidence, cause, fix))
            return False
        evidence = f"{sent}{source}; {seen}: not refused"
        if judged.status in (402, 429) or (judged.status or 0) >= 500:
            evidence = f"{sent}{source}; {seen}: cannot tell whether the key is good"
        elif not self.key:
            evidence = f"no key sent{source}; {seen}: the server needs no key"
        if problems:
            self._add(
                _check(
                    "auth",
                    False,
                    evidence + " (checked with the whitespace and quotes removed)",
                    joined(problems),
                    _key_fix(problems),
                )
            )
            return True
        if judged.status in (402, 429) or (judged.status or 0) >= 500:
            self._add(_skip("auth", evidence))
            return None
        self._add(_check("auth", True, evidence))
        return True

    def _gateway_refusal(self, answer: _Answer, sent: str, problems: list[Phrase]) -> Check:
        """The key refused by a 400/404 that speaks of it, or by a refused model list."""
        evidence = f"{sent}; {answer.label(self.url)} → HTTP {answer.status}"
        evidence += f": {answer.message}" if answer.message else ""
        gateway = gateway_of(self.answers, self.url)
        if gateway:
            evidence += f"; the answers are those of {gateway}"
        cause: list[Phrase] = [marked("ErrorFix", GATEWAY_AUTH_CAUSE)]
        if problems:
            cause = [*joined(problems), Phrase("; "), *cause]
        fix = [*_key_fix(problems), Phrase("; ")] if problems else []
        return _check("auth", False, evidence, cause, [*fix, marked("ErrorFix", GATEWAY_AUTH_FIX)])

    async def _other_header(self) -> str | None:
        """The header name under which the server accepts the key, when Bearer is refused."""
        if not self.key or not self.key.isascii():
            return None
        async with self._http_client() as client:
            for name in _ALT_AUTH_HEADERS:
                answer = await self._probe(
                    client, "GET", self.url + "/models", auth=name, record=False
                )
                if answer.status is not None and answer.status < 300 and not answer.html:
                    return name
        return None

    def _check_model(self, answer: _Answer, auth_ok: bool | None) -> list[str] | None:
        """The server's model ids (None when it has no list)."""
        if answer.status is None or answer.status >= 300 or answer.html:
            reason = (
                "the server has no /models list; the streamed request tells whether the model "
                "exists"
                if answer.status in (404, 405)
                else f"GET /models did not answer with a list ({answer.outcome()})"
            )
            self._add(_skip("model", reason, applies=answer.status not in (404, 405)))
            return None
        data = answer.json()
        items = data.get("data") if isinstance(data, dict) else data
        if not isinstance(items, list) or not all(
            isinstance(m, dict) and isinstance(m.get("id"), str) for m in items
        ):
            self._add(
                _check(
                    "model",
                    False,
                    f"GET /models → HTTP {answer.status}: {_first_bytes(answer.body, 160)}",
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            'the model list is not the OpenAI shape {"data": [{"id": ...}]}: the '
                            "endpoint is not OpenAI-compatible (the 'reading choices' kind of "
                            "error)",
                        )
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "check that the base URL is the provider's OpenAI-compatible one",
                        )
                    ),
                )
            )
            return None
        ids = [str(m["id"]) for m in items]
        listed = ", ".join(ids[:8]) + (" …" if len(ids) > 8 else "")
        if not self.model:
            self._add(_check("model", True, f"{len(ids)} model(s) listed: {listed} (no --model)"))
            return ids
        if self.model in ids:
            self._add(_check("model", True, f"'{self.model}' is listed ({len(ids)} models)"))
            return ids
        suggestions = suggest_models(self.model, ids)
        evidence = f"'{self.model}' is not among the {len(ids)} listed: {listed}"
        d = diagnosis(ErrorClass.MODEL_NOT_FOUND, "")
        fix: Said
        if len(suggestions) > 1:
            fix = phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "use '{first}' (or {others}); model ids must match the server's list exactly",
                ),
                first=suggestions[0],
                others=", ".join(repr(s) for s in suggestions[1:]),
            )
        elif suggestions:
            fix = phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor", "use '{first}'; model ids must match the server's list exactly"
                ),
                first=suggestions[0],
            )
        else:
            fix = marked("ErrorFix", d.fix)
        cause = [marked("ErrorFix", d.cause), Phrase(" ('{model}')", (("model", self.model),))]
        self._add(_check("model", False, evidence, cause, fix))
        return ids

    async def _check_stream(self, client: openai.AsyncOpenAI, ids: list[str] | None) -> None:
        model = self.model
        picked = ""
        # an unlisted id is asked anyway: some servers list only the models they have loaded
        if not model:
            if not ids:
                self._add(_skip("stream", "no model to ask: pass --model M", applies=False))
                return
            model, picked = ids[0], " (the first listed; pass --model to choose)"
        from workbench.core.streaming import RequestSpec, stream_chat

        spec = RequestSpec(
            messages=_PROBE_PROMPT,
            max_tokens=_PROBE_TOKENS,
            temperature=0.0,
            first_token_timeout_s=self.timeout_s,
            stall_timeout_s=self.timeout_s,
            total_timeout_s=self.timeout_s * 2,
        )
        result = RequestResult(model=model, base_url=self.url)
        await stream_chat(client, result, spec)
        self.stream_result = result
        head = f"model '{model}'{picked}"
        if result.error_class is not None:
            what = (result.error_message or "").split(". Cause:")[0]
            d = diagnosis(result.error_class, "")
            cause = [marked("ErrorFix", d.cause)]
            if result.error_class is ErrorClass.EMPTY:
                cause.append(
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            " (no `choices` with text came back: the 'reading choices' error; the "
                            "endpoint or the model id routes to something not OpenAI-compatible)",
                        )
                    )
                )
            fix: Said = marked("ErrorFix", d.fix)
            if result.error_class is ErrorClass.NO_VISIBLE_TEXT:
                cause, fix = _no_visible_text(result)
            if result.error_class is ErrorClass.FIRST_TOKEN_TIMEOUT:
                cause.append(
                    phrase(
                        QT_TRANSLATE_NOOP("Doctor", "; even 1 token took over {seconds} s"),
                        seconds=f"{self.timeout_s:g}",
                    )
                )
            upstream = self._broken_route(result, ids)
            if upstream is not None:
                cause, fix = upstream
            self._add(_check("stream", False, f"{head}; {what}", cause, fix))
            return
        if ids is not None and model not in ids:
            self._add(
                _check(
                    "model",
                    True,
                    f"'{model}' is not listed, but served: the streamed request got an answer "
                    f"(the server lists {len(ids)}: {', '.join(ids[:8])}"
                    f"{' …' if len(ids) > 8 else ''}; some servers list only loaded models)",
                )
            )
        send = result.t_send or 0
        ttft = ((result.t_first_token or send) - send) / 1e6
        role_only = (
            result.t_first_chunk is not None
            and result.t_first_token is not None
            and result.t_first_chunk < result.t_first_token
        )
        finish = result.finish_reason or "none"
        if finish == "length":
            finish += (
                f" (expected with max_tokens={_PROBE_TOKENS}; in a run it means max_tokens cut "
                "the answer)"
            )
        evidence = (
            f"{head}; HTTP {result.http_status}; TTFT {ttft:.0f} ms; "
            f"first chunk role-only: {'yes' if role_only else 'no'}; usage: {_usage(result)}; "
            f"reasoning: {'yes' if result.reasoning_text else 'no'}; finish_reason: {finish}"
        )
        self._add(_check("stream", True, evidence))

    def _broken_route(
        self, result: RequestResult, ids: list[str] | None
    ) -> tuple[list[Phrase], Said] | None:
        """Cause and fix when a listed model's request fails with a 404, with a 5xx whose
        words name an upstream, or with LiteLLM's 429 for an upstream it has put in cooldown
        after a failure: the gateway's route to its upstream is broken."""
        status = result.http_status or 0
        message = (result.error_message or "").split(". Cause:")[0]
        if ids is None or result.model not in ids:
            return None
        upstream_failed = status >= 500 and _UPSTREAM_WORDS.search(message)
        if status != 404 and not upstream_failed and not GATEWAY_COOLDOWN_WORDS.search(message):
            return None
        words = re.sub(r"^HTTP \d+: ", "", message)
        cause = [
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "the gateway lists this model, but its upstream refuses it (HTTP {status}): "
                    "{words}",
                ),
                status=str(status),
                words=words,
            )
        ]
        fix = phrase(
            QT_TRANSLATE_NOOP(
                "Doctor",
                "check the gateway's route for this model: the upstream's model id, address and "
                "key in the gateway's configuration, and the upstream's own logs",
            )
        )
        return cause, fix

    async def _check_baseline(self, client: openai.AsyncOpenAI, answer: _Answer) -> None:
        if answer.status is None or answer.status >= 300 or answer.html:
            self._add(
                _skip(
                    "baseline",
                    "GET /models does not answer 200 here: nothing to time",
                    applies=answer.status not in (404, 405),
                )
            )
            return
        samples = 3
        baseline = await network_baseline_ms(client, samples, self.timeout_s)
        if baseline is None:
            self._add(
                _check(
                    "baseline",
                    False,
                    f"GET /models failed while timing {samples} round trips",
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor",
                            "the server answered /models once, then failed (flaky server or "
                            "network)",
                        )
                    ),
                    phrase(
                        QT_TRANSLATE_NOOP(
                            "Doctor", "retry; if it repeats, report it to the provider"
                        )
                    ),
                )
            )
            return
        self._add(_check("baseline", True, f"median of {samples} GET /models: {baseline:.1f} ms"))

    def _answers_seen(self) -> list[_Answer]:
        return [a for a in self.answers if a.status is not None]

    def _check_rate_limit(self) -> None:
        seen = self._answers_seen()
        limited = [
            a
            for a in seen
            if a.status in (402, 429)
            or ((a.status or 0) >= 400 and not a.html and _QUOTA_WORDS.search(a.message or ""))
        ]
        result = self.stream_result
        stream_limited = result is not None and result.error_class in (
            ErrorClass.RATE_LIMIT,
            ErrorClass.QUOTA,
        )
        total = len(seen) + (1 if result is not None else 0)
        if not limited and not stream_limited:
            if total == 0:
                self._add(_skip("rate_limit", "no HTTP answer to look at"))
            else:
                self._add(
                    _check("rate_limit", True, f"no 429, 402 or quota answer in {total} answer(s)")
                )
            return
        parts: list[str] = []
        retry: float | None = None
        quota = False
        for a in _distinct(limited):
            text = f"{a.label(self.url)} → HTTP {a.status}: {a.message}"
            if a.retry_after is not None:
                text += f"; {a.retry_after}"
                if a.retry_after_s is not None and retry is None:
                    retry = a.retry_after_s
            parts.append(text)
            quota = quota or a.status == 402 or bool(_QUOTA_WORDS.search(a.message or ""))
        if len(limited) > len(_distinct(limited)):
            parts.append(f"{len(limited)} answers like this")
        if stream_limited and result is not None:
            text = f"streamed request → {(result.error_message or '').split('. Cause:')[0]}"
            if result.retry_after_s is not None:
                text += f"; Retry-After: {result.retry_after_s:g} s"
                retry = result.retry_after_s if retry is None else retry
            parts.append(text)
            quota = quota or result.error_class is ErrorClass.QUOTA
        if retry is None:
            parts.append("no Retry-After header")
        d = diagnosis(ErrorClass.QUOTA if quota else ErrorClass.RATE_LIMIT, "")
        fix: list[Phrase] = [marked("ErrorFix", d.fix)]
        if retry is not None and not quota:
            wait = phrase(
                QT_TRANSLATE_NOOP("Doctor", "wait {seconds} s (Retry-After), then retry; "),
                seconds=f"{retry:g}",
            )
            fix.insert(0, wait)
        cause = marked("ErrorFix", d.cause)
        self._add(_check("rate_limit", False, "; ".join(parts), cause, fix))

    def _check_html(self) -> None:
        seen = self._answers_seen()
        pages = [a for a in seen if a.html]
        result = self.stream_result
        stream_html = result is not None and result.error_class is ErrorClass.HTML
        if not pages and not stream_html:
            if not seen and result is None:
                self._add(_skip("html", "no HTTP answer to look at"))
            else:
                total = len(seen) + (1 if result is not None else 0)
                self._add(_check("html", True, f"no HTML page in {total} answer(s)"))
            return
        parts = []
        for a in _distinct(pages):
            title = _html_title(a.body)
            parts.append(
                f"{a.method} {a.url} → HTTP {a.status} {a.content_type or 'no content-type'}"
                + (f", title '{title}'" if title else "")
                + f", starts '{_first_bytes(a.body, 60)}'"
                + (f", server {a.headers['server']}" if a.headers.get("server") else "")
            )
        if len(pages) > len(_distinct(pages)):
            parts.append(f"{len(pages)} HTML answers in all")
        if stream_html and result is not None:
            parts.append(f"streamed request → {(result.error_message or '').split('. Cause:')[0]}")
        d = diagnosis(ErrorClass.HTML, "")
        statuses = {a.status for a in pages}
        cause: Said
        if 407 in statuses:
            cause = phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor", "the proxy wants a login (HTTP 407) and answered with its own page"
                )
            )
        elif statuses and statuses <= {200}:
            cause = phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "a web page answered with HTTP 200: the base URL points at the web site, not "
                    "at the API (the 'reading choices' error: no JSON `choices` in an HTML page)",
                )
            )
        else:
            codes = ", ".join(str(s) for s in sorted(s for s in statuses if s is not None))
            cause = [
                marked("ErrorFix", d.cause),
                phrase(
                    QT_TRANSLATE_NOOP(
                        "Doctor",
                        "; here a proxy or gateway answered HTTP {codes} with its own error page",
                    ),
                    codes=codes or "?",
                ),
            ]
        fix = marked("ErrorFix", d.fix)
        self._add(_check("html", False, "; ".join(parts), cause, fix))


def _usage(result: RequestResult) -> str:
    """The stream check's word on usage: absent, made up by the gateway, or present."""
    counts = f"prompt {result.prompt_tokens}, completion {result.completion_tokens}"
    if result.usage_estimated or result.completion_tokens is None:
        return "absent (token counts will be estimated)"
    if result.usage_suspect:
        return (
            f"present but made up by the gateway ({counts}, yet {len(result.event_times)} text "
            "events came: the usage was counted by something other than the model's tokenizer, "
            "so runs mark it usage_suspect and time decoding by the events)"
        )
    return f"present ({counts})"


def _no_visible_text(result: RequestResult) -> tuple[list[Phrase], Said]:
    """Cause and fix when tokens came but none was visible text."""
    cause = [
        phrase(
            QT_TRANSLATE_NOOP(
                "Doctor",
                "the server generated tokens (completion_tokens {tokens}, finish_reason "
                "{finish}) but sent none as visible text: special tokens it does not decode "
                "(an end-of-turn or a thinking marker), or a character cut in the middle of "
                "its UTF-8 bytes. The model id is fine: it answered",
            ),
            tokens=str(result.completion_tokens),
            finish=str(result.finish_reason),
        )
    ]
    fix = phrase(
        QT_TRANSLATE_NOOP(
            "Doctor",
            "raise max_tokens (with finish_reason length the answer may not have reached any "
            "text yet); check the model's chat template and tokenizer on the server: does it "
            "stop at, or print, its end-of-turn token?",
        )
    )
    return cause, fix


def _refused_by_words(models: _Answer, chat: _Answer) -> _Answer | None:
    """The answer that refuses the key without a 401/403: a 400 or 404 whose error speaks of the
    key or of access, or a GET /models (which has no body to find fault with) refused with
    another 4xx. None when the model list was given, or nothing refuses."""
    if models.status is not None and models.status < 300:
        return None
    for answer in (models, chat):
        if answer.status in (400, 404) and not answer.html and says_auth(answer.body):
            return answer
    status = models.status or 0
    if 400 <= status < 500 and status not in (401, 402, 403, 404, 405, 407, 429):
        return None if models.html else models
    return None


# Header prefixes and names that gateways document on their answers
_GATEWAY_HEADERS: tuple[tuple[str, str], ...] = (
    ("x-litellm-", "a LiteLLM proxy"),
    ("apim-request-id", "Azure (API Management)"),
    ("x-ms-", "Azure"),
)


def gateway_of(answers: Sequence[_Answer], url: str) -> str | None:
    """The gateway the answers come from, when their headers or error shapes tell (with why)."""
    for answer in answers:
        for name in answer.headers:
            for prefix, gateway in _GATEWAY_HEADERS:
                if name.startswith(prefix):
                    return f"{gateway} (header {name})"
    for answer in answers:
        data = answer.json()
        err = data.get("error") if isinstance(data, dict) else None
        if not isinstance(err, dict):
            continue
        kind, message = str(err.get("type") or ""), str(err.get("message") or "")
        if kind == "no_db_connection" or message.lower().startswith("litellm."):
            return f"a LiteLLM proxy (error '{kind or message.split(':')[0]}')"
        if kind in ("one_api_error", "new_api_error"):
            name = "One API" if kind == "one_api_error" else "New API"
            return f"a {name} gateway (error type '{kind}')"
    host = (urlsplit(url).hostname or "").lower()
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        return "OpenRouter (host openrouter.ai)"
    if host.endswith((".openai.azure.com", ".azure-api.net")):
        return f"Azure (host {host})"
    return None


def _distinct(answers: list[_Answer], n: int = 2) -> list[_Answer]:
    """Up to n answers that differ in status or message, in order."""
    out: list[_Answer] = []
    keys: set[tuple[int | None, str]] = set()
    for a in answers:
        key = (a.status, a.message)
        if key not in keys and len(out) < n:
            keys.add(key)
            out.append(a)
    return out


def _certificate_cause(message: str, hostname: str) -> Phrase:
    lowered = message.lower()
    if "expired" in lowered:
        return phrase(QT_TRANSLATE_NOOP("Doctor", "the server's certificate has expired"))
    if "self-signed" in lowered or "self signed" in lowered:
        return phrase(
            QT_TRANSLATE_NOOP(
                "Doctor",
                "the certificate is self-signed, not issued by a trusted authority (a lab "
                "server, or a corporate proxy that inspects TLS)",
            )
        )
    if "local issuer" in lowered or "issuer" in lowered:
        return phrase(
            QT_TRANSLATE_NOOP(
                "Doctor",
                "the certificate's issuer is not trusted here (a missing intermediate "
                "certificate, or a corporate root certificate not installed on this machine)",
            )
        )
    if "hostname" in lowered or "ip address mismatch" in lowered:
        return phrase(
            QT_TRANSLATE_NOOP("Doctor", "the certificate is for another host name, not {host}"),
            host=hostname,
        )
    if "not yet valid" in lowered:
        return phrase(
            QT_TRANSLATE_NOOP(
                "Doctor", "the certificate is not valid yet (check this machine's clock)"
            )
        )
    return phrase(
        QT_TRANSLATE_NOOP("Doctor", "the certificate was refused: {message}"), message=message
    )


def _key_fix(problems: Sequence[Phrase]) -> list[Phrase]:
    fixes = []
    text = " ".join(str(p) for p in problems)
    if "whitespace around" in text or "quotes" in text or "Bearer" in text:
        fixes.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor",
                    "store the bare key: no spaces, newline, quotes or 'Bearer ' around it "
                    "(export VAR=sk-... ; read files with `tr -d '\\n'`)",
                )
            )
        )
    if "inside it" in text:
        fixes.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor", "copy the key again, whole, from the provider's console"
                )
            )
        )
    if "non-ASCII" in text:
        fixes.append(
            phrase(QT_TRANSLATE_NOOP("Doctor", "replace the placeholder with your real key"))
        )
    if "replaces the key" in text:
        fixes.append(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Doctor", "remove the Authorization header from the provider's extra headers"
                )
            )
        )
    return joined(fixes) or [phrase(QT_TRANSLATE_NOOP("Doctor", "check the key"))]


def suggest_models(model: str, ids: list[str], n: int = 3) -> list[str]:
    """Listed ids close to `model`: the same id in another case, the catalog's aliases of the
    same model, then difflib matches."""
    from workbench.core.catalog import load_catalog

    out: list[str] = []

    def add(candidate: str) -> None:
        if candidate in ids and candidate not in out:
            out.append(candidate)

    for candidate in ids:
        if candidate.lower() == model.lower():
            add(candidate)
    try:
        catalog = load_catalog()
    except Exception:  # a broken catalog must not break the doctor
        catalog = None
    if catalog is not None:
        info = catalog.get(model)
        if info is not None:
            for candidate in ids:
                if catalog.get(candidate) is info or candidate in (info.id, *info.aliases):
                    add(candidate)
        for close in catalog.suggest(model, n=10):
            add(close)
    lowered = {i.lower(): i for i in ids}
    for close in difflib.get_close_matches(model.lower(), list(lowered), n=n, cutoff=0.6):
        add(lowered[close])
    return out[:n]


async def diagnose(
    base_url: str,
    api_key: str | None,
    model: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    proxy: ProxyChoice | None = None,
    verify_tls: bool = True,
    timeout_s: float = 10.0,
    key_source: str = "",
) -> list[Check]:
    """Run every check against `base_url` in order; never raises for a connection problem.

    `key_source` says where the key came from (e.g. "environment variable $X, not set in this
    shell") for the auth check's evidence; `proxy` None means the system proxy settings.
    """
    doctor = _Doctor(base_url, api_key, model, headers, proxy, verify_tls, timeout_s, key_source)
    return await doctor.run()


__all__ = [
    "CHECK_NAMES",
    "PROXY_VARIABLES",
    "TROUBLESHOOTING_ERRORS",
    "Check",
    "ProxyRoute",
    "diagnose",
    "passed",
    "proxy_route",
    "proxy_variables",
    "suggest_models",
]
