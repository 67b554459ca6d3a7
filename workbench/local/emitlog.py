"""The server's own record of when it wrote each chunk: the truth benchmarks compare against."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

DEFAULT_CAPACITY = 10_000


@dataclass
class EmitRecord:
    """One completion as the server emitted it; times are time.perf_counter_ns().

    chunk_emit_ns holds one time per text-bearing chunk (content or reasoning_content), taken
    right before the chunk was written; t_first_content_ns is the first with `content`.
    `protocol` is the API that asked: "chat", "responses" or "anthropic"; `finish_reason` is in
    chat's words ("length", "stop") whichever protocol rendered it.
    """

    completion_id: str
    model: str
    t_received_ns: int
    t_first_content_ns: int | None = None
    chunk_emit_ns: list[int] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    finish_reason: str | None = None  # None while streaming, or when the stream was cut
    protocol: str = "chat"

    @property
    def t_first_token_ns(self) -> int | None:
        return self.chunk_emit_ns[0] if self.chunk_emit_ns else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class EmitLog:
    """The last `capacity` completions by completion id (oldest dropped first)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._records: OrderedDict[str, EmitRecord] = OrderedDict()

    def add(self, record: EmitRecord) -> None:
        self._records[record.completion_id] = record
        while len(self._records) > self._capacity:
            self._records.popitem(last=False)

    def get(self, completion_id: str) -> EmitRecord | None:
        return self._records.get(completion_id)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, completion_id: object) -> bool:
        return completion_id in self._records
