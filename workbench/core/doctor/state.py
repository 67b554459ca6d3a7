"""One doctor run's state and plumbing: the settings it checks, the checks so far, every HTTP
answer seen, and the clients and raw probes the checks share."""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx2

from workbench.core.clients import make_client, plan_route
from workbench.core.doctor.answers import RETRY_HEADER_ENDINGS, Answer
from workbench.core.doctor.auth import key_problems, sendable
from workbench.core.doctor.checks import CHECK_NAMES, Check, skipped
from workbench.core.providers import ProxyChoice
from workbench.core.results import RequestResult
from workbench.core.secrets import register_secret

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
        key_source: str,
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
        self.answers: list[Answer] = []
        self.checks: dict[str, Check] = {}
        self.url = ""
        self.stream_result: RequestResult | None = None

    # plumbing

    def add(self, check: Check) -> None:
        self.checks[check.name] = check

    def skip_rest(self, reason: str) -> None:
        for name in CHECK_NAMES:
            if name not in self.checks:
                self.add(skipped(name, reason))

    def request_headers(self, auth: str | None = "Authorization") -> dict[str, str]:
        out: dict[str, str] = {"Accept": "application/json"}
        if self.key and sendable(self.key) and auth:
            out[auth] = f"Bearer {self.key}" if auth == "Authorization" else self.key
        for name, value in self.headers.items():
            out[name] = value
        return out

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
        auth: str | None = "Authorization",
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
                    method, url, json=payload, headers=self.request_headers(auth)
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
