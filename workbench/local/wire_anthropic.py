"""Anthropic Messages (`POST /v1/messages`, API version 2023-06-01) on the local provider's wire.

The stream is SSE with an `event: <type>` line and `data:` JSON carrying the same `type`:
message_start, content_block_start, ping, content_block_delta (thinking_delta then
signature_delta on a thinking block in reasoning mode, text_delta on the text block),
content_block_stop, message_delta (stop_reason, usage.output_tokens), message_stop; a mid-stream
fault is an `error` event. Errors are `{"type": "error", "error": {"type", "message"}}`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from workbench.core.models.catalog import ModelInfo
from workbench.local.faults import ApiError
from workbench.local.textgen import Completion
from workbench.local.wire import (
    MODEL_CREATED,
    REASONING_FIELD,
    Answer,
    Job,
    Renderer,
    Wire,
    invalid,
    positive_int,
)

VERSION_HEADER = "anthropic-version"
# the versions the real API accepts; the server renders 2023-06-01's shapes for both
KNOWN_VERSIONS = frozenset({"2023-06-01", "2023-01-01"})
# the error `type` of each HTTP status, as Anthropic names them
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    529: "overloaded_error",
}
_STOP_REASONS = {"length": "max_tokens", "stop": "stop_sequence"}


class AnthropicWire(Wire):
    protocol = "anthropic"
    marker_header = VERSION_HEADER  # Anthropic's clients ask /models with it

    def key_refusal(self, headers: Mapping[str, str], api_key: str) -> ApiError | None:
        """Anthropic's clients send `x-api-key`; a gateway's may send a bearer token."""
        auth = headers.get("Authorization", "")
        bearer = auth[len("Bearer ") :].strip() if auth.startswith("Bearer ") else None
        given = headers.get("x-api-key", bearer)
        if given is None:
            return ApiError(401, "x-api-key header is required", code="invalid_api_key")
        return None if given == api_key else ApiError(401, "invalid x-api-key")

    def model(self, model: ModelInfo) -> dict[str, Any]:
        return anthropic_model(model, MODEL_CREATED)

    def model_list(self, models: Iterable[ModelInfo]) -> dict[str, Any]:
        return anthropic_model_list(models, MODEL_CREATED)

    def check_headers(self, headers: Mapping[str, str]) -> ApiError | None:
        version = headers.get(VERSION_HEADER)
        if version is None:
            return invalid(f"{VERSION_HEADER}: header is required")
        if version.strip() not in KNOWN_VERSIONS:
            return invalid(f'{VERSION_HEADER}: "{version}" is not a valid version')
        return None

    def new_id(self) -> str:
        return f"msg_{secrets.token_hex(12)}"

    def parse(self, body: dict[str, Any]) -> Job | ApiError:
        max_tokens = body.get("max_tokens")
        if max_tokens is None:
            return invalid("max_tokens: Field required", "max_tokens")
        if not positive_int(max_tokens):
            return invalid("max_tokens: must be a positive integer", "max_tokens")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return invalid("messages: must be a non-empty list", "messages")
        if not all(isinstance(m, dict) and _is_content(m.get("content")) for m in messages):
            return invalid(
                "messages: each message needs a role and a content string or list of blocks",
                "messages",
            )
        system = body.get("system")
        if system is not None and not _is_content(system):
            return invalid("system: must be a string or a list of text blocks", "system")
        stops = body.get("stop_sequences")
        stops = stops if isinstance(stops, list) else []
        head = [{"role": "system", "content": system}] if system else []
        return Job(
            messages=head + messages,
            max_tokens=max_tokens,
            stream=bool(body.get("stream")),
            usage=True,  # message_start and message_delta always carry usage
            temperature=body.get("temperature", 1.0),
            stop=tuple(s for s in stops if isinstance(s, str)),
        )

    def error(self, error: ApiError) -> web.Response:
        headers = dict(error.headers) if error.headers else None
        return web.json_response(error_body(error), status=error.status, headers=headers)

    def renderer(self, answer: Answer) -> Renderer:
        return _MessageStream(answer)

    def body(self, answer: Answer) -> dict[str, Any]:
        completion = answer.completion
        content = [_thinking_block(completion)] if completion.reasoning else []
        content.append({"type": "text", "text": "".join(completion.content)})
        message = _message(answer, content)
        message.update(_stop(completion))
        if answer.usage:
            message["usage"]["output_tokens"] = answer.record.completion_tokens
        return message


def error_body(error: ApiError) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(error.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": error.message}}


def anthropic_model(model: ModelInfo, created: int) -> dict[str, Any]:
    stamp = datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "type": "model",
        "id": model.id,
        "display_name": model.display_name,
        "created_at": stamp,
    }


def anthropic_model_list(models: Iterable[ModelInfo], created: int) -> dict[str, Any]:
    data = [anthropic_model(m, created) for m in models]
    return {
        "data": data,
        "has_more": False,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
    }


class _MessageStream(Renderer):
    """One message's events. Block 0 is the thinking block in reasoning mode, else the text."""

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self._thinking = bool(answer.completion.reasoning)
        self._text_index: int | None = None  # the text block's index once it has started

    def opening(self) -> list[bytes]:
        message = _message(self._answer, [])
        if self._answer.usage:
            message["usage"]["output_tokens"] = 1  # what the real API's message_start says
        start = {"type": "message_start", "message": message}
        first = {"type": "thinking", "thinking": ""} if self._thinking else None
        opening = _event(start)
        if first is not None:
            opening += _block_start(0, first)
        else:
            opening += self._start_text()
        return [opening, _event({"type": "ping"})]

    def _start_text(self) -> bytes:
        """The thinking block's end (when open) and the text block's start."""
        out = b""
        if self._thinking:
            signature = _thinking_block(self._answer.completion)["signature"]
            delta = {"type": "signature_delta", "signature": signature}
            out += _event({"type": "content_block_delta", "index": 0, "delta": delta})
            out += _event({"type": "content_block_stop", "index": 0})
        self._text_index = 1 if self._thinking else 0
        return out + _block_start(self._text_index, {"type": "text", "text": ""})

    def delta(self, field: str, text: str) -> bytes:
        if field == REASONING_FIELD:
            delta = {"type": "thinking_delta", "thinking": text}
            return _event({"type": "content_block_delta", "index": 0, "delta": delta})
        out = self._start_text() if self._text_index is None else b""
        delta = {"type": "text_delta", "text": text}
        return out + _event(
            {"type": "content_block_delta", "index": self._text_index, "delta": delta}
        )

    def malformed(self) -> bytes:
        index = self._text_index if self._text_index is not None else 0
        return (
            'event: content_block_delta\ndata: {"type":"content_block_delta",'
            f'"index":{index},"delta":{{"type":"text_delta","text":"\n\n'
        ).encode()

    def failure(self, error: ApiError) -> list[bytes]:
        return [_event(error_body(error))]

    def closing(self) -> list[bytes]:
        out = self._start_text() if self._text_index is None else b""
        out += _event({"type": "content_block_stop", "index": self._text_index})
        delta: dict[str, Any] = {"type": "message_delta", "delta": _stop(self._answer.completion)}
        if self._answer.usage:
            delta["usage"] = {"output_tokens": self._answer.record.completion_tokens}
        return [out, _event(delta), _event({"type": "message_stop"})]


def _event(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    return _event({"type": "content_block_start", "index": index, "content_block": block})


def _message(answer: Answer, content: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": answer.record.completion_id,
        "type": "message",
        "role": "assistant",
        "model": answer.name,
        "content": content,
        "stop_reason": None,
        "stop_sequence": None,
    }
    if answer.usage:
        message["usage"] = {
            "input_tokens": answer.record.prompt_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 0,
        }
    return message


def _stop(completion: Completion) -> dict[str, Any]:
    reason = _STOP_REASONS.get(completion.finish_reason, "end_turn")
    return {"stop_reason": reason, "stop_sequence": completion.stop_sequence}


def _thinking_block(completion: Completion) -> dict[str, Any]:
    """The thinking block, with an opaque signature derived from its text (stable, like a MAC)."""
    thinking = "".join(completion.reasoning)
    digest = hashlib.blake2b(thinking.encode("utf-8", "surrogatepass"), digest_size=48).digest()
    return {
        "type": "thinking",
        "thinking": thinking,
        "signature": base64.b64encode(digest).decode(),
    }


def _is_content(content: object) -> bool:
    """A string, or a list of blocks (objects); text blocks are read, others count as empty."""
    return isinstance(content, str) or (
        isinstance(content, list) and all(isinstance(b, dict) for b in content)
    )
