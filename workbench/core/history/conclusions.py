"""Plain conclusions for stakeholders: who is faster, by how much, at what cost.

Structured here (Qt-free, testable); the app words them in the UI language.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.core.history.summary import CellSummary


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
    concurrency: int = 1  # requests in flight when both were measured
    n: int = 0  # requests behind the thinner of the two medians: under FEW a ratio is anecdote


FEW = 3


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def conclude(cells: Sequence[CellSummary], baseline: str | None = None) -> list[Conclusion]:
    """Compare each model with the baseline (default: the first model) at the longest prompt
    length both have measured without errors, at each concurrency level apart."""
    levels = sorted({c.concurrency for c in cells})
    return [
        conclusion
        for level in levels
        for conclusion in _conclude([c for c in cells if c.concurrency == level], baseline)
    ]


def _conclude(cells: Sequence[CellSummary], baseline: str | None) -> list[Conclusion]:
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
                concurrency=mine.concurrency,
                n=min(mine.n, theirs.n),
            )
        )
    return out


@dataclass(frozen=True)
class Winners:
    """At the longest prompt length two or more models ran, at one concurrency level: who
    answered first, who decoded fastest, and which models had no successful request there."""

    prompt_tokens: int
    first_token: str
    decode: str | None
    could_not_run: tuple[str, ...]
    concurrency: int = 1


def winners(cells: Sequence[CellSummary]) -> list[Winners]:
    """The winners at each concurrency level apart (a model at 1 request in flight is never
    ranked against one at 16); a level is left out until two models have measured the same
    length there, and where just two models both ran (the comparison's sentences say it all)."""
    levels = sorted({c.concurrency for c in cells})
    found = (_winners([c for c in cells if c.concurrency == level]) for level in levels)
    return [w for w in found if w is not None]


def _winners(cells: Sequence[CellSummary]) -> Winners | None:
    lengths = sorted({c.prompt_tokens_target for c in cells}, reverse=True)
    for length in lengths:
        here = [c for c in cells if c.prompt_tokens_target == length]
        ran = [c for c in here if c.n > 0 and c.median("ttft_ms") is not None]
        if len(ran) < 2:
            continue
        first = min(ran, key=lambda c: c.median("ttft_ms") or 0.0)
        decoding = [c for c in ran if c.median("decode_tps") is not None]
        fastest = max(decoding, key=lambda c: c.median("decode_tps") or 0.0) if decoding else None
        failed = tuple(c.model for c in here if c.n == 0)
        if len(ran) < 3 and not failed:
            return None
        decode = fastest.model if fastest else None
        return Winners(length, first.model, decode, failed, first.concurrency)
    return None
