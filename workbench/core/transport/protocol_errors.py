"""An `error` event inside a stream, classified as the HTTP status of the same error would be,
so that rows, CSV, charts and the summary need no special case.

Each protocol names its errors by type or code, with the HTTP status of each in its table
(`ClientProtocol.status`: ANTHROPIC_STATUS and RESPONSES_STATUS in protocols/).
An error event mid-stream gets the class its status would give (errors.classify_status),
keeping the row's real HTTP status (200).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from workbench.core.foundation.errors import Diagnosis, classify_status
from workbench.core.foundation.redaction import redact_and_cut

UNKNOWN_STATUS = 500  # an error event without a known type: as chat's error event, a server error


def error_words(error: Any) -> str:
    """An error object's words as a person reads them: "type: message", cut and redacted."""
    err = error if isinstance(error, dict) else {"message": str(error)}
    kind = str(err.get("type") or err.get("code") or "")
    message = str(err.get("message") or kind or err)
    return redact_and_cut(f"{kind}: {message}" if kind and kind != message else message, 300)


def stream_error(error: Any, table: Mapping[str, int], model: str) -> tuple[str, Diagnosis]:
    """(the error's words, its diagnosis) for an error object sent inside a stream; `table`:
    the protocol's error types and codes to HTTP statuses."""
    if error is None:
        error = {"message": "the server ended the response as failed, with no error object"}
    err = error if isinstance(error, dict) else {"message": str(error)}
    kind = str(err.get("type") or err.get("code") or "")
    status = table.get(kind, UNKNOWN_STATUS)
    message = str(err.get("message") or kind or err)
    text = redact_and_cut(f"{kind}: {message}" if kind else message, 300)
    body = json.dumps({"error": {"type": kind, "message": message}})
    diag = classify_status(status, body, "application/json", model)
    what = f"error event in the stream: {text}"
    return text, replace(diag, what=what, http_status=None)
