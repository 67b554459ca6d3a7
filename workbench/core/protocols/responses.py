"""OpenAI Responses (`POST {base_url}/responses`): its body and stream in stream_responses.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.protocols.base import Hint, anthropic_shaped, json_of
from workbench.core.protocols.post import PostedProtocol

if TYPE_CHECKING:  # the stream's modules load with the first request, not with the window
    from workbench.core.foundation.results import RequestResult
    from workbench.core.planning.run_events import TextDelta
    from workbench.core.transport.streaming import RequestSpec, StreamReader

# an error event's code -> its HTTP status (OpenAI's Responses streaming errors)
RESPONSES_STATUS = {
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "server_error": 500,
    "invalid_prompt": 400,
    "invalid_request_error": 400,
    "vector_store_timeout": 504,
}
MIN_OUTPUT_TOKENS = 16  # OpenAI's least max_output_tokens

NO_RESPONSES: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "this base URL does not speak the OpenAI Responses API (POST .../responses is not "
        "there): many servers speak only chat completions",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        'try --protocol chat (or protocol = "chat" for the provider)',
    ),
)


FOUND_RESPONSES: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "this base URL answers POST .../responses in OpenAI's shape: it speaks OpenAI Responses",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "POST .../responses answers at this base URL: use --protocol responses (or protocol = "
        '"responses" for the provider)',
    ),
)


class ResponsesProtocol(PostedProtocol):
    name = "responses"
    label = QT_TRANSLATE_NOOP("Protocol", "OpenAI Responses")
    path = "/responses"
    status = RESPONSES_STATUS
    probe_rank = 2
    found_here = FOUND_RESPONSES

    def prepare(self, spec: RequestSpec) -> RequestSpec:
        # OpenAI refuses a smaller cap; the stream's limits count from the one sent
        return replace(spec, max_tokens=max(MIN_OUTPUT_TOKENS, spec.max_tokens))

    def body(self, model: str, spec: RequestSpec) -> dict[str, Any]:
        from workbench.core.protocols.stream_responses import responses_body

        return responses_body(model, spec)

    def reader(
        self, result: RequestResult, spec: RequestSpec, on_text: Callable[[TextDelta], None] | None
    ) -> StreamReader:
        from workbench.core.protocols.stream_responses import ResponsesStream

        return ResponsesStream(result, spec, on_text, error_status=self.status)

    def missing_path(self, body: str) -> Hint | None:
        return None if anthropic_shaped(json_of(body)) else NO_RESPONSES

    def hints(self) -> tuple[Hint, ...]:
        return (NO_RESPONSES, FOUND_RESPONSES)


RESPONSES = ResponsesProtocol()
