"""Aggregate request rows into one row per (target, prompt length): what tables and charts show."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.core.metrics import Aggregate, aggregate, derive, token_count
from workbench.core.results import RequestResult

FIGURES = ("ttft_ms", "decode_tps", "prefill_tps", "e2e_ms", "tpot_ms", "overall_tps", "cost_usd")


@dataclass(frozen=True)
class CellSummary:
    provider: str
    model: str
    attention: str | None
    prompt_tokens_target: int
    n: int
    errors: int
    prompt_tokens_median: float | None
    figures: dict[str, Aggregate]
    error_classes: tuple[str, ...]

    def median(self, figure: str) -> float | None:
        return self.figures[figure].median


@dataclass
class _Cell:
    attention: str | None
    n: int = 0
    errors: int = 0
    # only the figures the summary quotes, 8 bytes each: a long run's rows are not kept
    figures: dict[str, array[float]] = field(
        default_factory=lambda: {name: array("d") for name in FIGURES}
    )
    prompt_tokens: array[float] = field(default_factory=lambda: array("d"))
    error_classes: set[str] = field(default_factory=set)


class Summarizer:
    """`summarize`, one row at a time: keeps ~64 bytes per measured request, not the rows."""

    def __init__(self) -> None:
        self._cells: dict[tuple[str, str, int], _Cell] = {}

    def add(self, result: RequestResult) -> None:
        if result.warmup:
            return
        key = (result.provider, result.model, result.prompt_tokens_target or 0)
        cell = self._cells.setdefault(key, _Cell(result.attention))
        if not result.ok:
            cell.errors += 1
            cell.error_classes.add(str(result.error_class))
            return
        cell.n += 1
        metrics = derive(result)
        for name in FIGURES:
            value = getattr(metrics, name)
            if value is not None:
                cell.figures[name].append(value)
        prompt = token_count(result.prompt_tokens)
        if prompt is not None:
            cell.prompt_tokens.append(float(prompt))

    def cells(self) -> list[CellSummary]:
        """One summary per (target, prompt length), shortest prompt first."""
        cells = [
            CellSummary(
                provider=provider,
                model=model,
                attention=cell.attention,
                prompt_tokens_target=length,
                n=cell.n,
                errors=cell.errors,
                prompt_tokens_median=aggregate(cell.prompt_tokens).median,
                figures={
                    name: aggregate(values, errors=cell.errors)
                    for name, values in cell.figures.items()
                },
                error_classes=tuple(sorted(cell.error_classes)),
            )
            for (provider, model, length), cell in self._cells.items()
        ]
        return sorted(cells, key=lambda c: (c.prompt_tokens_target, c.provider, c.model))


def summarize(results: Iterable[RequestResult]) -> list[CellSummary]:
    """Group measured (non-warm-up) rows by target and prompt length, shortest prompt first."""
    summarizer = Summarizer()
    for result in results:
        summarizer.add(result)
    return summarizer.cells()
