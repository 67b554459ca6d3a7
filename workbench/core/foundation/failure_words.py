"""What a failed request's row says happened (`RequestResult.error_message` before its
". Cause:"), written once here: the transport fills these templates in English (the CSV, the
database and the CLI keep that text), and the doctor reads a row's text back into the phrase it
was made from (`said_what`), so the window says it in its language. Context "RequestFailure";
fields in {braces} are data (an exception's own words, seconds, token counts)."""

from __future__ import annotations

import re
from functools import cache

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, data, phrase

CONTEXT = "RequestFailure"

CANNOT_CONNECT = QT_TRANSLATE_NOOP("RequestFailure", "cannot connect ({detail})")
PROXY_FAILED = QT_TRANSLATE_NOOP("RequestFailure", "proxy failed ({detail})")
LOST_MID_STREAM = QT_TRANSLATE_NOOP("RequestFailure", "connection lost mid-stream ({detail})")
BAD_EVENT = QT_TRANSLATE_NOOP("RequestFailure", "bad stream event ({detail})")
BROKEN_HTTP = QT_TRANSLATE_NOOP("RequestFailure", "broken HTTP response ({kind}: {text})")
ERROR_EVENT = QT_TRANSLATE_NOOP("RequestFailure", "error event in the stream: {error}")
NO_TOKEN_FOR = QT_TRANSLATE_NOOP("RequestFailure", "no token for {seconds} s")
GAVE_UP_AFTER = QT_TRANSLATE_NOOP("RequestFailure", "gave up after {seconds} s")
GAVE_UP_AFTER_DEFAULT = QT_TRANSLATE_NOOP(
    "RequestFailure",
    "gave up after {seconds} s (the default total limit for max_tokens={max_tokens}: "
    "first-token limit + stall limit + {per_token} s per token)",
)
NO_TEXT = QT_TRANSLATE_NOOP("RequestFailure", "the stream ended with no text")
NO_VISIBLE_TEXT = QT_TRANSLATE_NOOP(
    "RequestFailure",
    "the server generated tokens (completion_tokens={tokens}, finish_reason={finish}) but sent "
    "no visible text",
)
STOPPED_BY_USER = QT_TRANSLATE_NOOP("RequestFailure", "stopped by the user")

TEMPLATES = (
    CANNOT_CONNECT,
    PROXY_FAILED,
    LOST_MID_STREAM,
    BAD_EVENT,
    BROKEN_HTTP,
    ERROR_EVENT,
    NO_TOKEN_FOR,
    GAVE_UP_AFTER,
    GAVE_UP_AFTER_DEFAULT,
    NO_TEXT,
    NO_VISIBLE_TEXT,
    STOPPED_BY_USER,
)
_FIELD = re.compile(r"\{(\w+)\}")


def words(template: str, **fields: object) -> str:
    """The English of one of the templates above, for a row's error message."""
    return str(phrase(template, context=CONTEXT, **fields))


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Each template as a pattern whose groups are its fields, the longest first (the longer
    of two that start alike is the one to match)."""
    out = []
    for template in sorted(TEMPLATES, key=len, reverse=True):
        parts = _FIELD.split(template)  # literal, field, literal, field, ..., literal
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        out.append((template, re.compile(pattern, re.DOTALL)))
    return out


def said_what(text: str) -> Phrase:
    """A row's "what happened" as the phrase it was made from; other text (a server's own
    words) is data, shown as it is."""
    for template, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match:
            return phrase(template, context=CONTEXT, **match.groupdict())
    return data(text)
