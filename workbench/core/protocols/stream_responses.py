"""An OpenAI Responses request's body and stream (`POST {base_url}/responses`; sent by
protocols/responses.py), read into the same RequestResult fields by the same definitions as a
chat completion (docs/metrics.md).

Events (Responses API streaming events, as documented in 2025): `response.created` and
`response.in_progress` (the id), `response.output_item.added`, `response.content_part.added`,
`response.output_text.delta` (answer text), `response.reasoning_summary_text.delta` and
`response.reasoning_text.delta` (reasoning), `response.output_text.done`, then one terminal
event with the usage: `response.completed`, `response.incomplete` (with
`incomplete_details.reason`) or `response.failed` (with `error`); and `error`. A body that ends
without a terminal event is truncated.

`finish_reason` keeps the Responses API's word: `completed`, or the reason the response is
incomplete (`max_output_tokens`, `content_filter`). OpenAI refuses `max_output_tokens` below 16,
so a smaller max_tokens is sent as 16, and the stream's limits count from the 16 sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.core.protocols.post import split_system
from workbench.core.transport.protocol_errors import stream_error
from workbench.core.transport.stream_values import (
    count,
    event_object,
    response_id,
    table,
    take_counts,
    text_of,
)
from workbench.core.transport.streaming import RequestSpec, StreamError, StreamReader

# Responses' error codes (response.failed's `error.code`, an `error` event's `code`)
_REASONING = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")
_TERMINAL = ("response.completed", "response.incomplete")


def responses_body(model: str, spec: RequestSpec) -> dict[str, Any]:
    """The Responses API's request: messages as input items, a system prompt as
    `instructions`."""
    system, messages = split_system(spec.messages)
    body: dict[str, Any] = {
        "model": model,
        "input": [{"role": m.get("role"), "content": m.get("content")} for m in messages],
        "max_output_tokens": spec.max_tokens,
        "stream": True,
        "temperature": spec.temperature,
    }
    if system is not None:
        body["instructions"] = system
    return {**body, **spec.extra_body}


class ResponsesStream(StreamReader):
    """Reads a Responses stream's events."""

    END = "no response.completed (or other terminal) event"

    def __init__(self, *args: Any, error_status: Mapping[str, int]) -> None:
        super().__init__(*args)
        self.error_status = error_status  # the protocol's error code -> HTTP status

    def complete(self) -> bool:
        return self.done

    def _handle(self, data: bytes) -> bool:
        """One event; True for a terminal one."""
        now = self.arrived()
        event = event_object(data)
        kind = event.get("type")
        if kind == "response.output_text.delta":
            self.delta(text_of(event, "delta", kind), "", now)
        elif kind in _REASONING:
            self.delta("", text_of(event, "delta", str(kind)), now)
        elif kind in ("response.created", "response.in_progress"):
            if self.result.response_id is None:
                self.result.response_id = response_id(table(event, "response").get("id"))
        elif kind in _TERMINAL:
            self._terminal(table(event, "response"), now)
            return True
        elif kind == "response.failed":
            error = table(event, "response").get("error")
            text, diag = stream_error(error, self.error_status, self.result.model)
            raise StreamError(text, diag)
        elif kind == "error":
            text, diag = stream_error(event, self.error_status, self.result.model)
            raise StreamError(text, diag)
        return False

    def _terminal(self, response: dict[str, Any], now: int) -> None:
        """The status and usage: like chat's finish chunk, it ends the decode span."""
        result = self.result
        if result.response_id is None:
            result.response_id = response_id(response.get("id"))
        reason = table(response, "incomplete_details").get("reason")
        status = reason if isinstance(reason, str) and reason else response.get("status")
        result.finish_reason = status[:64] if isinstance(status, str) and status else "completed"
        usage = response.get("usage")
        if isinstance(usage, dict):
            take_counts(
                result,
                {
                    "prompt_tokens": usage.get("input_tokens"),
                    "completion_tokens": usage.get("output_tokens"),
                    "cached_tokens": table(usage, "input_tokens_details").get("cached_tokens"),
                },
            )
            details = table(usage, "output_tokens_details")
            result.reasoning_tokens = count(details.get("reasoning_tokens"))
        else:
            result.usage_estimated = True
        if result.t_first_token is not None:
            result.t_last_token = now
