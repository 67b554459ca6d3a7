"""The one redaction function every output goes through, and the registry of secrets it masks.

A key's text never leaves the process: logs, error messages, CSV, the database and the UI all
pass through `redact`. Keys that the process resolves (keys.py) are registered here so that even
a key with no recognisable shape is masked. This module imports nothing from workbench: every
layer can redact.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

_MASK = "***"
_known: set[str] = set()
_lock = threading.Lock()

# Shapes that look like credentials even when we never resolved them ourselves.
_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),  # OpenAI-style and most gateways
    re.compile(r"(?i)((?:bearer|basic)\s+)[A-Za-z0-9._\-~+/=]{8,}"),
    # the scheme word after "Authorization:" is no secret (the credential after it is masked
    # above): masking it turned our own advice "'Authorization: Bearer <key>'" into nonsense
    # a number after such a word is a figure ("time_to_first_token: 72.476"), never a key
    re.compile(
        r"(?i)((?:api[_-]?key|token|authorization|secret)[\"']?\s*[:=]\s*[\"']?)"
        r"(?!(?:bearer|basic)\b)"
        r"(?![-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?:[\s\"',;&}\]]|$))"
        r"[^\s\"',;&]{6,}"
    ),
    re.compile(r"(?i)([?&](?:api[_-]?key|key|token)=)[^&\s]+"),
]


def register_secret(value: str | None) -> None:
    """Remember a key so `redact` masks it wherever it appears (and logging is redacted)."""
    if value and len(value.strip()) >= 4:
        with _lock:
            _known.add(value)
            _known.add(value.strip())
        install_log_redaction()


def redact(text: str | None) -> str:
    """Mask every known key and anything shaped like one."""
    if not text:
        return text or ""
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, _MASK)
    for pattern in _PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + _MASK, text)
        else:
            text = pattern.sub(_MASK, text)
    return text


def redact_values(document: object) -> Any:
    """A JSON document with every string in it (keys included) redacted, and numbers, booleans
    and nulls as they were: redaction by value, so the JSON stays valid and a field's name
    never masks its figure."""
    if isinstance(document, str):
        return redact(document)
    if isinstance(document, dict):
        return {redact(str(k)): redact_values(v) for k, v in document.items()}
    if isinstance(document, list | tuple):
        return [redact_values(v) for v in document]
    return document


_CUT_WINDOW = 4096  # characters beyond `limit` that `redact_and_cut` redacts before cutting


def redact_and_cut(text: str | None, limit: int, *, ellipsis: str = "") -> str:
    """`text` redacted, then cut to `limit` characters (`ellipsis` appended when cut).

    Always in this order: a key cut in half first is no longer recognised by `redact`, and its
    first half would stay. Only a window of `text` is redacted (a hostile body may be huge);
    when the window cuts `text`, its last unbroken run of characters, where part of a key could
    sit, is dropped as well.
    """
    if not text:
        return ""
    with _lock:
        longest = max((len(s) for s in _known), default=0)
    window = text[: limit + _CUT_WINDOW + longest]
    clean = redact(window)
    if len(window) < len(text):
        clean = re.sub(r"\S*$", "", _drop_secret_prefix(clean))
    if len(clean) <= limit and len(window) == len(text):
        return clean
    return clean[:limit] + ellipsis


def _drop_secret_prefix(text: str) -> str:
    """`text` without a trailing first part (4+ characters) of a known key."""
    with _lock:
        known = list(_known)
    for secret in known:
        for size in range(len(secret) - 1, 3, -1):
            if text.endswith(secret[:size]):
                return text[:-size]
    return text


# ---- logging ----


class RedactingFilter(logging.Filter):
    """Runs every record's message (and its traceback text) through `redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return True


def _redact_record(record: logging.LogRecord) -> None:
    if getattr(record, "_workbench_redacted", False):
        return
    try:
        message = record.getMessage()
    except Exception:  # a malformed format string: leave it for logging to report
        return
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    record._workbench_redacted = True


_FILTER = RedactingFilter()
_installed = False


def install_log_redaction() -> None:
    """Redact every log record in this process, whichever logger or handler it goes through.

    The filter sits on the root logger and its handlers; a record factory covers records of
    child loggers and handlers added later (pytest's caplog, the GUI's log view). Idempotent.
    """
    global _installed
    root = logging.getLogger()
    if _FILTER not in root.filters:
        root.addFilter(_FILTER)
    for handler in root.handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _redact_record(record)
        return record

    logging.setLogRecordFactory(factory)
