"""OpenAI Responses (`POST /v1/responses`) on the local provider's wire.

The stream is SSE with an `event: <type>` line and `data:` JSON carrying `type` and
`sequence_number` (the event set of openai-python 2.x/3.x's `ResponseStreamEvent`):
response.created, response.in_progress; in reasoning mode a reasoning item first
(response.output_item.added, response.reasoning_summary_part.added,
response.reasoning_summary_text.delta per token, ….done); then the message item
(response.output_item.added, response.content_part.added, response.output_text.delta per token,
response.output_text.done, response.content_part.done, response.output_item.done); and
response.completed with usage — or response.incomplete (reason `max_output_tokens`) when the
client's cap was reached. A mid-stream fault is an `error` event, then response.failed. Errors
answered over HTTP are OpenAI's `{"error": {...}}`.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

from aiohttp import web

from workbench.local.faults import ApiError, openai_error
from workbench.local.textgen import Completion
from workbench.local.wire import (
    DEFAULT_MAX_TOKENS,
    REASONING_FIELD,
    Answer,
    Job,
    Renderer,
    Wire,
    invalid,
    positive_int,
)

_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})


class ResponsesWire(Wire):
    protocol = "responses"

    def new_id(self) -> str:
        return f"resp_{secrets.token_hex(12)}"

    def parse(self, body: dict[str, Any]) -> Job | ApiError:
        messages = _input_messages(body.get("input"))
        if not messages:
            return invalid(
                "input must be a non-empty string or list of messages "
                '(e.g. [{"role": "user", "content": "Hi"}]).',
                "input",
            )
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            return invalid("instructions must be a string.", "instructions")
        cap = body.get("max_output_tokens")
        if cap is not None and not positive_int(cap):
            return invalid("max_output_tokens must be a positive integer.", "max_output_tokens")
        head = [{"role": "system", "content": instructions}] if instructions else []
        return Job(
            messages=head + messages,
            max_tokens=cap if cap is not None else DEFAULT_MAX_TOKENS,
            stream=bool(body.get("stream")),
            usage=True,  # response.completed always carries usage
            temperature=body.get("temperature", 1.0),
            capped=cap is not None,
        )

    def error(self, error: ApiError) -> web.Response:
        return openai_error(error)

    def renderer(self, answer: Answer) -> Renderer:
        return _ResponseStream(answer)

    def body(self, answer: Answer) -> dict[str, Any]:
        items = _Items(answer)
        output = [items.reasoning()] if answer.completion.reasoning else []
        output.append(items.message(_status(answer)))
        status = _status(answer)
        return _response(answer, status, output, final=True, created_at=items.created_at)


class _Items:
    """The output items of one answer: ids fixed once, so the stream and its end agree."""

    def __init__(self, answer: Answer) -> None:
        self.completion: Completion = answer.completion
        self.reasoning_id = f"rs_{secrets.token_hex(12)}"
        self.message_id = f"msg_{secrets.token_hex(12)}"
        self.message_index = 1 if self.completion.reasoning else 0
        self.created_at = int(time.time())  # one time for every event of the response

    def reasoning(self, done: bool = True) -> dict[str, Any]:
        text = "".join(self.completion.reasoning)
        summary = [{"type": "summary_text", "text": text}] if done else []
        return {"id": self.reasoning_id, "type": "reasoning", "summary": summary}

    def message(self, status: str) -> dict[str, Any]:
        done = status != "in_progress"
        content = [_text_part("".join(self.completion.content))] if done else []
        return {
            "id": self.message_id,
            "type": "message",
            "status": status,
            "role": "assistant",
            "content": content,
        }


class _ResponseStream(Renderer):
    """One response's events, numbered by `sequence_number` from 0."""

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self._items = _Items(answer)
        self._seq: Iterator[int] = itertools.count()
        self._message_open = False

    def _response(self, status: str, output: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        created_at = self._items.created_at
        return _response(self._answer, status, output, final=final, created_at=created_at)

    def _event(self, kind: str, **fields: Any) -> bytes:
        data = {"type": kind, "sequence_number": next(self._seq), **fields}
        return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()

    def opening(self) -> list[bytes]:
        started = self._response("in_progress", [], final=False)
        head = self._event("response.created", response=started)
        head += self._event("response.in_progress", response=started)
        if not self._answer.completion.reasoning:
            return [head + self._open_message()]
        item = self._items.reasoning(done=False)
        head += self._event("response.output_item.added", output_index=0, item=item)
        part = {"type": "summary_text", "text": ""}
        head += self._event(
            "response.reasoning_summary_part.added", **self._summary_at(), part=part
        )
        return [head]

    def _summary_at(self) -> dict[str, Any]:
        return {"item_id": self._items.reasoning_id, "output_index": 0, "summary_index": 0}

    def _open_message(self) -> bytes:
        """The reasoning item's end (when there is one), and the message item's start."""
        out = b""
        if self._answer.completion.reasoning:
            text = "".join(self._answer.completion.reasoning)
            part = {"type": "summary_text", "text": text}
            out += self._event(
                "response.reasoning_summary_text.done", **self._summary_at(), text=text
            )
            out += self._event(
                "response.reasoning_summary_part.done", **self._summary_at(), part=part
            )
            item = self._items.reasoning()
            out += self._event("response.output_item.done", output_index=0, item=item)
        self._message_open = True
        index = self._items.message_index
        item = self._items.message("in_progress")
        out += self._event("response.output_item.added", output_index=index, item=item)
        return out + self._event(
            "response.content_part.added", **self._text_at(), part=_text_part("")
        )

    def _text_at(self) -> dict[str, Any]:
        at = self._items
        return {"item_id": at.message_id, "output_index": at.message_index, "content_index": 0}

    def delta(self, field: str, text: str) -> bytes:
        if field == REASONING_FIELD:
            return self._event(
                "response.reasoning_summary_text.delta", **self._summary_at(), delta=text
            )
        out = b"" if self._message_open else self._open_message()
        return out + self._event(
            "response.output_text.delta", **self._text_at(), delta=text, logprobs=[]
        )

    def malformed(self) -> bytes:
        at = self._items
        return (
            "event: response.output_text.delta\ndata: "
            f'{{"type":"response.output_text.delta","item_id":"{at.message_id}","delta":"\n\n'
        ).encode()

    def failure(self, error: ApiError) -> list[bytes]:
        report = self._event("error", code=error.code, message=error.message, param=error.param)
        # the terminal event: a client that waits for one sees the response end as failed
        failed = self._response("failed", [], final=False)
        failed["error"] = {"code": "server_error", "message": error.message}
        return [report + self._event("response.failed", response=failed)]

    def closing(self) -> list[bytes]:
        out = b"" if self._message_open else self._open_message()
        text = "".join(self._answer.completion.content)
        out += self._event("response.output_text.done", **self._text_at(), text=text, logprobs=[])
        out += self._event("response.content_part.done", **self._text_at(), part=_text_part(text))
        status = _status(self._answer)
        message = self._items.message(status)
        index = self._items.message_index
        out += self._event("response.output_item.done", output_index=index, item=message)
        output = [self._items.reasoning()] if self._answer.completion.reasoning else []
        output.append(message)
        final = self._response(status, output, final=True)
        kind = "response.completed" if status == "completed" else "response.incomplete"
        return [out, self._event(kind, response=final)]


def _status(answer: Answer) -> str:
    """`incomplete` when the output reached the cap the client set; else `completed`."""
    hit_cap = answer.completion.finish_reason == "length" and answer.job.capped
    return "incomplete" if hit_cap else "completed"


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def _response(
    answer: Answer, status: str, output: list[dict[str, Any]], *, final: bool, created_at: int
) -> dict[str, Any]:
    """The response object; usage only on a final one (and never under `no-usage`)."""
    job, record = answer.job, answer.record
    temperature = job.temperature if isinstance(job.temperature, int | float) else 1.0
    usage = None
    if final and answer.usage:
        usage = {
            "input_tokens": record.prompt_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": record.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": record.reasoning_tokens},
            "total_tokens": record.prompt_tokens + record.completion_tokens,
        }
    incomplete = {"reason": "max_output_tokens"} if status == "incomplete" else None
    return {
        "id": record.completion_id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "error": None,
        "incomplete_details": incomplete,
        "instructions": None,
        "max_output_tokens": job.max_tokens if job.capped else None,
        "model": answer.name,
        "output": output,
        "parallel_tool_calls": True,
        "temperature": temperature,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "metadata": {},
        "usage": usage,
    }


def _input_messages(value: object) -> list[dict[str, Any]]:
    """`input` as chat-shaped messages: a string is one user message; items keep their role.

    Content is a string or a list of parts, whose input_text/output_text parts are read; items
    that are not messages (tool calls and their outputs) add no text.
    """
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if not isinstance(value, list):
        return []
    messages = []
    for item in value:
        if not isinstance(item, dict):
            return []
        if item.get("type", "message") != "message":
            continue
        content = item.get("content")
        if isinstance(content, list):
            texts = [
                str(p.get("text", ""))
                for p in content
                if isinstance(p, dict) and p.get("type") in _TEXT_PARTS
            ]
            content = "\n".join(texts)
        if not isinstance(content, str):
            return []
        messages.append({"role": str(item.get("role", "user")), "content": content})
    return messages
