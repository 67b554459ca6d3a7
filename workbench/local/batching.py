"""Continuous batching with a KV-memory budget: how the built-in provider meets load.

One `Batcher` per simulated model runs its replica as vLLM's scheduler does (Yu et al., Orca,
OSDI '22: iteration-level scheduling; Kwon et al., PagedAttention, SOSP '23: admission by free
KV memory): a running batch and a FIFO queue. A request is admitted when the KV cache of its
prompt + max output tokens fits beside the others' (`core/memory_fit.kv_per_sequence` against
`kv_budget`) and the batch holds fewer than max_num_seqs; otherwise it waits, and the head of
the queue blocks the rest (first come, first served). Each step decodes one token of every
running sequence and spends the rest of its token budget on prefill chunks of the newly
admitted, oldest first; its time is the prefill chunks' plus the batch's decode step
(`SimTiming.prefill_chunk_s`, `batch_step_s`). docs/local-provider.md, "Batching".

Alone, a request gets exactly the timing of the unbatched model: its chunks add up to
ttft_s(prompt), and a batch of one steps at token_interval_s.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import math
from collections import deque
from collections.abc import Callable, Iterator

from workbench.core.planning.memory_fit import kv_budget, kv_per_sequence
from workbench.core.system.wake import sleep_until
from workbench.local.costmodel import SimTiming
from workbench.local.emitlog import EmitRecord, StepRecord


def batch_limit(timing: SimTiming, tokens: int) -> int:
    """Sequences of `tokens` (prompt + max output) the model's batch holds at once: its KV
    budget over one sequence's cache, capped at --max-num-seqs."""
    one = kv_per_sequence(timing.model, timing.deployment, tokens)
    budget = kv_budget(timing.model, timing.deployment)
    return max(1, min(timing.settings.max_num_seqs, int(budget // one)))


def saturation_rate(timing: SimTiming, prompt: int, output: int) -> float:
    """The highest request rate (per second of the server's scaled time) the batch sustains
    for requests of `prompt` tokens and `output` output tokens, no latency target: with B =
    batch_limit sequences decoding, each request costs its prefill T_p = ttft_s(prompt) and
    output - 1 steps shared by B, so rate = B / ((output - 1) · step(B) + B · T_p), the step
    at the mean length prompt + output / 2. docs/local-provider.md, "Capacity"."""
    b = batch_limit(timing, prompt + output)
    step = timing.batch_step_s([prompt + output // 2] * b, 1) if output > 1 else 0.0
    seconds = (output - 1) * step + b * timing.ttft_s(prompt)
    return b / seconds if seconds > 0 else math.inf  # --time-scale 0: no time at all


_log = logging.getLogger(__name__)


class Sequence:
    """One request in a model's batch; `due` yields the time each of its tokens is ready."""

    def __init__(self, record: EmitRecord, kv_bytes: float) -> None:
        self.record = record
        self.prompt_tokens = record.prompt_tokens
        # tokens to produce (the first comes with the prefill); at least the prefill
        self.steps = max(1, record.completion_tokens)
        self.kv_bytes = kv_bytes
        self.t_arrival = record.t_received_ns / 1e9  # perf_counter seconds
        self.prefilled = 0
        self.produced = 0
        self._due: asyncio.Queue[float] = asyncio.Queue()

    @property
    def kv_len(self) -> int:
        """Tokens in its cache at the next decode step."""
        return self.prompt_tokens + self.produced

    async def due(self) -> float:
        """The perf_counter time its next token is ready (scheduled a step ahead)."""
        t = await self._due.get()
        if math.isnan(t):
            raise RuntimeError("the model's batch stopped on an error (see the server's log)")
        return t

    def _produce(self, t_end: float) -> None:
        self.produced += 1
        self._due.put_nowait(t_end)


class Batcher:
    """A model's running batch and waiting queue; steps run while either holds a request."""

    def __init__(self, timing: SimTiming, record: Callable[[StepRecord], None]) -> None:
        self.timing = timing
        settings = timing.settings
        self.max_num_seqs = settings.max_num_seqs
        self.max_batched_tokens = settings.max_batched_tokens
        self.budget = kv_budget(timing.model, timing.deployment)
        self.kv_used = 0.0
        self.running: list[Sequence] = []
        self.waiting: deque[Sequence] = deque()
        self._record = record
        self._task: asyncio.Task[None] | None = None
        self._clock = 0.0  # the scheduled end of the last step (perf_counter seconds)
        self._index = 0  # decode steps since the batch was last idle (the jitter's draw)

    def submit(self, seq: Sequence) -> None:
        """Queue `seq`; the next step admits it if its KV cache fits."""
        seq.record.waiting_ahead = len(self.waiting)
        self.waiting.append(seq)
        if self._task is None:
            # an idle replica starts at once, from the request's arrival (as unbatched)
            self._clock = max(self._clock, seq.t_arrival)
            self._index = 0
            self._task = asyncio.get_running_loop().create_task(self._run())

    def leave(self, seq: Sequence) -> None:
        """`seq` is done or its client gone: free its place and its KV cache."""
        if seq in self.running:
            self.running.remove(seq)
            # an empty batch holds nothing: no float residue of the sums carries over
            self.kv_used = self.kv_used - seq.kv_bytes if self.running else 0.0
        elif seq in self.waiting:
            self.waiting.remove(seq)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _admit(self, now: float) -> None:
        while self.waiting and len(self.running) < self.max_num_seqs:
            head = self.waiting[0]
            # alone it always fits: the cost model's refusal already turned away what cannot
            if self.running and self.kv_used + head.kv_bytes > self.budget:
                return
            self.waiting.popleft()
            head.record.t_admitted_ns = round(now * 1e9)
            self.running.append(head)
            self.kv_used += head.kv_bytes

    def _plan(self) -> tuple[list[Sequence], list[tuple[Sequence, int]], float]:
        """This step's decoding sequences, prefill chunks (sequence, tokens up to) and time."""
        timing = self.timing
        decoding = [s for s in self.running if 0 < s.produced < s.steps]
        room = self.max_batched_tokens - len(decoding)
        chunks: list[tuple[Sequence, int]] = []
        seconds = 0.0
        for s in self.running:
            if s.produced > 0 or room <= 0:
                continue
            upto = s.prefilled + min(room, s.prompt_tokens - s.prefilled)
            room -= upto - s.prefilled
            chunks.append((s, upto))
            seconds += timing.prefill_chunk_s(s.prefilled, upto)
        if decoding:
            self._index += 1
            seconds += timing.batch_step_s([s.kv_len for s in decoding], self._index)
        return decoding, chunks, seconds

    async def _run(self) -> None:
        try:
            while self.running or self.waiting:
                start = self._clock
                self._admit(start)
                decoding, chunks, seconds = self._plan()
                end = start + seconds
                for s in decoding:
                    s._produce(end)
                prefill_tokens = 0
                for s, upto in chunks:
                    prefill_tokens += upto - s.prefilled
                    s.prefilled = upto
                    if upto >= s.prompt_tokens:
                        s._produce(end)  # its first token ends the step its prefill ends
                self._record(
                    StepRecord(
                        model=self.timing.model.id,
                        t_start_ns=round(start * 1e9),
                        t_end_ns=round(end * 1e9),
                        batch=len(self.running),
                        decoding=len(decoding),
                        prefill_tokens=prefill_tokens,
                        waiting=len(self.waiting),
                        kv_used_bytes=self.kv_used,
                        kv_budget_bytes=self.budget,
                    )
                )
                await sleep_until(end)
                self._clock = end
                for s in [s for s in self.running if s.produced >= s.steps]:
                    self.leave(s)
        except Exception:  # a bug must end its requests with an error, never hang them
            _log.exception("the batch of %s stopped", self.timing.model.id)
            for s in [*self.running, *self.waiting]:
                s._due.put_nowait(math.nan)
            self.running.clear()
            self.waiting.clear()
            self.kv_used = 0.0
        finally:
            if self._task is asyncio.current_task():
                self._task = None


class ModelPacing:
    """A model's timing on this server: its SimTiming, the per-token intervals memoized (a pure
    function of (kv_len, index), and concurrent requests of equal prompts ask for the same
    values), and its batch."""

    def __init__(self, model: SimTiming, record_step: Callable[[StepRecord], None]) -> None:
        self.model = model
        self.interval = functools.lru_cache(maxsize=1 << 16)(model.token_interval_s)
        self.batcher = Batcher(model, record_step)

    def schedule(self, prompt_tokens: int, t0: float) -> Iterator[float]:
        """Unbatched: absolute perf_counter times at which each token is ready (sleeps cannot
        drift)."""
        target = t0 + self.model.ttft_s(prompt_tokens)
        yield target
        for index in itertools.count(1):
            target += self.interval(prompt_tokens + index, index)
            yield target

    def pacer(self, record: EmitRecord, max_tokens: int) -> Pacer:
        """How the request's handler learns when each token is ready: from the batch, or from
        its own schedule when batching is off."""
        if not self.model.settings.batching:
            return AlonePacer(self.schedule(record.prompt_tokens, record.t_received_ns / 1e9))
        model = self.model
        kv = kv_per_sequence(model.model, model.deployment, record.prompt_tokens + max_tokens)
        seq = Sequence(record, kv)
        self.batcher.submit(seq)
        return BatchPacer(self.batcher, seq)


class BatchPacer:
    """What a handler awaits for each token when its model batches."""

    def __init__(self, batcher: Batcher, seq: Sequence) -> None:
        self.batcher, self.seq = batcher, seq

    async def take(self, n: int) -> float:
        """The time the n-th next token is ready."""
        target = 0.0
        for _ in range(n):
            target = await self.seq.due()
        return target

    def close(self) -> None:
        self.batcher.leave(self.seq)


class AlonePacer:
    """Unbatched: the request's own schedule, as if it had the replica to itself."""

    def __init__(self, times: Iterator[float]) -> None:
        self._times = times

    async def take(self, n: int) -> float:
        target = 0.0
        for _ in range(n):
            target = next(self._times)
        return target

    def close(self) -> None:
        pass


Pacer = BatchPacer | AlonePacer
