"""Text from outside (server answers, imported files, a hand-edited providers file) made safe to
print on a terminal.

A model id such as ``"m\\x1b]0;pwned\\x07"`` would retitle the terminal, ``"\\x1b[31m"`` recolour
it, and a right-to-left override (U+202E) would show text in another order than it is.
`printable` replaces every such character with a visible escape (``\\x1b``, ``\\u202e``):
C0 controls (tab and newline too: one value is one line), DEL, C1 controls, and the Unicode
bidirectional marks, embeddings, overrides and isolates. Everything else, Chinese included,
is left as it is.

`escape_quoted` does the same inside JSON or TOML text that we print or write, using the
formats' own ``\\uXXXX`` escape, so the document still parses to the same values (both formats
already escape C0 controls themselves).
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from typing import TextIO

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_IN_QUOTES = re.compile(f"[\x7f-\x9f{_BIDI}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """`text` as one line with every control, escape and bidi character shown as an escape."""
    return _UNSAFE.sub(_visible, str(text))


MAX_SHOWN_ID = 200  # characters of an id (a model's, a server's or a user's) printed whole:
# a local model path of ~100 characters stays readable; a 100,000-character one does not flood


def shown_id(text: object, limit: int = MAX_SHOWN_ID) -> str:
    """An id as `printable` shows it, cut to about `limit` characters: a longer one keeps its
    start and end around "…(N chars)…", so a 100,000-character id is one readable line."""
    value = str(text)
    if len(value) <= limit:
        return printable(value)
    half = max(1, (limit - 16) // 2)
    return f"{printable(value[:half])}…({len(value):,} chars)…{printable(value[-half:])}"


def printable_lines(text: object) -> str:
    """Like `printable`, but line breaks stay line breaks (for a message of several lines)."""
    return "\n".join(printable(line) for line in str(text).split("\n"))


def escape_quoted(document: str) -> str:
    """JSON or TOML text with DEL, C1 and bidi characters as ``\\uXXXX`` escapes.

    Valid because both formats only allow such characters inside quoted strings, where
    ``\\uXXXX`` means the same character (the writers used here never emit TOML literal
    strings).
    """
    return _UNSAFE_IN_QUOTES.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


_ASCII = {"✓": "OK", "✗": "X", "→": "->", "←": "<-", "…": "...", "×": "x", "–": "-", "—": "--"}
_ERRORS = "workbench-ascii"


def _ascii_fallback(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(_ASCII.get(char, "?") for char in bad), error.end


codecs.register_error(_ERRORS, _ascii_fallback)


def safe_console() -> None:
    """Make stdout and stderr never raise on a character their encoding lacks.

    A Windows console redirected to a file is often cp1252, a C locale ASCII: printing a model
    id in Chinese or a check mark there raised UnicodeEncodeError mid-output. Marks and arrows
    now print as ASCII (``OK``, ``->``), anything else as ``?``.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=_ERRORS)


def fits(text: str, fallback: str, stream: TextIO | None = None) -> str:
    """`text` when `stream` (stdout by default) can encode it, else the ASCII `fallback`."""
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return fallback
    return text


def json_text(document: object) -> str:
    """`document` as indented JSON, safe for the terminal and for stdout's encoding.

    Non-ASCII text stays readable on a UTF-8 console; elsewhere it becomes the JSON ``\\uXXXX``
    escape (a ``?`` from `safe_console` would change the values).
    """
    text = json.dumps(document, ensure_ascii=False, indent=2)
    if fits(text, "") != text:
        return json.dumps(document, ensure_ascii=True, indent=2)
    return escape_quoted(text)
