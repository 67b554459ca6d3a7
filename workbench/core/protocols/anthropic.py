"""Anthropic Messages (`POST {api root}/v1/messages`, version 2023-06-01): its body and stream in
stream_anthropic.py; the key in `x-api-key`, the `anthropic-version` header.

Base URL: as the Anthropic SDK takes it. Claude Code users hold ANTHROPIC_BASE_URL without
`/v1` (`https://gateway:4000`), and the SDK posts to it + `/v1/messages`; our base URLs end at
`/v1` for every protocol. Both work: a base URL that does not end in `/v1` gets it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.protocols.base import Hint, anthropic_shaped, json_of
from workbench.core.protocols.post import PostedProtocol

if TYPE_CHECKING:  # the stream's modules load with the first request, not with the window
    from workbench.core.foundation.results import RequestResult
    from workbench.core.planning.run_events import TextDelta
    from workbench.core.transport.streaming import RequestSpec, StreamReader

# an error event's type -> its HTTP status (Anthropic's docs, "Errors", API version 2023-06-01)
ANTHROPIC_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

ANTHROPIC_VERSION = "2023-06-01"  # the Messages API version we speak; a provider header overrides

# a 404 on .../v1/messages: the words say what is known, and the doctor probes for the rest
NO_MESSAGES: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "this base URL does not speak the Anthropic Messages API: POST .../v1/messages is not "
        "there (a base URL without /v1 gets it added, as Anthropic's SDK does)",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "run `workbench doctor --base-url URL --protocol anthropic`: it tries the other "
        "protocols' paths and names the one this URL speaks; if that is chat, use --protocol chat "
        '(or protocol = "chat" for the provider)',
    ),
)
VERSION_REFUSED: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "the server wants the anthropic-version header, which the request lacked or gave a value "
        "it does not accept",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "the workbench sends anthropic-version: 2023-06-01 unless the provider's headers set it; "
        "remove a wrong anthropic-version from the provider's headers, or set the one the server "
        'documents (headers = { anthropic-version = "2023-06-01" })',
    ),
)


FOUND_ANTHROPIC: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "this base URL answers POST .../v1/messages in Anthropic's shape: it speaks Anthropic "
        "Messages",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "POST .../v1/messages answers at this base URL: use --protocol anthropic (or protocol = "
        '"anthropic" for the provider)',
    ),
)


class AnthropicProtocol(PostedProtocol):
    name = "anthropic"
    label = QT_TRANSLATE_NOOP("Protocol", "Anthropic Messages")
    path = "/messages"
    auth = "x-api-key"
    status = ANTHROPIC_STATUS
    models_query: ClassVar[Mapping[str, object]] = {"limit": 1000}  # in pages (has_more)
    probe_rank = 1
    found_here = FOUND_ANTHROPIC
    unlisted = (
        QT_TRANSLATE_NOOP(
            "Doctor",
            'the model list is not the Anthropic shape {"data": [{"type": "model", "id": '
            '...}], "has_more": ...}: the endpoint does not speak the Anthropic Messages API',
        ),
        QT_TRANSLATE_NOOP(
            "Doctor",
            "check that the base URL is the one the provider gives for Anthropic clients",
        ),
    )

    def api_root(self, base_url: str) -> str:
        base = base_url.rstrip("/")
        return base if re.search(r"/v1$", base, re.IGNORECASE) else f"{base}/v1"

    def headers(self, given: Collection[str]) -> dict[str, str]:
        return {} if "anthropic-version" in given else {"anthropic-version": ANTHROPIC_VERSION}

    def body(self, model: str, spec: RequestSpec) -> dict[str, Any]:
        from workbench.core.protocols.stream_anthropic import anthropic_body

        return anthropic_body(model, spec)

    def reader(
        self, result: RequestResult, spec: RequestSpec, on_text: Callable[[TextDelta], None] | None
    ) -> StreamReader:
        from workbench.core.protocols.stream_anthropic import AnthropicStream

        return AnthropicStream(result, spec, on_text, error_status=self.status)

    def speaks(self, body: str) -> bool:
        return anthropic_shaped(json_of(body))

    def missing_path(self, body: str) -> Hint | None:
        # an error in Anthropic's own shape is the API answering (an unknown model, say)
        return None if anthropic_shaped(json_of(body)) else NO_MESSAGES

    def refused(self, status: int, body: str) -> Hint | None:
        return VERSION_REFUSED if status == 400 and "anthropic-version" in body.lower() else None

    def hints(self) -> tuple[Hint, ...]:
        return (NO_MESSAGES, VERSION_REFUSED, FOUND_ANTHROPIC)


ANTHROPIC = AnthropicProtocol()
