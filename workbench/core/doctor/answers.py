"""The HTTP answers the doctor saw, and what they tell: whether a path exists, which gateway
answered, whether an error refuses the key in words."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from workbench.core.doctor import messages as msg
from workbench.core.foundation.errors import (
    looks_like_html,
    retry_after_from_headers,
    says_auth,
)
from workbench.core.foundation.i18n import Phrase, phrase, together
from workbench.core.foundation.i18n import data as as_data
from workbench.core.foundation.redaction import redact_and_cut

# the headers `errors.retry_after_from_headers` reads: Retry-After, retry-after-ms, and both
# behind a gateway's prefix (LiteLLM: llm_provider-retry-after)
RETRY_HEADER_ENDINGS = ("retry-after", "retry-after-ms")

# ---------------------------------------------------------------------------------------------
# HTTP answers
# ---------------------------------------------------------------------------------------------


@dataclass
class Answer:
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
    # a 404 that a finding has already explained (the path of a protocol the URL does not speak)
    explained: bool = False

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
    def anthropic_shaped(self) -> bool:
        """An Anthropic error object: `{"type": "error", "error": {"type", "message"}}`."""
        data = self.json()
        return isinstance(data, dict) and data.get("type") == "error" and "error" in data

    @property
    def message(self) -> str:
        """The server's error message (or the body's first bytes)."""
        data = self.json()
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                return redact_and_cut(str(err.get("message") or err.get("code") or ""), 200)
            return redact_and_cut(str(err), 200)
        return first_bytes(self.body, 120)

    @property
    def retry_after(self) -> str | None:
        """The answer's wait headers as said (`Retry-After: 2`), or None when it has none."""
        said = [
            f"{'Retry-After' if name == 'retry-after' else name}: {value}"
            for name, value in sorted(self.headers.items())
            if name.endswith(RETRY_HEADER_ENDINGS)
        ]
        return "; ".join(said) or None

    @property
    def retry_after_s(self) -> float | None:
        return retry_after_from_headers(self.headers)

    def label(self, base: str | None = None) -> str:
        path = self.url[len(base) :] if base and self.url.startswith(base) else self.url
        return f"{self.method} {path or '/'}"

    def outcome_said(self) -> Phrase:
        """What came back, as the evidence says it: no answer (why), or the status, the kind of
        body and the time."""
        if self.status is None:
            return phrase(msg.EV_NO_ANSWER, error=self.error)
        kind = "HTML" if self.html else ("JSON" if self.json() is not None else "")
        text = f"HTTP {self.status}" + (f" {kind}" if kind else "")
        return phrase(msg.EV_ANSWERED, answer=text, ms=f"{self.ms:.0f}")

    def outcome(self) -> str:
        return str(self.outcome_said())

    def seen(self, base: str | None = None) -> Phrase:
        """'GET /models → HTTP 200 JSON (12 ms)': the request and what came back."""
        return together([f"{self.label(base)} → ", self.outcome_said()], "")


def first_bytes(text: str, n: int) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return redact_and_cut(flat, n, ellipsis="…")


def html_title(body: str) -> str:
    match = re.search(r"<title[^>]*>(.*?)</title>", body, re.IGNORECASE | re.DOTALL)
    return first_bytes(match.group(1), 80) if match else ""


def route(answer: Answer) -> str:
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


def verdict(answers: list[Answer]) -> str:
    routes = [route(a) for a in answers]
    for word in ("yes", "gated", "unknown"):
        if word in routes:
            return word
    return "no"


def alternative(url: str) -> tuple[str, str]:
    """The base URL with /v1 removed (when it ends with /v1) or added, and which it was."""
    if re.search(r"/v1$", url, re.IGNORECASE):
        return url[:-3], "removed"
    return url + "/v1", "added"


def refused_by_words(models: Answer, chat: Answer) -> Answer | None:
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
_GATEWAY_HEADERS: tuple[tuple[str, Phrase], ...] = (
    ("x-litellm-", phrase(msg.GW_LITELLM)),
    ("apim-request-id", phrase(msg.GW_AZURE_APIM)),
    ("x-ms-", as_data("Azure")),
)


def gateway_of(answers: Sequence[Answer], url: str) -> Phrase | None:
    """The gateway the answers come from, when their headers or error shapes tell (with why)."""
    for answer in answers:
        for name in answer.headers:
            for prefix, gateway in _GATEWAY_HEADERS:
                if name.startswith(prefix):
                    return phrase(msg.GW_BY_HEADER, gateway=gateway, header=name)
    for answer in answers:
        data = answer.json()
        err = data.get("error") if isinstance(data, dict) else None
        if not isinstance(err, dict):
            continue
        kind, message = str(err.get("type") or ""), str(err.get("message") or "")
        if kind == "no_db_connection" or message.lower().startswith("litellm."):
            return phrase(msg.GW_LITELLM_ERROR, error=kind or message.split(":")[0])
        if kind in ("one_api_error", "new_api_error"):
            name = "One API" if kind == "one_api_error" else "New API"
            return phrase(msg.GW_API_ERROR, name=name, kind=kind)
    host = (urlsplit(url).hostname or "").lower()
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        return phrase(msg.GW_BY_HOST, gateway="OpenRouter", host="openrouter.ai")
    if host.endswith((".openai.azure.com", ".azure-api.net")):
        return phrase(msg.GW_BY_HOST, gateway="Azure", host=host)
    return None


def distinct(answers: list[Answer], n: int = 2) -> list[Answer]:
    """Up to n answers that differ in status or message, in order."""
    out: list[Answer] = []
    keys: set[tuple[int | None, str]] = set()
    for a in answers:
        key = (a.status, a.message)
        if key not in keys and len(out) < n:
            keys.add(key)
            out.append(a)
    return out
