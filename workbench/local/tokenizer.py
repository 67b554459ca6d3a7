"""The local provider's own tokenizer: simple, deterministic, fast (see docs/local-provider.md).

A token is one of:
- a run of 1 to 6 ASCII letters (longer words split greedily: "attention" -> "attent", "ion"),
- any other single non-whitespace character (a digit, a CJK character, a punctuation mark,
  a non-ASCII letter).
Whitespace is free: it separates tokens but is never one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

MAX_LETTERS = 6
_TOKEN_RE = re.compile(rf"[A-Za-z]{{1,{MAX_LETTERS}}}|\S")

# Chat-format overheads, in the spirit of OpenAI's own accounting (role markers, priming).
PER_MESSAGE_TOKENS = 4
PER_REQUEST_TOKENS = 3


def count_tokens(text: str) -> int:
    """Number of tokens in `text`; ~1M tokens (4 MB) count in well under a second."""
    # subn counts matches in C without building a list of a million strings
    return _TOKEN_RE.subn("", text)[1]


# A long prompt is counted in slices cut at whitespace (no token spans one), so the server can
# let its other streams run between them: a 1M-token prompt takes about a second to count.
COUNT_SLICE_CHARS = 256 * 1024
_SPACE_RE = re.compile(r"\s")


def count_slices(text: str) -> Iterator[int]:
    """count_tokens(text) in parts that sum to it, one per slice of about COUNT_SLICE_CHARS."""
    start = 0
    while start < len(text):
        found = _SPACE_RE.search(text, start + COUNT_SLICE_CHARS)
        end = found.start() if found else len(text)
        yield count_tokens(text[start:end])
        start = end


def tokenize(text: str) -> list[str]:
    """The tokens of `text`, whitespace dropped."""
    return _TOKEN_RE.findall(text)


def pieces(text: str) -> list[str]:
    """Split `text` into one piece per token, each keeping the whitespace before it.

    ''.join(pieces(t)) == t without trailing whitespace, and count_tokens of any prefix of the
    joined pieces equals the number of pieces in it: what a stream of one token per chunk needs.
    """
    out: list[str] = []
    start = 0
    for match in _TOKEN_RE.finditer(text):
        end = match.end()
        out.append(text[start:end])
        start = end
    return out


def content_text(content: Any) -> str:
    """The text of a message's `content`: a string, or a list of {"type": "text"} parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type", "text") == "text"
        ]
        return "\n".join(parts)
    return str(content)


def count_prompt_tokens(messages: Iterable[Mapping[str, Any]]) -> int:
    """prompt_tokens of a chat request: per message its content's tokens + 4, then + 3."""
    return sum(prompt_token_parts(messages))


def prompt_token_parts(messages: Iterable[Mapping[str, Any]]) -> Iterator[int]:
    """count_prompt_tokens in parts (long contents in slices): the server counts between
    turns of its loop."""
    yield PER_REQUEST_TOKENS
    for message in messages:
        yield PER_MESSAGE_TOKENS
        yield from count_slices(content_text(message.get("content")))
