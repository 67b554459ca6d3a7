"""Aggregate request rows into one row per (target, prompt length): what tables and charts show."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench.core.metrics import Aggregate, aggregate, derive
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


def summarize(results: Iterable[RequestResult]) -> list[CellSummary]:
    """Group measured (non-warm-up) rows by target and prompt length, shortest prompt first."""
    groups: dict[tuple[str, str, int], list[RequestResult]] = {}
    for result in results:
        if result.warmup:
            continue
        key = (result.provider, result.model, result.prompt_tokens_target or 0)
        groups.setdefault(key, []).append(result)
    cells = []
    for (provider, model, length), rows in groups.items():
        ok = [r for r in rows if r.ok]
        failed = [r for r in rows if not r.ok]
        metrics = [derive(r) for r in ok]
        figures = {
            name: aggregate((getattr(m, name) for m in metrics), errors=len(failed))
            for name in FIGURES
        }
        prompt = aggregate(float(r.prompt_tokens) for r in ok if r.prompt_tokens is not None)
        cells.append(
            CellSummary(
                provider=provider,
                model=model,
                attention=rows[0].attention,
                prompt_tokens_target=length,
                n=len(ok),
                errors=len(failed),
                prompt_tokens_median=prompt.median,
                figures=figures,
                error_classes=tuple(sorted({str(r.error_class) for r in failed})),
            )
        )
    return sorted(cells, key=lambda c: (c.prompt_tokens_target, c.provider, c.model))
