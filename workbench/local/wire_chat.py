"""OpenAI chat completions (`POST /v1/chat/completions`) on the local provider's wire.

Chunks are `data: {json}` events of object `chat.completion.chunk`, ended by `data: [DONE]`
(docs/local-provider.md, "Streaming").
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from aiohttp import web

from workbench.local.emitlog import EmitRecord
from workbench.local.faults import ApiError, openai_error
from workbench.local.wire import (
    DEFAULT_MAX_TOKENS,
    Answer,
    Job,
    Renderer,
    Wire,
    invalid,
    positive_int,
)


class ChatWire(Wire):
    protocol = "chat"

    def new_id(self) -> str:
        return f"chatcmpl-{secrets.token_hex(12)}"

    def parse(self, body: dict[str, Any]) -> Job | ApiError:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return invalid("messages must be a non-empty list.", "messages")
        if not all(isinstance(m, dict) for m in messages):
            return invalid("Each message must be an object.", "messages")
        max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
        if max_tokens is None:
            max_tokens = DEFAULT_MAX_TOKENS
        if not positive_int(max_tokens):
            return invalid("max_tokens must be a positive integer.", "max_tokens")
        options = body.get("stream_options")
        stop = body.get("stop")
        stops = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
        return Job(
            messages=messages,
            max_tokens=max_tokens,
            stream=bool(body.get("stream")),
            usage=isinstance(options, dict) and bool(options.get("include_usage")),
            temperature=body.get("temperature", 1.0),
            seed=body.get("seed"),
            stop=tuple(s for s in stops if isinstance(s, str)),
        )

    def error(self, error: ApiError) -> web.Response:
        return openai_error(error)

    def renderer(self, answer: Answer) -> Renderer:
        # a stream tells usage only when asked (stream_options.include_usage)
        return _ChunkWriter(answer.record, answer.name, answer.job.usage and answer.usage)

    def body(self, answer: Answer) -> dict[str, Any]:
        completion = answer.completion
        message: dict[str, Any] = {"role": "assistant", "content": "".join(completion.content)}
        if completion.reasoning:
            message["reasoning_content"] = "".join(completion.reasoning)
        payload: dict[str, Any] = {
            "id": answer.record.completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": answer.name,
            "choices": [
                {"index": 0, "message": message, "finish_reason": completion.finish_reason}
            ],
        }
        if answer.usage:
            payload["usage"] = chat_usage(answer.record)
        return payload


class _ChunkWriter(Renderer):
    """Encodes the SSE events of one completion."""

    def __init__(self, record: EmitRecord, model: str, usage: bool) -> None:
        created = int(time.time())
        self._record = record
        self._usage = usage
        self._head = (
            f'{{"id":"{record.completion_id}","object":"chat.completion.chunk",'
            f'"created":{created},"model":{json.dumps(model)},"choices":'
        )

    def _event(self, choices: str, tail: str = "") -> bytes:
        return f"data: {self._head}{choices}{tail}}}\n\n".encode()

    def opening(self) -> list[bytes]:
        return [
            self._event(
                '[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]'
            )
        ]

    def delta(self, field: str, text: str) -> bytes:
        encoded = json.dumps(text, ensure_ascii=False)
        return self._event(f'[{{"index":0,"delta":{{"{field}":{encoded}}},"finish_reason":null}}]')

    def malformed(self) -> bytes:
        return f'data: {self._head}[{{"index":0,"delta":{{"content":"\n\n'.encode()

    def failure(self, error: ApiError) -> list[bytes]:
        # what vLLM and OpenAI send: a data event holding only an error (the SDK raises on it)
        body = {"error": {"message": error.message, "type": error.type, "code": error.code}}
        return [f"data: {json.dumps(body)}\n\n".encode()]

    def closing(self) -> list[bytes]:
        reason = self._record.finish_reason
        events = [self._event(f'[{{"index":0,"delta":{{}},"finish_reason":"{reason}"}}]')]
        if self._usage:
            events.append(self._event("[]", f',"usage":{json.dumps(chat_usage(self._record))}'))
        events.append(b"data: [DONE]\n\n")
        return events


def chat_usage(record: EmitRecord) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "total_tokens": record.prompt_tokens + record.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    if record.reasoning_tokens:
        usage["completion_tokens_details"] = {"reasoning_tokens": record.reasoning_tokens}
    return usage
