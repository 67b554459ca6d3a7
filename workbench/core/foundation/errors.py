"""Turn whatever went wrong with a request into an ErrorClass and a message with cause and fix.

The messages cover the errors that troubleshooting guides for LLM gateways list (401, 404 from a
wrong /v1, 429, proxy failures, model not found, HTML where JSON was expected, timeouts, no
quota).
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from workbench.core.foundation import failure_words as fw
from workbench.core.foundation.error_messages import (
    FIXES,
    GATEWAY_AUTH_CAUSE,
    GATEWAY_AUTH_FIX,
    GATEWAY_COOLDOWN_CAUSE,
    GATEWAY_COOLDOWN_FIX,
    GATEWAY_ROUTE_CAUSE,
    GATEWAY_ROUTE_FIX,
)
from workbench.core.foundation.redaction import redact, redact_and_cut
from workbench.core.foundation.results import ErrorClass

if TYPE_CHECKING:  # the SDK costs ~1 s to import: loaded on first use
    import openai


class RefusalHints(Protocol):
    """What a wire protocol says of an error answer to its request (protocols/base.py's
    ClientProtocol): each a (cause, fix), or None when it has nothing to add."""

    def refused(self, status: int, body: str) -> tuple[str, str] | None: ...

    def missing_path(self, body: str) -> tuple[str, str] | None: ...


class MalformedChunk(ValueError):
    """A stream event that is not the JSON object the protocol promises."""


class Oversized(ValueError):
    """A line, event or body over its size cap; the message names which cap."""


class Overrun(ValueError):
    """More output than max_tokens allows; the message says how much."""


class UnsendableHeader(ValueError):
    """A key or header value that HTTP cannot carry; the message never holds the value."""


@dataclass(frozen=True)
class Diagnosis:
    error_class: ErrorClass
    what: str
    cause: str
    fix: str
    http_status: int | None = None
    retry_after_s: float | None = None

    @property
    def message(self) -> str:
        return redact(f"{self.what.rstrip('. ')}. Cause: {self.cause}. Fix: {self.fix}")


# Gateways answer a bad key with 400 or 404 as well as 401/403: LiteLLM without a database says
# `{"error": {"type": "no_db_connection", ...}}`, New API says "无效的令牌" (invalid token).
# Matched on the error's type, code and message; bare "token" is left out ("max_tokens").
_AUTH_WORDS = re.compile(
    r"(api|secret|access|virtual|master|invalid|wrong|bad)[ _-]?key|key (is )?(invalid|not valid|"
    r"expired|revoked|missing|required)|\bauth|unauthori[sz]ed|permission|forbidden|credential|"
    r"no_db_connection|no connected db|(invalid|access|bearer|auth)[ _-]?token|"
    r"token[ _-]?(is )?(invalid|expired|revoked|missing)|无效的令牌|令牌无效|密钥|未授权|鉴权",
    re.IGNORECASE,
)


# LiteLLM wraps what an upstream answered in an exception of its own, named in the message
# ("litellm.NotFoundError: ... OpenAIException - The model `x` does not exist"): a 404 that says
# so is the gateway's route that failed, not a path or a model id the user can fix here.
_GATEWAY_WRAPPED = re.compile(r"^\s*litellm\.[A-Za-z]+Error\b")
# After an upstream fails, LiteLLM stops sending to it for a while and answers 429 itself ("No
# deployments available ... in cooldown"): no rate limit of the user's, and the upstream's
# words are gone.
GATEWAY_COOLDOWN_WORDS = re.compile(
    r"no deployments available|deployments? .{0,60}in cooldown", re.I
)


def says_auth(body: str) -> bool:
    """Whether an error body's type, code or message speaks of the key or of access."""
    try:
        data = json.loads(body)
    except ValueError:
        return bool(_AUTH_WORDS.search(body[:2000]))
    err = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(err, dict):
        fields = " ".join(str(err.get(k) or "") for k in ("type", "code", "message"))
        return bool(_AUTH_WORDS.search(fields))
    return bool(_AUTH_WORDS.search(str(err)))


def gateway_auth(what: str, status: int | None) -> Diagnosis:
    """A key refused by what the answer says, with the gateway's cause and fix."""
    return Diagnosis(ErrorClass.AUTH, what, GATEWAY_AUTH_CAUSE, GATEWAY_AUTH_FIX, status)


def list_refusal(diag: Diagnosis) -> Diagnosis:
    """A refused GET /models: it has no body to find fault with, so a 4xx that is not 404
    (no list), 402/429 (quota, rate) or 407 (proxy) refuses the caller, i.e. the key."""
    status = diag.http_status
    if status is None or not 400 <= status < 500 or status in (402, 404, 407, 429):
        return diag
    if diag.error_class in (ErrorClass.HTML, ErrorClass.QUOTA, ErrorClass.RATE_LIMIT):
        return diag
    if diag.error_class is ErrorClass.AUTH and status in (401, 403):
        return diag
    return gateway_auth(diag.what, status)


def diagnosis(error_class: ErrorClass, what: str, status: int | None = None) -> Diagnosis:
    cause, fix = FIXES[error_class]
    return Diagnosis(error_class, what, cause, fix, status)


def _body_text(err: openai.APIStatusError) -> str:
    try:
        return redact_and_cut(err.response.text, 2000)
    except Exception:  # the body may be unread or undecodable
        return str(err.body or "")


# A server's error message is kept whole up to this many characters (a gateway's wraps the
# upstream's, which is the real cause); a longer one is cut at a word, with "…".
SERVER_MESSAGE_CHARS = 1000
_CUT_MARK = "\x00"  # appended by redact_and_cut when it cut (a text ending in NUL: shown as cut)


def cut_at_word(text: str, limit: int) -> str:
    """`text` redacted, whole when it fits in `limit` characters, else cut after its last
    whole word within them and ended with "…"."""
    shown = redact_and_cut(text, limit, ellipsis=_CUT_MARK)
    if not shown.endswith(_CUT_MARK):
        return shown
    head = shown[: -len(_CUT_MARK)]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space > limit // 2:  # a word boundary not too far back; else cut inside the word
        head = head[:space]
    return head.rstrip(" ,;:-") + "…"


def _server_message(body: str) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return cut_at_word(body.strip(), SERVER_MESSAGE_CHARS)
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            text = str(err.get("message") or err.get("code") or err)
            return cut_at_word(text, SERVER_MESSAGE_CHARS)
        return cut_at_word(str(err), SERVER_MESSAGE_CHARS)
    return cut_at_word(str(data), SERVER_MESSAGE_CHARS)


def looks_like_html(content_type: str | None, body: str) -> bool:
    head = body.lstrip()[:200].lower()
    return bool(content_type and "text/html" in content_type) or head.startswith(
        ("<!doctype html", "<html")
    )


# what servers say when memory, not the context window, is what a request lacks: vLLM's and
# SGLang's KV-cache refusals, PyTorch's "CUDA out of memory", the built-in provider's refusal
_MEMORY = re.compile(
    r"out of memory|\boom\b|kv cache for|kv[ -]cache (?:is )?full|not enough (?:gpu |kv )?memory"
    r"|insufficient (?:gpu |kv )?memory|no (?:free )?(?:gpu )?memory"
)


def classify_status(status: int, body: str, content_type: str | None, model: str) -> Diagnosis:
    """Classify an HTTP error answer by status and body."""
    if looks_like_html(content_type, body):
        return diagnosis(ErrorClass.HTML, f"HTTP {status} with an HTML page", status)
    message = _server_message(body)
    lowered = message.lower()
    what = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status in (401, 403):
        return diagnosis(ErrorClass.AUTH, what, status)
    if GATEWAY_COOLDOWN_WORDS.search(message):
        return Diagnosis(
            ErrorClass.SERVER, what, GATEWAY_COOLDOWN_CAUSE, GATEWAY_COOLDOWN_FIX, status
        )
    if status != 429 and _MEMORY.search(lowered):
        return diagnosis(ErrorClass.OUT_OF_MEMORY, what, status)
    if status == 402 or "quota" in lowered or "insufficient" in lowered or "balance" in lowered:
        return diagnosis(ErrorClass.QUOTA, what, status)
    if status in (400, 404) and says_auth(body):
        return gateway_auth(what, status)
    if status == 429:
        return diagnosis(ErrorClass.RATE_LIMIT, what, status)
    mentions_model = "model" in lowered and (
        model.lower() in lowered or "not found" in lowered or "does not exist" in lowered
    )
    if status == 404 and _GATEWAY_WRAPPED.match(message):
        not_found = ErrorClass.MODEL_NOT_FOUND if mentions_model else ErrorClass.NOT_FOUND
        return Diagnosis(not_found, what, GATEWAY_ROUTE_CAUSE, GATEWAY_ROUTE_FIX, status)
    if status in (400, 404) and mentions_model:
        return diagnosis(ErrorClass.MODEL_NOT_FOUND, what, status)
    if status == 404:
        return diagnosis(ErrorClass.NOT_FOUND, what, status)
    if status >= 500:
        return diagnosis(ErrorClass.SERVER, what, status)
    return diagnosis(ErrorClass.BAD_REQUEST, what, status)


def protocol_status(
    diag: Diagnosis, body: str, content_type: str | None, protocol: RefusalHints | None
) -> Diagnosis | None:
    """The protocol's cause and fix for an error answer it explains: a 404/405 on its path
    (a base URL that speaks another protocol, or none), or a request it refused (a missing
    version header: a bad request, whatever words it has)."""
    status = diag.http_status
    if protocol is None or status is None:
        return None
    refused = protocol.refused(status, body)
    if refused is not None:
        return Diagnosis(ErrorClass.BAD_REQUEST, diag.what, refused[0], refused[1], status)
    if status not in (404, 405) or diag.error_class is ErrorClass.MODEL_NOT_FOUND:
        return None
    words = protocol.missing_path(body)
    if words is None:
        return None
    html = looks_like_html(content_type, body)
    what = f"HTTP {status} with an HTML page" if html else diag.what
    return Diagnosis(ErrorClass.NOT_FOUND, what, words[0], words[1], status)


def _root_cause(exc: BaseException) -> BaseException:
    seen = set()
    while exc.__cause__ is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.__cause__
    return exc


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and every cause or context behind it, outermost first."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in out):
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _broken_http(chain: list[BaseException]) -> BaseException | None:
    """The parser error behind a response that breaks HTTP itself, if that is what happened.

    A body that merely stops early ("not enough data", "peer closed connection") is a dropped
    connection, not a protocol error, and is left to the caller.
    """
    import httpx2  # the transport loads with the first request, not with the window
    from aiohttp.http_exceptions import (
        ContentLengthError,
        HttpProcessingError,
        TransferEncodingError,
    )

    for exc in chain:
        text = str(exc)
        if (
            isinstance(exc, TransferEncodingError | ContentLengthError)
            and "Not enough data" in text
        ):
            return None
        if isinstance(exc, HttpProcessingError):  # BadHttpMessage, LineTooLong, a bad chunk
            return exc
        if isinstance(exc, httpx2.RemoteProtocolError):
            ended = ("peer closed connection", "Server disconnected")
            return None if any(phrase in text for phrase in ended) else exc
    return None


def _redirect(err: openai.APIStatusError) -> Diagnosis:
    location = err.response.headers.get("location", "") if err.response is not None else ""
    if not location:
        return diagnosis(ErrorClass.REDIRECT, f"HTTP {err.status_code} redirect", err.status_code)
    base = location.split("?")[0].removesuffix("/chat/completions").removesuffix("/models")
    what = (
        f"HTTP {err.status_code} redirect to {redact_and_cut(location, 300)}; not followed. "
        f"Try the base URL {redact_and_cut(base, 300)}"
    )
    return diagnosis(ErrorClass.REDIRECT, what, err.status_code)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _parse_retry_after_ms(value: str) -> float | None:
    try:
        ms = float(value)
    except ValueError:
        return None
    return max(0.0, ms / 1000) if math.isfinite(ms) else None


def retry_after_from_headers(headers: Mapping[str, str]) -> float | None:
    """Seconds a 429/503 answer asks us to wait, from the first of these that parses:
    `retry-after-ms` (OpenAI, Azure), `Retry-After` (seconds or an HTTP date), then the same two
    behind a gateway's prefix (`*-retry-after-ms`, `*-retry-after`: LiteLLM forwards the
    upstream's as `llm_provider-retry-after`). `x-ratelimit-reset-*` is not read: it says when
    a quota window resets, which may be much later than a retry could succeed."""
    lowered = {key.lower(): value for key, value in headers.items()}
    candidates = [(lowered.get("retry-after-ms"), True), (lowered.get("retry-after"), False)]
    for suffix, in_ms in (("-retry-after-ms", True), ("-retry-after", False)):
        candidates += [(v, in_ms) for k, v in sorted(lowered.items()) if k.endswith(suffix)]
    for value, in_ms in candidates:
        if not value:
            continue
        seconds = _parse_retry_after_ms(value) if in_ms else parse_retry_after(value)
        if seconds is not None:
            return seconds
    return None


# Classes no repeat of the same request can fix: a cell whose calibration request failed so
# sends nothing more (docs/gateways.md, "A calibration that fails").
UNFIXABLE_BY_REPEAT = frozenset(
    {ErrorClass.AUTH, ErrorClass.NOT_FOUND, ErrorClass.MODEL_NOT_FOUND, ErrorClass.INVALID_KEY}
)


def classify_exception(
    exc: BaseException,
    model: str,
    streaming_started: bool,
    protocol: RefusalHints | None = None,
) -> Diagnosis:
    """Classify an exception raised by the SDK or the transport; `protocol`, the wire protocol
    the request spoke, explains the refusals it knows (a path it lacks, its own headers)."""
    import httpx2
    import openai

    if isinstance(exc, openai.APIStatusError):
        if 300 <= exc.status_code < 400:
            return _redirect(exc)
        headers = exc.response.headers if exc.response is not None else {}
        body, content_type = _body_text(exc), headers.get("content-type")
        diag = classify_status(exc.status_code, body, content_type, model)
        diag = protocol_status(diag, body, content_type, protocol) or diag
        return replace(diag, retry_after_s=retry_after_from_headers(headers))
    chain = _chain(exc)
    root = _root_cause(exc)
    detail = f"{type(root).__name__}: {root}" if str(root) else type(root).__name__
    for kind, error_class in (
        (UnsendableHeader, ErrorClass.INVALID_KEY),
        (Oversized, ErrorClass.OVERSIZED),
        (Overrun, ErrorClass.OVERRUN),
    ):
        found = next((e for e in chain if isinstance(e, kind)), None)
        if found is not None:
            return diagnosis(error_class, str(found))
    if isinstance(exc, MalformedChunk) or isinstance(root, json.JSONDecodeError):
        return diagnosis(ErrorClass.MALFORMED, fw.words(fw.BAD_EVENT, detail=detail))
    broken = _broken_http(chain)
    if broken is not None:
        text = redact_and_cut(" ".join(str(broken).split()), 300)
        what = fw.words(fw.BROKEN_HTTP, kind=type(broken).__name__, text=text)
        return diagnosis(ErrorClass.PROTOCOL, what)
    if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
        # an `error` event inside the stream
        return diagnosis(ErrorClass.SERVER, fw.words(fw.ERROR_EVENT, error=exc))
    if isinstance(exc, openai.APIConnectionError | OSError | httpx2.TransportError):
        if streaming_started:
            return diagnosis(ErrorClass.DROPPED, fw.words(fw.LOST_MID_STREAM, detail=detail))
        if "proxy" in detail.lower():
            return diagnosis(ErrorClass.CONNECT, fw.words(fw.PROXY_FAILED, detail=detail))
        return diagnosis(ErrorClass.CONNECT, fw.words(fw.CANNOT_CONNECT, detail=detail))
    return diagnosis(ErrorClass.INTERNAL, detail)
