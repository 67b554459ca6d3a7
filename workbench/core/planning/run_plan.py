"""What a run will do: targets, prompt lengths, repeats, concurrency and limits, all checked
on creation, so a plan that exists can run. Keys never enter a plan (plans are stored)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from workbench.core.foundation.lengths import draw
from workbench.core.foundation.results import Target
from workbench.core.load.prompts import MAX_TARGET_TOKENS, MIN_TARGET_TOKENS

if TYPE_CHECKING:  # a plan's fields only: the window's first paint imports this module
    from workbench.core.datasets import Dataset
    from workbench.core.load.arrivals import ArrivalSpec
    from workbench.core.load.capacity import Rule
    from workbench.core.load.slo import Objective

Mode = Literal["parallel", "sequential"]
# The limits of a plan (docs/reliability.md, "Runs and input"); the CLI checks its flags
# against these.
MAX_CONCURRENCY = 256
MAX_REPEATS = 100_000
MAX_WARMUP = 1_000
MAX_OUTPUT_TOKENS = 1_048_576
MAX_TEMPERATURE = 2.0
MAX_SECONDS = 86_400.0  # one day: any timeout or retry budget beyond it is a typo


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


@dataclass(frozen=True)
class RefusedCell:
    """A (target, prompt length) cell refused before sending, and why (planning/memory_fit.py)."""

    label: str  # Target.label
    prompt_tokens: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """What the user chooses for a run beside its targets and prompt lengths, said once: the
    choices of the window or the flags (plan.Choices) and the plan built from them (RunPlan)
    are both these settings plus their own few fields."""

    # the prompt sizes the run measures, each a cell with every target (a sweep has several)
    prompt_lengths: tuple[int, ...]
    repeats: int = 1
    # requests in flight; several levels run in turn, each cell at every level (a sweep of
    # concurrency, a route comparison). The one home of concurrency: a shard's plan has one level
    concurrency_levels: tuple[int, ...] = (1,)
    warmup: int = 0
    max_tokens: int = 256
    temperature: float = 0.0
    mode: Mode = "parallel"
    language: Literal["en", "zh"] = "en"
    task: Literal["summary", "needle"] = "summary"
    needle_depth: float = 0.5
    cache_test: bool = False  # same prompt (no nonce) every repeat: cold vs warm prefix cache
    retry_budget_s: float = 0.0  # 429/503 with Retry-After are retried within this budget
    # open loop (--rate): each cell's requests are due on this schedule instead of keeping
    # `concurrency` in flight; repeats and concurrency do not apply (core/load/arrivals.py)
    arrivals: ArrivalSpec | None = None
    slo: tuple[Objective, ...] = ()  # each request met or missed these (core/load/slo.py)
    # ± tokens around each prompt length (one per length; () for none), and around max_tokens:
    # each request's size is drawn from the range (core/foundation/lengths.py)
    prompt_spreads: tuple[int, ...] = ()
    max_tokens_spread: int = 0
    # --dataset: request i sends the file's request i (its messages, or a trace's sizes and
    # shared prefixes); a trace's times are in `arrivals` (core/datasets/)
    dataset: Dataset | None = None
    # --capacity: each target's highest load within `slo` is searched (core/run/capacity_run.py),
    # one step (an ordinary cell) at a time; `arrivals` is then each rate step's template,
    # and the plan counts the search's worst case
    capacity: Rule | None = None


@dataclass(frozen=True, kw_only=True)
class RunPlan(RunSettings):
    """Everything a run needs except keys, which never enter a plan (plans are stored): the
    settings, and the targets and lengths they apply to."""

    targets: tuple[Target, ...]
    calibrate: bool = True  # one short request per target when it has no calibration yet
    measure_baseline: bool = True
    warm_connections: bool = True  # open a cell's connections before its opening burst
    kind: Literal["comparison", "sweep", "replay"] = "comparison"
    # cells whose KV cache would not fit the deployment: rows that say why, nothing sent
    refused: tuple[RefusedCell, ...] = ()

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise ValueError(problem)

    def _problem(self) -> str | None:
        """The first value out of range, in words; None when the plan can run."""
        if not self.targets:
            return "a run needs at least one target (provider and model)"
        if not self.prompt_lengths:
            return "a run needs at least one prompt length"
        if not self.concurrency_levels:
            return "a run needs at least one concurrency level"
        for length in self.prompt_lengths:
            if not (isinstance(length, int) and MIN_TARGET_TOKENS <= length <= MAX_TARGET_TOKENS):
                return (
                    f"prompt length must be {MIN_TARGET_TOKENS}..{MAX_TARGET_TOKENS} tokens, "
                    f"got {length!r}"
                )
        counts = (
            *(("concurrency", level, 1, MAX_CONCURRENCY) for level in self.concurrency_levels),
            ("repeats", self.repeats, 1, MAX_REPEATS),
            ("warmup", self.warmup, 0, MAX_WARMUP),
            ("max_tokens", self.max_tokens, 1, MAX_OUTPUT_TOKENS),
        )
        for name, value, low, high in counts:
            if not (isinstance(value, int) and low <= value <= high):
                return f"{name} must be {low}..{high}, got {value!r}"
        if not (_finite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            return f"temperature must be 0..{MAX_TEMPERATURE:g}, got {self.temperature!r}"
        if not (_finite(self.needle_depth) and 0 <= self.needle_depth <= 1):
            return f"needle_depth must be 0..1, got {self.needle_depth!r}"
        limits = []
        for t in self.targets:  # each target's limits: the one home of a request's timeouts
            limits += [
                (f"{t.label}: first-token timeout", t.timeouts.first_token_s),
                (f"{t.label}: stall timeout", t.timeouts.stall_s),
                (f"{t.label}: total timeout", t.timeouts.total_s),
            ]
        for name, seconds in limits:
            if seconds is not None and not (_finite(seconds) and 0 < seconds <= MAX_SECONDS):
                return f"{name} must be more than 0 and at most {MAX_SECONDS:g} s, got {seconds!r}"
        spread_problem = self._spread_problem()
        if spread_problem:
            return spread_problem
        if self.arrivals is not None and len(self.concurrency_levels) > 1:
            return "an open-loop run (a rate) has one schedule per cell, not concurrency levels"
        budget = self.retry_budget_s
        if not (_finite(budget) and 0 <= budget <= MAX_SECONDS):
            return f"retry_budget_s must be 0..{MAX_SECONDS:g} s, got {budget!r}"
        return None

    def _spread_problem(self) -> str | None:
        spreads = self.prompt_spreads
        if spreads and len(spreads) != len(self.prompt_lengths):
            return f"{len(spreads)} prompt spreads for {len(self.prompt_lengths)} prompt lengths"
        for length, spread in zip(self.prompt_lengths, spreads, strict=False):
            low, high = length - spread, length + spread
            if spread < 0 or low < MIN_TARGET_TOKENS or high > MAX_TARGET_TOKENS:
                return (
                    f"a prompt of {length:,}±{spread:,} tokens must stay within "
                    f"{MIN_TARGET_TOKENS}..{MAX_TARGET_TOKENS:,}; use a smaller spread"
                )
        low, high = (
            self.max_tokens - self.max_tokens_spread,
            self.max_tokens + self.max_tokens_spread,
        )
        if self.max_tokens_spread < 0 or low < 1 or high > MAX_OUTPUT_TOKENS:
            return (
                f"max_tokens {self.max_tokens:,}±{self.max_tokens_spread:,} must stay within "
                f"1..{MAX_OUTPUT_TOKENS:,}; use a smaller spread"
            )
        return None

    def prompt_size(self, length: int, index: int) -> int:
        """The prompt tokens request `index` of a `length` cell is built for (-1: calibration)."""
        spreads = dict(zip(self.prompt_lengths, self.prompt_spreads, strict=False))
        return draw(length, spreads.get(length, 0), index, "prompt")

    def output_size(self, index: int) -> int:
        """The max_tokens request `index` asks for: its dataset row's, else drawn."""
        if self.dataset is not None and index >= 0:
            own = self.dataset.at(index).output_tokens
            if own is not None:
                return own
        return draw(self.max_tokens, self.max_tokens_spread, index, "output")

    def longest(self, length: int) -> int:
        """The longest prompt a `length` cell sends (a trace's longest input)."""
        if self.dataset is not None:
            return max((r.input_tokens or 0 for r in self.dataset.requests), default=0) or length
        return length + dict(zip(self.prompt_lengths, self.prompt_spreads, strict=False)).get(
            length, 0
        )

    def refusal(self, target: Target, length: int) -> str | None:
        """Why the cell (target, length) is not sent; None when it is."""
        for cell in self.refused:
            if cell.label == target.label and cell.prompt_tokens == length:
                return cell.reason
        return None

    def requests_at(self, concurrency: int) -> int:
        """Requests per (target, length) cell at one concurrency level; in an open-loop run,
        the schedule's (this worker's share of it)."""
        if self.capacity is not None:
            from workbench.core.load.capacity import worst_case  # not at the first paint

            return worst_case(self.capacity)[1]
        if self.arrivals is not None:
            return self.arrivals.expected_requests
        return max(self.repeats, concurrency)

    @property
    def total_requests(self) -> int:
        per_target = sum(self.requests_at(c) + self.warmup for c in self.concurrency_levels)
        return len(self.targets) * len(self.prompt_lengths) * per_target

    def to_config(self) -> dict[str, Any]:
        """The plan as stored: a dataset and a trace's times by their size, not their rows."""
        config = asdict(self)
        # stored as it always was (docs/json.md): the first level, and all of them when several
        levels = self.concurrency_levels
        config["concurrency"] = levels[0]
        config["concurrency_levels"] = list(levels) if len(levels) > 1 else []
        if self.dataset is not None:
            config["dataset"] = {
                "kind": self.dataset.kind,
                "requests": len(self.dataset.requests),
            }
        if self.arrivals is not None and self.arrivals.offsets is not None:
            config["arrivals"]["offsets"] = len(self.arrivals.offsets)
        return config
