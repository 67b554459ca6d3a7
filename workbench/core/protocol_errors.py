"""An `error` event inside an Anthropic or Responses stream, classified as the HTTP status of
the same error would be, so that rows, CSV, charts and the summary need no special case.

Anthropic names its errors by type (docs: "Errors", API version 2023-06-01), each with its HTTP
status; OpenAI's Responses API names them by code. An error event mid-stream gets the class its
status would give (errors.classify_status), keeping the row's real HTTP status (200).

`overloaded_error` (HTTP 529) is a server error, not a rate limit: it says the provider as a
whole is out of capacity, which lowering this key's concurrency does not fix; the advice of
`server_error` (retry later, report it if it persists) fits, and a 529 answer gets that class
from its status too.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from workbench.core.errors import Diagnosis, classify_status
from workbench.core.redaction import redact_and_cut

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
# Responses' error codes (response.failed's `error.code`, an `error` event's `code`)
RESPONSES_STATUS = {
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "server_error": 500,
    "invalid_prompt": 400,
    "invalid_request_error": 400,
    "vector_store_timeout": 504,
}
UNKNOWN_STATUS = 500  # an error event without a known type: as chat's error event, a server error


def error_words(error: Any) -> str:
    """An error object's words as a person reads them: "type: message", cut and redacted."""
    err = error if isinstance(error, dict) else {"message": str(error)}
    kind = str(err.get("type") or err.get("code") or "")
    message = str(err.get("message") or kind or err)
    return redact_and_cut(f"{kind}: {message}" if kind and kind != message else message, 300)


def stream_error(error: Any, protocol: str, model: str) -> tuple[str, Diagnosis]:
    """(the error's words, its diagnosis) for an error object sent inside a stream."""
    if error is None:
        error = {"message": "the server ended the response as failed, with no error object"}
    err = error if isinstance(error, dict) else {"message": str(error)}
    kind = str(err.get("type") or err.get("code") or "")
    table = ANTHROPIC_STATUS if protocol == "anthropic" else RESPONSES_STATUS
    status = table.get(kind, UNKNOWN_STATUS)
    message = str(err.get("message") or kind or err)
    text = redact_and_cut(f"{kind}: {message}" if kind else message, 300)
    body = json.dumps({"error": {"type": kind, "message": message}})
    diag = classify_status(status, body, "application/json", model)
    what = f"error event in the stream: {text}"
    return text, replace(diag, what=what, http_status=None)
