"""ShareGPT JSON: a list of `{"conversations": [{"from": "human"|"gpt"|"system", "value"}...]}`.

Each human turn is one request that sends the conversation so far (the earlier turns, the
model's answers as the file recorded them), so a conversation's later turns reuse its prefix
as a multi-turn chat does."""

from __future__ import annotations

import json
from typing import Any

from workbench.core.datasets.model import DatasetError, DatasetRequest
from workbench.core.datasets.rows import MAX_ROWS, json_lines, too_many
from workbench.core.system.bounded_read import json_loads

KIND = "sharegpt"
_ROLES = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "chatgpt": "assistant",
    "assistant": "assistant",
    "bing": "assistant",
    "bard": "assistant",
    "system": "system",
}


def looks_like(first: dict[str, Any]) -> bool:
    return "conversations" in first


def _turns(conversation: Any, at: str) -> list[DatasetRequest]:
    turns = conversation.get("conversations") if isinstance(conversation, dict) else None
    if not isinstance(turns, list):
        raise DatasetError(f'{at}: needs "conversations": a list of {{from, value}} turns')
    history: list[tuple[str, str]] = []
    requests = []
    for i, turn in enumerate(turns):
        speaker = turn.get("from") if isinstance(turn, dict) else None
        value = turn.get("value") if isinstance(turn, dict) else None
        role = _ROLES.get(str(speaker).lower())
        if role is None or not isinstance(value, str):
            raise DatasetError(
                f"{at}: turn {i + 1} needs from (human, gpt or system) and a text value; "
                "fix that turn"
            )
        history.append((role, value))
        if role == "user":
            requests.append(DatasetRequest(messages=tuple(history)))
    return requests


def read(text: str, where: str) -> list[DatasetRequest]:
    if text.lstrip().startswith("["):
        try:
            items = json_loads(text)
        except ValueError as exc:  # not JSON, an integer too long to read, or nested too deep
            why = f"line {exc.lineno}: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else exc
            raise DatasetError(
                f"{where}: not JSON ({why}); fix the file or save it as JSONL, one conversation "
                "per line"
            ) from None
        rows = [(f"{where} conversation {i + 1}", item) for i, item in enumerate(items)]
    else:
        rows = [(f"{where} line {n}", item) for n, item in json_lines(text, where)]
    requests: list[DatasetRequest] = []
    for at, item in rows:
        requests += _turns(item, at)
        if len(requests) > MAX_ROWS:
            raise too_many(where)
    return requests
