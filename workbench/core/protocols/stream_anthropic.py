"""An Anthropic Messages request's body and stream (`POST {api root}/messages`; sent by
protocols/anthropic.py), read into the same RequestResult fields by the same definitions as a
chat completion (docs/metrics.md).

Events (Messages API, version 2023-06-01): `message_start` (the id, and usage with the input
and cache counts), `content_block_start`, `content_block_delta` (`text_delta` is answer text,
`thinking_delta` reasoning; `signature_delta` and `input_json_delta` carry no text),
`content_block_stop`, `message_delta` (`stop_reason`, and usage with the final
`output_tokens`), `message_stop` (the end), `ping`, and `error`. A body that ends without
`message_stop` is truncated.

Counts: Anthropic's `input_tokens` leaves out the prompt tokens read from or written to its
cache, so `prompt_tokens` is their sum (as OpenAI counts a prompt), `cached_tokens` the cache
reads and `cache_creation_tokens` the cache writes. `finish_reason` keeps Anthropic's word
(`end_turn`, `max_tokens`, `stop_sequence`, `tool_use`, ...).

Errors are named by type (docs: "Errors", API version 2023-06-01), each with its HTTP status
(ANTHROPIC_STATUS in protocols/anthropic.py, handed to the reader). `overloaded_error` (HTTP
529) is a server error, not a rate limit: it says the provider as a whole is out of capacity,
which lowering this key's concurrency does not fix; the advice of `server_error` (retry later,
report it if it persists) fits, and a 529 answer gets that class from its status too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.core.protocols.post import split_system
from workbench.core.transport.protocol_errors import stream_error
from workbench.core.transport.stream_values import (
    event_object,
    response_id,
    table,
    take_counts,
    text_of,
)
from workbench.core.transport.streaming import RequestSpec, StreamError, StreamReader

_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def anthropic_body(model: str, spec: RequestSpec) -> dict[str, Any]:
    """The Messages API's request: the system prompt as top-level `system`."""
    system, messages = split_system(spec.messages)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": spec.max_tokens,
        "messages": messages,
        "stream": True,
        "temperature": spec.temperature,
    }
    if system is not None:
        body["system"] = system
    return {**body, **spec.extra_body}


class AnthropicStream(StreamReader):
    """Reads a Messages stream's events."""

    END = "no message_stop event"

    def __init__(self, *args: Any, error_status: Mapping[str, int]) -> None:
        super().__init__(*args)
        self.error_status = error_status  # the protocol's error type -> HTTP status
        self.usage: dict[str, Any] = {}  # the latest of each count, message_start's then deltas'

    def complete(self) -> bool:
        return self.done

    def _handle(self, data: bytes) -> bool:
        """One event; True for message_stop."""
        now = self.arrived()
        event = event_object(data)
        kind = event.get("type")
        if kind == "content_block_delta":
            delta = table(event, "delta")
            if delta.get("type") == "text_delta":
                self.delta(text_of(delta, "text", "delta"), "", now)
            elif delta.get("type") == "thinking_delta":
                self.delta("", text_of(delta, "thinking", "delta"), now)
            return False  # signature_delta, input_json_delta: no text
        if kind == "message_start":
            message = table(event, "message")
            self.result.response_id = response_id(message.get("id"))
            usage = message.get("usage")
            # its output_tokens is a placeholder (1): the count is message_delta's, and a stream
            # cut before that has none (estimated from its text, as chat's would be)
            if isinstance(usage, dict):
                usage = {k: v for k, v in usage.items() if k != "output_tokens"}
            self._usage(usage)
        elif kind == "message_delta":
            self._message_delta(event, now)
        elif kind == "message_stop":
            return True
        elif kind == "error":
            text, diag = stream_error(event.get("error"), self.error_status, self.result.model)
            raise StreamError(text, diag)
        return False  # ping, content_block_start/stop, and events added later

    def _message_delta(self, event: dict[str, Any], now: int) -> None:
        """The stop reason and the final usage: like chat's finish chunk, it ends the decode
        span (tokens that carried no text end here)."""
        result = self.result
        stop = table(event, "delta").get("stop_reason")
        if isinstance(stop, str) and stop:
            result.finish_reason = stop[:64]
        if "usage" in event:
            self._usage(event["usage"])
        if result.t_first_token is not None:
            result.t_last_token = now

    def _usage(self, usage: Any) -> None:
        """Merge a usage block into the counts so far and fill the row's counts from them."""
        result = self.result
        if not isinstance(usage, dict):
            result.usage_estimated = True
            return
        self.usage.update({k: usage[k] for k in _USAGE_KEYS if k in usage})
        take_counts(
            result,
            {
                "completion_tokens": self.usage.get("output_tokens"),
                "cached_tokens": self.usage.get("cache_read_input_tokens"),
                "cache_creation_tokens": self.usage.get("cache_creation_input_tokens"),
            },
        )
        take_counts(result, {"prompt_tokens": self.usage.get("input_tokens")})
        if result.prompt_tokens is not None:  # Anthropic's input leaves the cache out
            result.prompt_tokens += (result.cached_tokens or 0) + (
                result.cache_creation_tokens or 0
            )
