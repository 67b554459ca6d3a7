"""One request of a dataset, whatever file it came from (core/datasets/)."""

from __future__ import annotations

from dataclasses import dataclass

BLOCK_TOKENS = 512  # tokens per Mooncake hash id (its trace format's block size)


class DatasetError(ValueError):
    """A dataset file that cannot be used; the message names the cause and the fix."""


@dataclass(frozen=True)
class DatasetRequest:
    """Either `messages` to send as they are (chat JSONL, ShareGPT), or `input_tokens` of
    generated text whose leading blocks follow `hash_ids` (traces). `offset_s`: when it is
    due, seconds from the trace's first request; None for a dataset without a clock."""

    messages: tuple[tuple[str, str], ...] = ()  # (role, content)
    input_tokens: int | None = None
    output_tokens: int | None = None  # None: the run's --max-tokens
    hash_ids: tuple[int, ...] = ()
    offset_s: float | None = None


@dataclass(frozen=True)
class Dataset:
    """A file's requests, in the order they are sent."""

    kind: str  # "chat-jsonl", "sharegpt", "mooncake", "azure-csv"
    requests: tuple[DatasetRequest, ...]

    @property
    def timed(self) -> bool:
        """A trace: its requests carry their own schedule."""
        return bool(self.requests) and self.requests[0].offset_s is not None

    def at(self, index: int) -> DatasetRequest:
        """Request `index` of a run (a run longer than the file starts it again)."""
        return self.requests[index % len(self.requests)]

    def rotated(self, first: int) -> Dataset:
        """The same requests with request `first` as request 0 (a worker's share of a
        closed-loop run numbers its requests from 0)."""
        cut = first % len(self.requests) if self.requests else 0
        return Dataset(self.kind, self.requests[cut:] + self.requests[:cut])

    def offsets(self, speed: float = 1.0) -> tuple[float, ...]:
        """The trace's schedule from its first request, `speed` times faster."""
        first = self.requests[0].offset_s or 0.0 if self.requests else 0.0
        return tuple(((r.offset_s or 0.0) - first) / speed for r in self.requests)
