"""One doctor run's state and plumbing: the settings it checks, the checks so far, every HTTP
answer seen, and the clients and raw probes the checks share."""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx2

from workbench.core.access.providers import ProxyChoice
from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import RETRY_HEADER_ENDINGS, Answer
from workbench.core.doctor.checks import CHECK_NAMES, Check, Said, skipped
from workbench.core.doctor.key_text import key_problems, sendable
from workbench.core.foundation.i18n import Phrase, phrase, phrased
from workbench.core.foundation.redaction import register_secret
from workbench.core.foundation.results import RequestResult
from workbench.core.protocols.base import key_header
from workbench.core.protocols.registry import auth_for, protocol_of
from workbench.core.transport.clients import make_client, plan_route

if TYPE_CHECKING:  # the SDK costs ~1 s to import: loaded on first use
    import openai

_BODY_KEEP = 4000
_PROBE_READ_BYTES = 64 << 10  # of a probe's answer; an endless body is not read further


class Doctor:
    """The settings under test and what the checks found so far."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str | None,
        headers: Mapping[str, str] | None,
        proxy: ProxyChoice | None,
        verify_tls: bool,
        timeout_s: float,
        key_source: str | Phrase,
        protocol: str = "chat",
        auth: str | None = None,
    ) -> None:
        self.raw_url = base_url
        self.raw_key = api_key
        register_secret(api_key)
        self.key, self.key_problems = key_problems(api_key)
        register_secret(self.key)
        self.model = model.strip() if model else None
        self.headers = dict(headers or {})
        self.proxy_choice = proxy or ProxyChoice()
        self.verify_tls = verify_tls
        self.timeout_s = timeout_s
        self.key_source = key_source
        self.protocol = protocol
        self.spoken = protocol_of(protocol)  # its path, headers, shapes and base-URL convention
        self.auth = auth_for(protocol, auth)  # bearer or x-api-key
        self.answers: list[Answer] = []
        self.checks: dict[str, Check] = {}
        self.url = ""
        self.stream_result: RequestResult | None = None

    # plumbing

    def add(self, check: Check, url: str | None = None) -> None:
        """Record a check; `url`: what it sent to, so that it names the protocol and path."""
        if url is not None:
            check = replace(check, protocol=self.protocol, endpoint=self.endpoint(url))
        self.checks[check.name] = check

    def skip_rest(self, reason: Said) -> None:
        for name in CHECK_NAMES:
            if name not in self.checks:
                self.add(skipped(name, reason))

    @property
    def key_header(self) -> str:
        """The header the key goes in: Authorization (as a Bearer token) or x-api-key."""
        return key_header(self.auth)

    def endpoint(self, url: str) -> str:
        """The path part of a URL the checks name (/v1/messages)."""
        return urlsplit(url).path or "/"

    def request_headers(
        self, auth: str | None = None, protocol: str | None = None
    ) -> dict[str, str]:
        """The headers of a probe in `protocol` (the chosen one by default), as the client sends
        them: the key in `auth` (the protocol's own header by default), the protocol's own
        headers (ClientProtocol.headers: Anthropic's version); the provider's headers win over
        ours, whatever their case."""
        spoken = protocol_of(protocol or self.protocol)
        if auth is None:
            auth = self.key_header if spoken is self.spoken else key_header(spoken.auth)
        given = {name.lower() for name in self.headers}
        out: dict[str, str] = {"Accept": "application/json", **spoken.headers(given)}
        if self.key and sendable(self.key):
            out[auth] = f"Bearer {self.key}" if auth == "Authorization" else self.key
        out = {k: v for k, v in out.items() if k.lower() not in given}
        return {**out, **self.headers}

    def ssl_context(self) -> ssl.SSLContext:
        # as make_client builds it: SSL_CERT_FILE / SSL_CERT_DIR apply
        return httpx2.create_ssl_context(verify=self.verify_tls, trust_env=True)

    def http_client(self) -> httpx2.AsyncClient:
        """A plain httpx client for the raw probes, routed as make_client routes the SDK's."""
        route = plan_route(self.url, self.proxy_choice, "httpx")
        return httpx2.AsyncClient(
            proxy=route.proxy_url,
            trust_env=False,  # the route is proxy_route's decision, as in make_client
            verify=self.ssl_context(),
            timeout=httpx2.Timeout(self.timeout_s),
            follow_redirects=True,
        )

    async def probe(
        self,
        client: httpx2.AsyncClient,
        method: str,
        url: str,
        *,
        payload: Any = None,
        auth: str | None = None,
        protocol: str | None = None,
        record: bool = True,
    ) -> Answer:
        answer = Answer(method, url)
        start = time.perf_counter()
        head = bytearray()
        encoding = "utf-8"
        try:
            # bounded in time and bytes: a server that streams forever gets timeout_s in all
            async with asyncio.timeout(self.timeout_s):
                async with client.stream(
                    method, url, json=payload, headers=self.request_headers(auth, protocol)
                ) as response:
                    answer.status = response.status_code
                    answer.content_type = response.headers.get("content-type", "")
                    answer.headers = {
                        k.lower(): v
                        for k, v in response.headers.items()
                        if k.lower() in ("www-authenticate", "content-type", "server")
                        or k.lower().endswith(RETRY_HEADER_ENDINGS)
                        or k.lower().startswith(("x-litellm-", "x-ms-", "apim-request-id"))
                    }
                    encoding = response.encoding or "utf-8"
                    async for piece in response.aiter_bytes():
                        head += piece
                        if len(head) >= _PROBE_READ_BYTES:
                            break
        except httpx2.ProxyError as exc:
            answer.error = phrased(phrase(msg.PROXY_FAILED_ERROR, error=exc))
            answer.proxy_error = True
        except (httpx2.TimeoutException, TimeoutError):
            if answer.status is None:  # else an endless body: keep the answer and its start
                within = phrase(msg.NO_ANSWER_WITHIN, seconds=f"{self.timeout_s:g}")
                answer.error, answer.timeout = phrased(within), True
        except (httpx2.HTTPError, OSError, ssl.SSLError) as exc:
            answer.status = None  # a body that broke off is no answer
            answer.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if answer.status is not None:
            answer.body = head.decode(encoding, "replace")[:_BODY_KEEP]
        answer.ms = (time.perf_counter() - start) * 1e3
        if record:
            self.answers.append(answer)
        return answer

    def sdk_client(self) -> openai.AsyncOpenAI:
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

    def ordered(self) -> list[Check]:
        return [self.checks[name] for name in CHECK_NAMES]

    def answers_seen(self) -> list[Answer]:
        return [a for a in self.answers if a.status is not None]
