"""OpenAI-style JSONL: one request per line, `{"messages": [{"role", "content"}...]}` with an
optional `max_tokens` (the body of a Chat Completions request, as batch files carry it)."""

from __future__ import annotations

from typing import Any

from workbench.core.datasets.model import DatasetError, DatasetRequest
from workbench.core.datasets.rows import count, json_lines

KIND = "chat-jsonl"
ROLES = ("system", "user", "assistant", "developer")


def looks_like(first: dict[str, Any]) -> bool:
    return "messages" in first or "messages" in (first.get("body") or {})


def messages_of(value: Any, at: str) -> tuple[tuple[str, str], ...]:
    """Checked (role, content) pairs; content text only."""
    if not isinstance(value, list) or not value:
        raise DatasetError(f"{at}: messages must be a non-empty list of {{role, content}}")
    pairs = []
    for i, message in enumerate(value):
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if role not in ROLES or not isinstance(content, str):
            raise DatasetError(
                f"{at}: message {i + 1} needs a role ({', '.join(ROLES)}) and text content; "
                "fix that message"
            )
        pairs.append((role, content))
    return tuple(pairs)


def read(text: str, where: str) -> list[DatasetRequest]:
    requests = []
    for number, row in json_lines(text, where):
        at = f"{where} line {number}"
        inner = row.get("body")
        body: dict[str, Any] = inner if isinstance(inner, dict) else row  # a batch line
        output = count(body, "max_tokens", at, optional=True)
        requests.append(
            DatasetRequest(
                messages=messages_of(body.get("messages"), at), output_tokens=output or None
            )
        )
    return requests
