"""The server's own record of when it wrote each chunk: the truth benchmarks compare against."""

from __future__ import annotations

from collections import OrderedDict, deque
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
    t_received_ns: int  # when its handler started: the simulated model's clock starts here
    t_headers_ns: int  # when its headers were read off the connection (headers_read.py)
    t_first_content_ns: int | None = None
    chunk_emit_ns: list[int] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    finish_reason: str | None = None  # None while streaming, or when the stream was cut
    protocol: str = "chat"
    t_admitted_ns: int | None = None  # when the batch took it in (None: batching off)
    waiting_ahead: int = 0  # requests queued before it when it arrived

    @property
    def queued_ns(self) -> int:
        """How long it waited for room in the batch (KV cache or --max-num-seqs)."""
        return 0 if self.t_admitted_ns is None else self.t_admitted_ns - self.t_received_ns

    @property
    def t_first_token_ns(self) -> int | None:
        return self.chunk_emit_ns[0] if self.chunk_emit_ns else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class StepRecord:
    """One step of a model's batch (local/batching.py): when it ran (scheduled, perf_counter
    ns), how many sequences it held (`batch`: decoding + prefilling), the prompt tokens it
    prefilled, the queue behind it, and the KV cache per device it holds against the budget."""

    model: str
    t_start_ns: int
    t_end_ns: int
    batch: int
    decoding: int
    prefill_tokens: int
    waiting: int
    kv_used_bytes: float
    kv_budget_bytes: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class EmitLog:
    """The last `capacity` completions by completion id (oldest dropped first), and the last
    `capacity` batch steps of all models."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._records: OrderedDict[str, EmitRecord] = OrderedDict()
        self.steps: deque[StepRecord] = deque(maxlen=capacity)

    def add_step(self, step: StepRecord) -> None:
        self.steps.append(step)

    def steps_of(self, model: str) -> list[StepRecord]:
        return [s for s in self.steps if s.model == model]

    def add(self, record: EmitRecord) -> None:
        self._records[record.completion_id] = record
        while len(self._records) > self._capacity:
            self._records.popitem(last=False)

    def arrivals_of(self, model: str) -> list[int]:
        """When each of the model's requests still in the log arrived (its headers read,
        t_headers_ns), in order: the arrival log of clients whose completion ids are unknown
        (arrival_peers.py)."""
        return sorted(r.t_headers_ns for r in self._records.values() if r.model == model)

    def get(self, completion_id: str) -> EmitRecord | None:
        return self._records.get(completion_id)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, completion_id: object) -> bool:
        return completion_id in self._records
