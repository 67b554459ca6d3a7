"""Plain data that crosses module boundaries: targets, prices, one request's raw record.

Everything here is a value: no I/O, no Qt. Derived figures live in `metrics.py`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True)
class Prices:
    """USD per million tokens; `cached_input` applies to prompt tokens served from a cache.

    `known` is False when no catalog entry or providers.toml gives the model's prices (a
    gateway alias, a self-hosted model): its cost is unknown, never $0."""

    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None
    known: bool = True


UNKNOWN_PRICES = Prices(known=False)

# The limits a request gets when neither its provider nor the user sets them (the one home).
DEFAULT_FIRST_TOKEN_TIMEOUT_S = 300.0
DEFAULT_STALL_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Timeouts:
    """A request's limits in seconds: first token, stall (no token), whole request; None: none."""

    first_token_s: float | None = DEFAULT_FIRST_TOKEN_TIMEOUT_S
    stall_s: float | None = DEFAULT_STALL_TIMEOUT_S
    total_s: float | None = None


def target_label(provider: str, model: str, protocol: str | None = "chat") -> str:
    """A target's name in a run: one model through two protocols is two targets, so Stop,
    refusals and a worker's rows keep them apart."""
    via = f" via {protocol}" if protocol and protocol != "chat" else ""
    return f"{provider}/{model}{via}"


@dataclass(frozen=True)
class Target:
    """One (provider, model) pair that a comparison or sweep measures."""

    provider: str
    base_url: str
    model: str
    attention: str | None = None
    prices: Prices = field(default_factory=Prices)
    context_window: int | None = None
    route: str | None = None  # "direct" or "gateway" in a route comparison (--compare-route)
    # its limits, the one home of a request's timeouts: its provider's, each overridden by
    # the user's explicit choice (core/run/plan.py); the defaults for a target made by hand
    timeouts: Timeouts = field(default_factory=Timeouts)
    protocol: str = "chat"  # chat, responses or anthropic (providers.Protocol)
    auth: str = "bearer"  # how the key is sent: bearer or x-api-key

    @property
    def label(self) -> str:
        return target_label(self.provider, self.model, self.protocol)


class ErrorClass(StrEnum):
    """Why a request failed; each class has a cause and a fix in `errors.py`."""

    AUTH = "auth"  # 401 / 403
    NOT_FOUND = "not_found"  # 404: wrong base URL or path
    MODEL_NOT_FOUND = "model_not_found"  # 404/400 that names the model
    RATE_LIMIT = "rate_limit"  # 429
    QUOTA = "quota"  # 402, or 429 whose body says the quota is spent
    SERVER = "server_error"  # 5xx
    BAD_REQUEST = "bad_request"  # other 4xx (context too long, refused)
    OUT_OF_MEMORY = "out_of_memory"  # the server says the KV cache (or the GPU) is out of memory
    HTML = "html_response"  # an HTML page where JSON or SSE was expected
    CONNECT = "connect_error"  # DNS, TCP, TLS, proxy
    DROPPED = "dropped"  # the connection ended mid-stream
    TRUNCATED = "truncated"  # the body ended without [DONE] or any finish_reason
    OVERRUN = "overrun"  # more output than max_tokens allows; reading stopped
    OVERSIZED = "oversized"  # a line, event or body over its size cap; reading stopped
    PROTOCOL = "protocol_error"  # HTTP itself broken: bad chunked encoding, huge headers
    REDIRECT = "redirect"  # a 3xx answer: never followed for a POST
    INVALID_KEY = "invalid_key"  # a key or header value HTTP cannot carry; nothing was sent
    MALFORMED = "malformed_chunk"  # an SSE event that is not valid JSON or not a chunk
    FIRST_TOKEN_TIMEOUT = "first_token_timeout"
    STALL = "stall_timeout"  # no token for longer than the stall limit
    TOTAL_TIMEOUT = "total_timeout"
    EMPTY = "empty_response"  # the stream ended without any text
    NO_VISIBLE_TEXT = "no_visible_text"  # tokens came (usage, or finish length), but no text
    CANCELLED = "cancelled"
    WORKER_LOST = "worker_lost"  # the client process (or cluster node) running it died
    INTERNAL = "internal"  # a bug of ours; the message says what


# Why a request was sent: to learn the model's tokenizer, to warm the server, or to be measured.
PHASES: tuple[str, ...] = ("calibration", "warmup", "measured")


@dataclass
class RequestResult:
    """One request as it happened: raw `perf_counter_ns` timestamps and what the server said.

    Timestamps are None when the moment never came (an error before the first token, say).
    """

    model: str
    provider: str = ""
    base_url: str = ""
    attention: str | None = None
    run_id: str = ""
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started_at: float = 0.0  # wall clock, seconds since the epoch, at t_send
    prompt_tokens_target: int | None = None
    repeat: int = 0
    concurrency: int = 1
    attempt: int = 1  # 1 for the first try; a retry is a new row with attempt > 1
    warmup: bool = False  # not measured: a warm-up or a calibration request
    phase: str = "measured"  # one of PHASES: why the request was sent
    task: str = ""  # "summary" or "needle@0.50"
    # when the request was due (the runner's schedule); t_send - t_intended is dispatch_ms
    t_intended: int | None = None
    t_send: int | None = None  # when its bytes were written (send_stamp.py)
    t_headers: int | None = None
    t_first_chunk: int | None = None
    t_first_token: int | None = None
    t_first_content: int | None = None
    t_last_token: int | None = None
    t_done: int | None = None
    event_times: list[int] = field(default_factory=list)  # every event that carried text
    event_chars: list[int] = field(default_factory=list)  # content characters of each event
    event_reasoning_chars: list[int] = field(default_factory=list)  # reasoning chars of each
    # events from the first text on whose delta held a content field, empty ones included
    # (0: unknown, e.g. a row stored by an older version; then one per text event)
    token_events: int = 0
    text: str = ""
    reasoning_text: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    usage_estimated: bool = False
    # usage made up: fewer output tokens than text events, or a prompt count far from the
    # calibrated estimate (docs/metrics.md)
    usage_suspect: bool = False
    finish_reason: str | None = None
    http_status: int | None = None
    response_id: str | None = None  # the server's completion id (chunk.id)
    error_class: ErrorClass | None = None
    error_message: str | None = None
    retry_after_s: float | None = None  # from a 429/503 answer's Retry-After header
    needle_found: bool | None = None
    network_baseline_ms: float | None = None
    baseline_method: str | None = None  # "chat" or "models": how the baseline was measured
    route: str | None = None  # "direct" or "gateway" in a route comparison
    prices: Prices = field(default_factory=Prices)
    protocol: str = "chat"  # the wire protocol it was sent with: chat, responses or anthropic
    # prompt tokens written into the server's prompt cache (Anthropic's
    # cache_creation_input_tokens); part of prompt_tokens, as cached_tokens is
    cache_creation_tokens: int | None = None
    # output tokens the server says were reasoning (usage's reasoning_tokens); part of
    # completion_tokens
    reasoning_tokens: int | None = None
    # open-loop runs (--rate): when the schedule said it was due, seconds from its cell's start
    # (core/load/arrivals.py); None in a closed-loop run
    scheduled_s: float | None = None
    # open-loop runs at a rate: the cell's offered rate, requests/s (a capacity search's step
    # is one cell per rate); None in a closed-loop run and in a trace's replay
    offered_rate: float | None = None
    # met every objective of the run's SLO (core/load/slo.py); None when the run has no SLO
    slo_met: bool | None = None

    @property
    def ok(self) -> bool:
        return self.error_class is None

    @property
    def stopped(self) -> bool:
        """Stopped by the user (Stop, Ctrl-C): its own outcome, neither a result nor a failure;
        the CSV and the history keep error_class 'cancelled'."""
        return self.error_class == ErrorClass.CANCELLED

    @property
    def failed(self) -> bool:
        return not self.ok and not self.stopped


def planned_result(
    target: Target,
    run_id: str,
    length: int,
    repeat: int,
    phase: str,
    concurrency: int,
    task: str,
) -> RequestResult:
    """A planned request's row before anything is known of its answer: which target, which
    prompt length, which repeat and why it is sent (calibration, warmup or measured)."""
    return RequestResult(
        model=target.model,
        provider=target.provider,
        base_url=target.base_url,
        attention=target.attention,
        run_id=run_id,
        prompt_tokens_target=length,
        repeat=repeat,
        concurrency=concurrency,
        warmup=phase != "measured",
        phase=phase,
        task=task,
        route=target.route,
        prices=target.prices,
        protocol=target.protocol,
    )
