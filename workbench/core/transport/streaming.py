"""One streamed chat completion through the official openai SDK, with raw timestamps.

Chat completions are read here; Anthropic Messages and OpenAI Responses in their own modules
(stream_anthropic.py, stream_responses.py; `wire.stream_request` sends by the spec's protocol,
protocols/registry.py), whose readers extend this module's `StreamReader`: the same reading,
limits and result filling.

`stream_chat` never raises for a request failure: it returns a RequestResult whose error
fields say what happened, keeping every timestamp and token that arrived before it. It never
re-sends a request (retries are the runner's, in rows of their own). Every stream is judged,
and bounded (docs/reliability.md, "The wire", lists each limit and its test):
- a body that ends without `[DONE]` and without any finish_reason is `truncated`, never a
  success;
- more output than max_tokens allows is `overrun`, and reading stops at once;
- a line, an event or a whole body over its cap is `oversized`, and reading stops at once;
- usage values that are not plain counts are ignored and the row's usage is estimated;
- with no total limit given, a request still ends at a default one derived from max_tokens.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeGuard

from workbench.core.foundation import failure_words as fw
from workbench.core.foundation.errors import (
    Diagnosis,
    MalformedChunk,
    Overrun,
    RefusalHints,
    classify_exception,
    diagnosis,
    looks_like_html,
)
from workbench.core.foundation.results import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    ErrorClass,
    RequestResult,
)
from workbench.core.foundation.token_estimate import estimate_tokens
from workbench.core.planning.run_events import TextDelta
from workbench.core.transport.body_reader import BodyReader, drain
from workbench.core.transport.protocol_errors import error_words
from workbench.core.transport.send_stamp import sending
from workbench.core.transport.sse import MAX_EVENT_BYTES as MAX_EVENT_BYTES  # the caps, re-exported
from workbench.core.transport.sse import MAX_LINE_BYTES as MAX_LINE_BYTES
from workbench.core.transport.sse import KiB, MiB, SSESplitter
from workbench.core.transport.stream_values import LENGTH_REASONS, cut_inside
from workbench.core.transport.stream_values import loads as _loads
from workbench.core.transport.stream_values import record_chat_usage as _record_usage
from workbench.core.transport.stream_values import response_id as _response_id
from workbench.core.transport.stream_values import shown as _shown
from workbench.core.transport.watchdog import Watch

if TYPE_CHECKING:  # the SDK costs ~1 s to import: loaded on first use
    import httpx2
    import openai

BODY_BASE_BYTES = 1 * MiB  # a response body may hold this much ...
BODY_BYTES_PER_TOKEN = 4 * KiB  # ... plus this much per max_tokens
HTML_HEAD_BYTES = 64 * KiB  # what is read of an HTML page that came instead of a stream
OVERRUN_SLACK = 16  # text events (or estimated tokens) allowed beyond max_tokens
OVERRUN_ESTIMATE_FACTOR = 4  # the text estimate may exceed max_tokens this many times
SECONDS_PER_TOKEN = 1.0  # the default total limit allows this much per max_tokens
MAX_LIMIT_S = 1e7  # a longer time limit is taken as this (115 days): no overflow


def body_limit_bytes(max_tokens: int) -> int:
    """The most bytes one streamed response may carry: generous, but finite."""
    return BODY_BASE_BYTES + BODY_BYTES_PER_TOKEN * max(0, max_tokens)


def overrun_event_limit(max_tokens: int) -> int:
    """Text events beyond this many mean the server ignores max_tokens (an event holds at
    least one token)."""
    return max(0, max_tokens) + OVERRUN_SLACK


def overrun_estimate_limit(max_tokens: int) -> int:
    """Estimated tokens beyond this many mean the same; loose because the estimate is rough."""
    return OVERRUN_ESTIMATE_FACTOR * max(0, max_tokens) + OVERRUN_SLACK


@dataclass(frozen=True)
class RequestSpec:
    """What to send and how long to wait; timeouts in seconds.

    `first_token_timeout_s` or `stall_timeout_s` None means no such limit; `total_timeout_s`
    None means the default total limit (`default_total_timeout_s`), never no limit at all.
    """

    messages: list[dict[str, Any]]
    max_tokens: int = 256
    temperature: float = 0.0
    first_token_timeout_s: float | None = 300.0
    stall_timeout_s: float | None = 60.0
    total_timeout_s: float | None = None
    estimated_prompt_tokens: int | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    extra_headers: dict[str, str] = field(default_factory=dict)
    protocol: str = "chat"  # a registered protocol's name (protocols/registry.py)
    auth: str = "bearer"  # how the key is sent: bearer, or x-api-key


def default_total_timeout_s(spec: RequestSpec) -> float:
    """The total limit when none is given: the first-token limit, one stall limit, and one
    second per max_tokens (a server slower than 1 token/s is not worth waiting for)."""
    first, stall = spec.first_token_timeout_s, spec.stall_timeout_s
    return (
        (first if _finite(first) else DEFAULT_FIRST_TOKEN_TIMEOUT_S)
        + (stall if _finite(stall) else DEFAULT_STALL_TIMEOUT_S)
        + max(1, spec.max_tokens) * SECONDS_PER_TOKEN
    )


def _finite(seconds: float | None) -> TypeGuard[float]:
    return seconds is not None and math.isfinite(seconds)


class _Watchdog(Exception):
    def __init__(self, error_class: ErrorClass, limit_s: float) -> None:
        super().__init__(error_class.value)
        self.error_class = error_class
        self.limit_s = limit_s


def _next_deadline(result: RequestResult, spec: RequestSpec) -> tuple[int, ErrorClass, float]:
    """The nearest limit for the next event: first-token limit, stall limit, or total limit
    (the first of them on a tie). A limit that is not a finite number is no limit."""
    assert result.t_send is not None
    candidates = []
    if result.t_first_token is None:
        if spec.first_token_timeout_s is not None:
            candidates.append(
                (result.t_send, ErrorClass.FIRST_TOKEN_TIMEOUT, spec.first_token_timeout_s)
            )
    elif spec.stall_timeout_s is not None:
        last = result.event_times[-1] if result.event_times else result.t_first_token
        candidates.append((last, ErrorClass.STALL, spec.stall_timeout_s))
    total = spec.total_timeout_s
    total = total if _finite(total) else default_total_timeout_s(spec)  # always finite
    candidates.append((result.t_send, ErrorClass.TOTAL_TIMEOUT, total))
    return min(
        (
            (start + int(min(limit, MAX_LIMIT_S) * 1e9), kind, limit)
            for start, kind, limit in candidates
            if _finite(limit)
        ),
        key=lambda c: c[0],
    )


async def _with_deadline(awaitable: Any, result: RequestResult, spec: RequestSpec) -> Any:
    deadline, error_class, limit = _next_deadline(result, spec)
    remaining = max(0.0, (deadline - time.perf_counter_ns()) / 1e9)
    try:
        async with asyncio.timeout(remaining):
            return await awaitable
    except TimeoutError:
        raise _Watchdog(error_class, limit) from None


def _fill_estimates(result: RequestResult, spec: RequestSpec) -> None:
    """A server that sent no (believable) usage gets an estimate, and the row says so; usage
    below the text events (an event holds at least one token) is flagged as made up."""
    reported = result.completion_tokens
    if reported is not None and not result.usage_estimated:
        result.usage_suspect = reported < len(result.event_times)
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
    protocol: RefusalHints | None = None,
) -> RequestResult:
    """Send one streamed request and fill `result` with what happened. Never raises for I/O.
    `protocol`: chat's ClientProtocol, whose hints a refusal gets (protocols/chat.py).

    The SDK builds and sends the request (base URL, auth, headers, status errors); the SSE body
    is parsed here with plain json, because building the SDK's pydantic chunk objects costs
    ~0.5 ms of CPU per token (benchmarks/results/client_fidelity.md), which would make the
    client the bottleneck it must never be.
    """
    stamp_start(result)
    manager = client.chat.completions.with_streaming_response.create(
        model=result.model,
        # the messages go in extra_body, which the SDK merges into the same JSON body as they
        # are: as `messages` it walks each one through a union of six TypedDicts first, ~0.3 ms
        # of CPU per request that changes nothing in plain JSON messages
        messages=[],
        max_tokens=spec.max_tokens,
        temperature=spec.temperature,
        stream=True,
        stream_options={"include_usage": True},
        extra_body={"messages": spec.messages, **spec.extra_body},
        extra_headers=spec.extra_headers or None,
    )
    return await exchange(manager, result, spec, StreamReader(result, spec, on_text), protocol)


def stamp_start(result: RequestResult) -> None:
    """The request's start: until the transport reports the write (send_stamp.py), the send
    is now, so that a request that fails before any byte leaves still has a start."""
    if result.t_intended is None:
        result.t_intended = time.perf_counter_ns()
    result.started_at = time.time()
    result.t_send = time.perf_counter_ns()


async def exchange(
    manager: Any,
    result: RequestResult,
    spec: RequestSpec,
    stream: StreamReader,
    protocol: RefusalHints | None = None,
) -> RequestResult:
    """Send through `manager` (an async context manager whose value has `http_response`), read
    the body with `stream` and judge it; every failure becomes the row's error, with the hints
    of `protocol`, the protocol spoken."""
    entered = False
    try:
        with sending(result):
            response = await _with_deadline(manager.__aenter__(), result, spec)
        entered = True
        result.t_headers = time.perf_counter_ns()
        http = response.http_response
        result.http_status = http.status_code
        content_type = http.headers.get("content-type", "")
        if looks_like_html(content_type, ""):
            fail(result, await _html_instead(http, result, spec))
            return result
        await stream.consume(http)
        result.t_done = time.perf_counter_ns()
        _judge(result, spec, stream, content_type)
        if stream.complete() and result.ok:  # its connection is kept for the next request
            await drain(http)
    except _Watchdog as dog:
        result.t_done = time.perf_counter_ns()
        fail(result, _watchdog_diagnosis(dog, spec))
    except asyncio.CancelledError:
        result.t_done = time.perf_counter_ns()
        fail(result, diagnosis(ErrorClass.CANCELLED, fw.words(fw.STOPPED_BY_USER)))
        _fill_estimates(result, spec)
        raise
    except Exception as exc:  # every I/O failure becomes a classified row
        result.t_done = time.perf_counter_ns()
        started = result.t_headers is not None
        fail(result, classify_exception(exc, result.model, started, protocol))
    finally:
        if entered:  # closes the response: an overrun or oversized body is not read further
            try:
                await asyncio.shield(manager.__aexit__(None, None, None))
            except Exception:  # closing a broken stream may raise again; the row is written
                pass
        _fill_estimates(result, spec)
    return result


def _watchdog_diagnosis(dog: _Watchdog, spec: RequestSpec) -> Diagnosis:
    seconds = f"{dog.limit_s:g}"
    if dog.error_class is ErrorClass.STALL:
        return diagnosis(dog.error_class, fw.words(fw.NO_TOKEN_FOR, seconds=seconds))
    what = fw.words(fw.GAVE_UP_AFTER, seconds=seconds)
    if dog.error_class is ErrorClass.TOTAL_TIMEOUT and spec.total_timeout_s is None:
        what = fw.words(
            fw.GAVE_UP_AFTER_DEFAULT,
            seconds=seconds,
            max_tokens=spec.max_tokens,
            per_token=f"{SECONDS_PER_TOKEN:g}",
        )
    return diagnosis(dog.error_class, what)


async def _html_instead(
    http: httpx2.Response, result: RequestResult, spec: RequestSpec
) -> Diagnosis:
    """An HTML page where the stream should be: read its head only, never all of it."""
    head = bytearray()
    async with aclosing(http.aiter_bytes()) as chunks:
        while len(head) <= HTML_HEAD_BYTES:
            try:
                head += await _with_deadline(chunks.__anext__(), result, spec)
            except StopAsyncIteration:
                break
    size = f"{len(head)} bytes" if len(head) <= HTML_HEAD_BYTES else "over 64 KiB, not read"
    return diagnosis(
        ErrorClass.HTML,
        f"HTTP {http.status_code} with an HTML page ({size}) instead of a stream",
    )


def _judge(
    result: RequestResult, spec: RequestSpec, stream: StreamReader, content_type: str
) -> None:
    """A body that ended without an error: complete, truncated, empty, or overrun by usage."""
    if result.error_class is not None:
        return
    if not stream.complete():
        if stream.events == 0 and "text/event-stream" in content_type:
            what = (  # keep-alive comments at most: cut before the first event
                f"the body ended after {stream.splitter.received} bytes, before any stream event"
            )
            fail(result, diagnosis(ErrorClass.DROPPED, what))
        elif stream.events == 0:
            what = (
                f"{stream.splitter.received} bytes of body (Content-Type "
                f"{content_type[:60] or 'none'}) held no SSE `data:` event: not a stream"
            )
            fail(result, diagnosis(ErrorClass.MALFORMED, what))
        else:
            what = f"the body ended after {len(result.event_times)} text events with {stream.END}"
            fail(result, diagnosis(ErrorClass.TRUNCATED, what))
        return
    if not result.text and not result.reasoning_text:
        fail(result, _no_text(result))
        return
    reported = result.completion_tokens
    if reported is not None and reported > overrun_event_limit(spec.max_tokens):
        what = f"the server reported {reported} completion tokens for max_tokens={spec.max_tokens}"
        fail(result, diagnosis(ErrorClass.OVERRUN, what))


def _no_text(result: RequestResult) -> Diagnosis:
    """No text at all, or tokens without visible text (special tokens, partial UTF-8)."""
    tokens = result.completion_tokens or 0
    if tokens > 0 or result.finish_reason in LENGTH_REASONS:
        what = fw.words(
            fw.NO_VISIBLE_TEXT, tokens=result.completion_tokens, finish=result.finish_reason
        )
        return diagnosis(ErrorClass.NO_VISIBLE_TEXT, what)
    return diagnosis(ErrorClass.EMPTY, fw.words(fw.NO_TEXT))


def fail(result: RequestResult, diag: Diagnosis) -> None:
    """Give the row its error, unless it has one already."""
    if result.error_class is not None:
        return
    result.error_class = diag.error_class
    result.error_message = diag.message
    if diag.http_status is not None:
        result.http_status = diag.http_status
    result.retry_after_s = diag.retry_after_s


class StreamError(Exception):
    """An `error` object sent inside the stream; `diag` its class when the protocol says."""

    def __init__(self, text: str, diag: Diagnosis | None = None) -> None:
        super().__init__(text)
        self.diag = diag


def _text_field(delta: dict[str, Any], key: str, strict: bool) -> str:
    value = delta.get(key)
    if value is None:
        return ""
    if type(value) is str:
        return value
    if strict:
        raise MalformedChunk(f"delta.{key} is a {type(value).__name__}, not a string")
    return ""


def _choices(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunk's choices, checked: a list of objects, each delta an object."""
    choices = chunk.get("choices")
    if choices is None:
        return []
    if not isinstance(choices, list):
        raise MalformedChunk(f"choices is a {type(choices).__name__}, not a list")
    for choice in choices:
        if not isinstance(choice, dict):
            raise MalformedChunk(f"a choice is {json.dumps(choice)[:40]}, not an object")
        delta = choice.get("delta")
        if delta is not None and not isinstance(delta, dict):
            raise MalformedChunk(f"a delta is a {type(delta).__name__}, not an object")
        finish = choice.get("finish_reason")
        if finish is not None and not isinstance(finish, str):
            raise MalformedChunk(f"finish_reason is a {type(finish).__name__}, not a string")
    return choices


class StreamReader:
    """Reads one SSE body within its caps and fills the result as events arrive.

    A protocol's reader subclasses it: `_handle` reads one event, `complete` says whether the
    body ended as the protocol ends a stream, `END` names that end for a truncated row."""

    END: ClassVar[str] = "no [DONE] and no finish_reason"

    def __init__(
        self,
        result: RequestResult,
        spec: RequestSpec,
        on_text: Callable[[TextDelta], None] | None,
    ) -> None:
        self.result = result
        self.spec = spec
        self.on_text = on_text
        self.splitter = SSESplitter(body_limit_bytes(spec.max_tokens), spec.max_tokens)
        self.event_limit = overrun_event_limit(spec.max_tokens)
        self.estimate_limit = overrun_estimate_limit(spec.max_tokens)
        self.events = 0  # SSE data events, [DONE] included
        self.done = False  # [DONE] seen
        self.chars = 0  # characters of all text so far
        self.estimated = 0  # estimate_tokens of all text so far, kept once chars pass the limit
        self.held_back: list[str] = []  # texts since then not yet in `estimated`
        self.held_back_chars = 0
        self.text_parts: list[str] = []
        self.reasoning_parts: list[str] = []

    def complete(self) -> bool:
        return self.done or self.result.finish_reason is not None

    async def consume(self, http: httpx2.Response) -> None:
        """Every event of the body in order, until [DONE] or its end (sse.py splits it); one
        loop with the read inline, since each await level costs CPU at every token."""
        result, spec, splitter = self.result, self.spec, self.splitter
        watch = Watch(  # the limits as they stand: one timer, nothing per event (watchdog.py)
            lambda: _next_deadline(result, spec)[0],
            lambda: _Watchdog(*_next_deadline(result, spec)[1:]),
        )
        body = BodyReader(http)
        read = body.read
        try:
            async with watch:
                with body.errors():
                    while piece := await read():
                        if self._events(splitter.lines(piece), watch):
                            return
                    if not self._events(splitter.last_lines(), watch):
                        last = splitter.last_event()
                        if last is not None:
                            self._event(last, watch)
        except MalformedChunk as err:
            if not cut_inside(err, splitter):
                raise
            what = f"the body ended inside an event, after {len(result.event_times)} text events"
            fail(self.result, diagnosis(ErrorClass.TRUNCATED, what))
        except StreamError as err:
            what = f"error event in the stream: {err}"
            fail(self.result, err.diag or diagnosis(ErrorClass.SERVER, what))
        finally:
            await body.aclose()
            self.result.text = "".join(self.text_parts)
            self.result.reasoning_text = "".join(self.reasoning_parts)

    def _events(self, lines: list[bytes], watch: Watch) -> bool:
        """The events these lines complete; True at [DONE]."""
        for data in self.splitter.events(lines):
            if self._event(data, watch):
                return True
        return False

    def _event(self, data: bytes, watch: Watch) -> bool:
        """One event; True for [DONE]."""
        waiting = self.result.t_first_token is None
        if self._handle(data):
            self.done = True
            return True
        if waiting and self.result.t_first_token is not None:
            watch.rearm()  # the first-token limit gives way to the nearer stall limit
        return False

    def arrived(self) -> int:
        """Count an event and stamp it; the first event of all is `t_first_chunk`."""
        now = time.perf_counter_ns()
        self.events += 1
        if self.result.t_first_chunk is None:
            self.result.t_first_chunk = now
        return now

    def _handle(self, data: bytes) -> bool:
        """One event; True for [DONE]."""
        result = self.result
        now = self.arrived()
        if len(data) < 32 and data.strip() == b"[DONE]":
            return True
        try:
            chunk = _loads(data)
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly nested JSON
            raise MalformedChunk(f"not JSON: {_shown(data)!r}") from exc
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"not a JSON object: {_shown(data)!r}")
        if chunk.get("error"):
            raise StreamError(error_words(chunk["error"]))
        if result.response_id is None:
            result.response_id = _response_id(chunk.get("id"))
        has_usage = bool(chunk.get("usage"))
        if has_usage:
            _record_usage(result, chunk["usage"])
        for choice in _choices(chunk):
            self._choice(choice, now)
        if has_usage and result.finish_reason is None and result.t_first_token is not None:
            result.t_last_token = now  # no finish chunk: the usage chunk closes the decode span
        return False

    def _choice(self, choice: dict[str, Any], now: int) -> None:
        result = self.result
        if choice.get("finish_reason"):
            result.finish_reason = choice["finish_reason"][:64]
            if result.t_first_token is not None:
                result.t_last_token = now  # tokens without text end here (docs/metrics.md)
        delta = choice.get("delta") or {}
        if not delta:
            return  # an empty delta is never a token
        content = _text_field(delta, "content", strict=True)
        reasoning = _text_field(delta, "reasoning_content", strict=True)
        if not reasoning and "reasoning" in delta:
            reasoning = _text_field(delta, "reasoning", strict=False)
        if result.t_first_token is not None and (
            "content" in delta or "reasoning_content" in delta or "reasoning" in delta
        ):
            result.token_events += 1  # textless after the first text: a special token, say
            if not reasoning and not content:
                result.t_last_token = now
        if not reasoning and not content:
            return  # a role-only or empty delta is never a token
        self._text_event(content, reasoning, now)

    def delta(self, content: str, reasoning: str, now: int) -> None:
        """A protocol's text delta (a field that holds text, perhaps empty): as `_choice`
        counts a chat delta's content and reasoning fields."""
        result = self.result
        if result.t_first_token is not None:
            result.token_events += 1  # textless after the first text: a special token, say
            if not reasoning and not content:
                result.t_last_token = now
        if reasoning or content:
            self._text_event(content, reasoning, now)

    def _text_event(self, content: str, reasoning: str, now: int) -> None:
        """An event that carried text: the same fields by the same definitions for every
        protocol (docs/metrics.md)."""
        result = self.result
        if result.t_first_token is None:
            result.t_first_token = now
            result.token_events = 1
        if content and result.t_first_content is None:
            result.t_first_content = now
        result.t_last_token = now
        result.event_times.append(now)
        result.event_chars.append(len(content))
        result.event_reasoning_chars.append(len(reasoning))
        if reasoning:
            self.reasoning_parts.append(reasoning)
        if content:
            self.text_parts.append(content)
        if self.on_text is not None:
            if reasoning:
                self.on_text(TextDelta(result.request_id, reasoning, True, now, result.t_send))
            if content:
                self.on_text(TextDelta(result.request_id, content, False, now, result.t_send))
        self._check_overrun(content, reasoning)

    def _check_overrun(self, content: str, reasoning: str) -> None:
        """Stop at once when the output outgrows max_tokens: by events, or by estimated text."""
        events = len(self.result.event_times)
        if events > self.event_limit:
            raise Overrun(
                f"{events} text events for max_tokens={self.spec.max_tokens} (at most "
                f"{self.event_limit} allowed); stopped reading"
            )
        # the estimate never exceeds the characters, so it is worth computing only past the limit
        self.chars += len(content) + len(reasoning)
        if self.chars <= self.estimate_limit:
            return
        if self.estimated:
            # a text holds at most one estimated token per character: estimate the texts held
            # back only when they might carry the sum past the limit (same sum, same moment)
            self.held_back += (content, reasoning)
            self.held_back_chars += len(content) + len(reasoning)
            if self.estimated + self.held_back_chars <= self.estimate_limit:
                return
            self.estimated += sum(estimate_tokens(text) for text in self.held_back)
            self.held_back, self.held_back_chars = [], 0
        else:  # the first time past the limit: all the text so far
            self.estimated = estimate_tokens("".join(self.text_parts + self.reasoning_parts))
        if self.estimated > self.estimate_limit:
            raise Overrun(
                f"about {self.estimated} tokens of text for max_tokens={self.spec.max_tokens} "
                f"(at most {self.estimate_limit} allowed); stopped reading"
            )
