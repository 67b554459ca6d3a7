"""Time left in a run, weighted by what each request costs: its prompt and its output budget.

A straight-line ETA (elapsed / done × left) assumes every request costs the same. In a
1K→128K sweep the last requests cost a hundred times the first, so it said "2 s left" with
9.6 s to go. Here each planned request weighs ``fixed + per_token × prompt_tokens``: before two
prompt sizes have finished, ``fixed`` is the output budget at `DECODE_WEIGHT` prompt tokens per
output token (decode is that much slower per token than prefill on common servers); after, both
are fitted to the requests seen, so the weights follow the server actually measured.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

# one output token costs about as much time as this many prompt tokens (prefill runs
# thousands of tokens/s, decode tens): the prior until the run's own requests say better
DECODE_WEIGHT = 100.0


class WeightedEta:
    """The ETA of a run whose requests are (prompt tokens, output budget) pairs."""

    def __init__(self, planned: Iterable[tuple[int, int]]) -> None:
        self._left: Counter[tuple[int, int]] = Counter(planned)
        self._done: Counter[tuple[int, int]] = Counter()
        self._seen: list[tuple[int, int, float]] = []  # prompt, budget, seconds

    def finished(self, prompt_tokens: int, max_tokens: int, seconds: float | None) -> None:
        """One planned request is done (its own duration, when it has one, tunes the weights)."""
        key = (prompt_tokens, max_tokens)
        if self._left[key] > 0:
            self._left[key] -= 1
        self._done[key] += 1
        if seconds is not None and seconds > 0:
            self._seen.append((prompt_tokens, max_tokens, seconds))

    def _weights(self) -> tuple[float, float]:
        """(per prompt token, per output token): fitted when two prompt sizes have finished."""
        sizes = {p for p, _, _ in self._seen}
        if len(sizes) < 2:
            return 1.0, DECODE_WEIGHT
        # least squares of seconds = fixed + slope × prompt (a run has one output budget)
        n = len(self._seen)
        mean_p = sum(p for p, _, _ in self._seen) / n
        mean_t = sum(t for _, _, t in self._seen) / n
        var = sum((p - mean_p) ** 2 for p, _, _ in self._seen)
        slope = sum((p - mean_p) * (t - mean_t) for p, _, t in self._seen) / var
        slope = max(slope, 0.0)
        fixed = max(mean_t - slope * mean_p, 0.0)
        budget = max(sum(m for _, m, _ in self._seen) / n, 1.0)
        if slope == 0.0:  # prompt size makes no difference here: every request weighs the same
            return 0.0, 1.0
        return 1.0, fixed / slope / budget

    def cost(self, prompt_tokens: int, max_tokens: int) -> float:
        per_prompt, per_output = self._weights()
        return per_prompt * prompt_tokens + per_output * max_tokens

    def remaining_s(self, elapsed_s: float) -> float | None:
        """Seconds left: elapsed × (work left / work done); None before anything finished."""
        per_prompt, per_output = self._weights()

        def work(counts: Counter[tuple[int, int]]) -> float:
            return sum((per_prompt * p + per_output * m) * k for (p, m), k in counts.items())

        done = work(self._done)
        if done <= 0:
            return None
        return elapsed_s * work(self._left) / done
