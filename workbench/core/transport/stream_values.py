"""The values every stream reader takes from an event, whatever its protocol: JSON, counts,
ids, and a bad event's start for a message. Kept apart from the readers (streaming.py and one
module per protocol) so that each reads the same values the same way."""

from __future__ import annotations

import json
from typing import Any

from workbench.core.foundation.errors import MalformedChunk
from workbench.core.foundation.redaction import redact_and_cut
from workbench.core.foundation.results import RequestResult
from workbench.core.transport.sse import SSESplitter

try:
    import orjson
except ImportError:  # a source checkout whose venv predates the dependency: json alone
    orjson = None  # type: ignore[assignment]

MAX_USAGE_COUNT = 10**9  # a usage count at or above this is not believed
# finish reasons that mean max_tokens cut the answer: chat's, Anthropic's and Responses' words
LENGTH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})


def count(value: Any) -> int | None:
    """A usage count as the protocol defines it: a plain integer, 0 <= n < 10**9."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_USAGE_COUNT:
        return value
    return None


def shown(data: bytes) -> str:
    """The start of a bad event for a message: redacted first, then cut."""
    return redact_and_cut(data[:4096].decode("utf-8", "replace"), 80)


def response_id(value: Any) -> str | None:
    # the id only labels the row (to match it with server logs): anything but a string is left
    # out, since the text and its timing are real measurements all the same
    if isinstance(value, str) and value:
        return value[:200]
    return None


def loads(data: bytes) -> Any:
    """A chunk's JSON: orjson (a quarter of json's CPU per chunk), and the standard json for
    what orjson refuses (NaN, 1e400, a byte-order mark, lone surrogates), so that only JSON that
    json refuses is malformed. One difference remains: an integer past 64 bits comes back as a
    float, and no field read here accepts either (a usage count that large is not believed).
    """
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)


def cut_inside(error: MalformedChunk, splitter: SSESplitter) -> bool:
    """Whether `error` is about an event the body ended inside: its closing blank line never
    came and its JSON object or array never closed. The server was cut off mid-send, as a body
    that ends before its end (truncated, docs/metrics.md), not one that sent a bad chunk."""
    data = splitter.cut_event
    return (
        data is not None
        and isinstance(error.__cause__, ValueError)
        and data.lstrip().startswith((b"{", b"["))
    )


def event_object(data: bytes) -> dict[str, Any]:
    """An event's JSON object, or MalformedChunk naming what came instead."""
    try:
        event = loads(data)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly nested JSON
        raise MalformedChunk(f"not JSON: {shown(data)!r}") from exc
    if not isinstance(event, dict):
        raise MalformedChunk(f"not a JSON object: {shown(data)!r}")
    return event


def text_of(obj: dict[str, Any], key: str, where: str) -> str:
    """A text field of an event: a string, absent (""), or MalformedChunk."""
    value = obj.get(key)
    if value is None:
        return ""
    if type(value) is str:
        return value
    raise MalformedChunk(f"{where}.{key} is a {type(value).__name__}, not a string")


def table(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """A field that should hold an object: the object, or {} for anything else."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def take_counts(result: RequestResult, counts: dict[str, Any]) -> None:
    """Set each count field of `result` from the raw value the server sent; a value that is not
    a plain count (a string, a float, a negative or absurd number) is left out and the row's
    usage marked estimated."""
    for name, raw in counts.items():
        value = count(raw)
        if raw is not None and value is None:
            result.usage_estimated = True
        setattr(result, name, value)


def record_chat_usage(result: RequestResult, usage: Any) -> None:
    """The counts a chat completion's usage block holds."""
    if not isinstance(usage, dict):
        result.usage_estimated = True
        return
    details = usage.get("prompt_tokens_details")
    cached_raw = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached_raw is None:  # DeepSeek reports its prefix cache this way
        cached_raw = usage.get("prompt_cache_hit_tokens")
    take_counts(
        result,
        {
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
            "cached_tokens": cached_raw,
        },
    )
    # informative only (no figure uses it): an unbelievable value is simply left out
    result.reasoning_tokens = count(
        table(usage, "completion_tokens_details").get("reasoning_tokens")
    )
