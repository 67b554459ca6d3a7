"""One streamed chat completion through the official openai SDK, with raw timestamps.

`stream_chat` never raises for a request failure: it returns a RequestResult whose error
fields say what happened, keeping every timestamp and token that arrived before it.
It never re-sends a request; retries are the runner's business and get their own rows.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.errors import (
    Diagnosis,
    MalformedChunk,
    classify_exception,
    diagnosis,
    looks_like_html,
)
from workbench.core.results import ErrorClass, RequestResult
from workbench.core.secrets import redact_and_cut

if TYPE_CHECKING:  # the SDK costs ~1 s to import: loaded on first use
    import openai

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(
    r"[A-Za-z]+|\d+|[^\sA-Za-z\d\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)


def estimate_tokens(text: str) -> int:
    """Estimate for a server that sends no usage: ~1 token per 4 letters, 1 per CJK char."""
    cjk = len(_CJK.findall(text))
    words = _WORD.findall(text)
    letters = sum(max(1, round(len(w) / 4)) if w.isalpha() else 1 for w in words)
    return cjk + letters


@dataclass(frozen=True)
class TextDelta:
    """Text as it arrives, for live views; `t_ns` is the perf_counter_ns of its event."""

    request_id: str
    text: str
    reasoning: bool
    t_ns: int


@dataclass(frozen=True)
class RequestSpec:
    """What to send and how long to wait; timeouts in seconds (None = no limit)."""

    messages: list[dict[str, Any]]
    max_tokens: int = 256
    temperature: float = 0.0
    first_token_timeout_s: float | None = 300.0
    stall_timeout_s: float | None = 60.0
    total_timeout_s: float | None = None
    estimated_prompt_tokens: int | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    extra_headers: dict[str, str] = field(default_factory=dict)


class _Watchdog(Exception):
    def __init__(self, error_class: ErrorClass, limit_s: float) -> None:
        super().__init__(error_class.value)
        self.error_class = error_class
        self.limit_s = limit_s


def _next_deadline(result: RequestResult, spec: RequestSpec) -> tuple[int | None, ErrorClass]:
    """The nearest limit for the next event: first-token limit, stall limit, or total limit."""
    assert result.t_send is not None
    candidates: list[tuple[int, ErrorClass]] = []
    if result.t_first_token is None:
        if spec.first_token_timeout_s is not None:
            candidates.append(
                (
                    result.t_send + int(spec.first_token_timeout_s * 1e9),
                    ErrorClass.FIRST_TOKEN_TIMEOUT,
                )
            )
    elif spec.stall_timeout_s is not None:
        last = result.event_times[-1] if result.event_times else result.t_first_token
        candidates.append((last + int(spec.stall_timeout_s * 1e9), ErrorClass.STALL))
    if spec.total_timeout_s is not None:
        candidates.append(
            (result.t_send + int(spec.total_timeout_s * 1e9), ErrorClass.TOTAL_TIMEOUT)
        )
    if not candidates:
        return None, ErrorClass.TOTAL_TIMEOUT
    return min(candidates)


async def _with_deadline(awaitable: Any, result: RequestResult, spec: RequestSpec) -> Any:
    deadline, error_class = _next_deadline(result, spec)
    if deadline is None:
        return await awaitable
    remaining = max(0.0, (deadline - time.perf_counter_ns()) / 1e9)
    try:
        async with asyncio.timeout(remaining):
            return await awaitable
    except TimeoutError:
        limit = {
            ErrorClass.FIRST_TOKEN_TIMEOUT: spec.first_token_timeout_s,
            ErrorClass.STALL: spec.stall_timeout_s,
        }.get(error_class, spec.total_timeout_s)
        raise _Watchdog(error_class, limit or 0.0) from None


def _fill_estimates(result: RequestResult, spec: RequestSpec) -> None:
    """A server that sent no usage gets an estimate, and the row says so."""
    if result.completion_tokens is None and (result.text or result.reasoning_text):
        result.completion_tokens = max(
            len(result.event_times), estimate_tokens(result.text + result.reasoning_text)
        )
        result.usage_estimated = True
    if result.prompt_tokens is None and spec.estimated_prompt_tokens and result.t_first_token:
        result.prompt_tokens = spec.estimated_prompt_tokens
        result.usage_estimated = True


async def stream_chat(
    client: openai.AsyncOpenAI,
    result: RequestResult,
    spec: RequestSpec,
    on_text: Callable[[TextDelta], None] | None = None,
) -> RequestResult:
    """Send one streamed request and fill `result` with what happened. Never raises for I/O.

    The SDK builds and sends the request (base URL, auth, headers, status errors); the SSE body
    is parsed here with plain json, because building the SDK's pydantic chunk objects costs
    ~0.5 ms of CPU per token (benchmarks/results/client_fidelity.md), which would make the
    client the bottleneck it must never be.
    """
    result.started_at = time.time()
    result.t_send = time.perf_counter_ns()
    manager = client.chat.completions.with_streaming_response.create(
        model=result.model,
        messages=spec.messages,  # type: ignore[arg-type]
        max_tokens=spec.max_tokens,
        temperature=spec.temperature,
        stream=True,
        stream_options={"include_usage": True},
        extra_body=spec.extra_body or None,
        extra_headers=spec.extra_headers or None,
    )
    entered = False
    try:
        response = await _with_deadline(manager.__aenter__(), result, spec)
        entered = True
        result.t_headers = time.perf_counter_ns()
        http = response.http_response
        result.http_status = http.status_code
        if looks_like_html(http.headers.get("content-type", ""), ""):
            body = (await http.aread()).decode("utf-8", "replace")
            _fail(
                result,
                diagnosis(
                    ErrorClass.HTML,
                    f"HTTP {http.status_code} with an "
                    f"HTML page ({len(body)} bytes) instead of a stream",
                ),
            )
            return result
        await _consume(http.aiter_lines(), result, spec, on_text)
        result.t_done = time.perf_counter_ns()
        if result.error_class is None and not result.text and not result.reasoning_text:
            _fail(result, diagnosis(ErrorClass.EMPTY, "the stream ended with no text"))
    except _Watchdog as dog:
        result.t_done = time.perf_counter_ns()
        _fail(
            result,
            diagnosis(
                dog.error_class,
                f"no token for {dog.limit_s:g} s"
                if dog.error_class is ErrorClass.STALL
                else f"gave up after {dog.limit_s:g} s",
            ),
        )
    except asyncio.CancelledError:
        result.t_done = time.perf_counter_ns()
        _fail(result, diagnosis(ErrorClass.CANCELLED, "stopped by the user"))
        _fill_estimates(result, spec)
        raise
    except Exception as exc:  # every I/O failure becomes a classified row
        result.t_done = time.perf_counter_ns()
        _fail(result, classify_exception(exc, result.model, result.t_headers is not None))
    finally:
        if entered:
            try:
                await asyncio.shield(manager.__aexit__(None, None, None))
            except Exception:  # closing a broken stream may raise again; the row is written
                pass
        _fill_estimates(result, spec)
    return result


def _fail(result: RequestResult, diag: Diagnosis) -> None:
    if result.error_class is not None:
        return
    result.error_class = diag.error_class
    result.error_message = diag.message
    if diag.http_status is not None:
        result.http_status = diag.http_status
    result.retry_after_s = diag.retry_after_s


async def _sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The `data` payloads of a Server-Sent Events stream (multi-line data joined by \\n)."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
        # `event:`, `id:`, `retry:` and `:` comments carry nothing we measure
    if data:
        yield "\n".join(data)


def _record_usage(result: RequestResult, usage: dict[str, Any]) -> None:
    result.prompt_tokens = usage.get("prompt_tokens")
    result.completion_tokens = usage.get("completion_tokens")
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:  # DeepSeek reports its prefix cache this way
        cached = usage.get("prompt_cache_hit_tokens")
    result.cached_tokens = cached


class _StreamError(Exception):
    """An `error` object sent inside the stream."""


async def _consume(
    lines: AsyncIterator[str],
    result: RequestResult,
    spec: RequestSpec,
    on_text: Callable[[TextDelta], None] | None,
) -> None:
    events = _sse_data(lines).__aiter__()
    text_parts: list[str] = []
    reasoning_parts: list[str] = []
    try:
        while True:
            try:
                data = await _with_deadline(events.__anext__(), result, spec)
            except StopAsyncIteration:
                break
            now = time.perf_counter_ns()
            if result.t_first_chunk is None:
                result.t_first_chunk = now
            if data.strip() == "[DONE]":
                break
            try:
                chunk = json.loads(data)
            except ValueError as exc:
                raise MalformedChunk(f"not JSON: {redact_and_cut(data, 80)!r}") from exc
            if not isinstance(chunk, dict):
                raise MalformedChunk(f"not a JSON object: {redact_and_cut(data, 80)!r}")
            if chunk.get("error"):
                raise _StreamError(redact_and_cut(str(chunk["error"]), 300))
            if result.response_id is None and chunk.get("id"):
                result.response_id = chunk["id"]
            if chunk.get("usage"):
                _record_usage(result, chunk["usage"])
            for choice in chunk.get("choices") or ():
                if choice.get("finish_reason"):
                    result.finish_reason = choice["finish_reason"]
                delta = choice.get("delta") or {}
                content = delta.get("content")
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if not reasoning and not content:
                    continue  # a role-only or empty delta is never a token
                if result.t_first_token is None:
                    result.t_first_token = now
                if content and result.t_first_content is None:
                    result.t_first_content = now
                result.t_last_token = now
                result.event_times.append(now)
                result.event_chars.append(len(content or ""))
                result.event_reasoning_chars.append(len(reasoning or ""))
                if reasoning:
                    reasoning_parts.append(reasoning)
                if content:
                    text_parts.append(content)
                if on_text is not None:
                    if reasoning:
                        on_text(TextDelta(result.request_id, reasoning, True, now))
                    if content:
                        on_text(TextDelta(result.request_id, content, False, now))
    except _StreamError as err:
        _fail(result, diagnosis(ErrorClass.SERVER, f"error event in the stream: {err}"))
    finally:
        result.text = "".join(text_parts)
        result.reasoning_text = "".join(reasoning_parts)
