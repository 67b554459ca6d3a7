"""Plain conclusions for stakeholders: who is faster, by how much, at what cost.

Structured here (Qt-free, testable); the app words them in the UI language.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.core.summary import CellSummary


@dataclass(frozen=True)
class Conclusion:
    prompt_tokens: int
    model: str
    attention: str | None
    baseline: str
    baseline_attention: str | None
    decode_ratio: float | None  # model's decode tok/s over the baseline's
    ttft_ratio: float | None  # baseline's TTFT over the model's (>1: model answers sooner)
    cost_change: float | None  # model's cost per request relative to the baseline, -0.4 = 40 % less
    n: int = 0  # requests behind the thinner of the two medians: under FEW a ratio is anecdote


FEW = 3


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def conclude(cells: Sequence[CellSummary], baseline: str | None = None) -> list[Conclusion]:
    """Compare each model with the baseline (default: the first model) at the longest prompt
    length both have measured without errors."""
    ok = [c for c in cells if c.n > 0]
    models = list(dict.fromkeys(c.model for c in ok))
    if len(models) < 2:
        return []
    base = baseline if baseline in models else models[0]
    by_key = {(c.model, c.prompt_tokens_target): c for c in ok}
    out = []
    for model in models:
        if model == base:
            continue
        shared = sorted(length for (m, length) in by_key if m == model and (base, length) in by_key)
        if not shared:
            continue
        length = shared[-1]
        mine, theirs = by_key[(model, length)], by_key[(base, length)]
        cost_mine, cost_theirs = mine.median("cost_usd"), theirs.median("cost_usd")
        cost_change = (
            (cost_mine / cost_theirs - 1) if cost_mine is not None and cost_theirs else None
        )
        out.append(
            Conclusion(
                prompt_tokens=length,
                model=model,
                attention=mine.attention,
                baseline=base,
                baseline_attention=theirs.attention,
                decode_ratio=_ratio(mine.median("decode_tps"), theirs.median("decode_tps")),
                ttft_ratio=_ratio(theirs.median("ttft_ms"), mine.median("ttft_ms")),
                cost_change=cost_change,
                n=min(mine.n, theirs.n),
            )
        )
    return out
