"""Aggregate request rows into one row per (target, prompt length): what tables and charts show."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


# ---- the stakeholder page's facts (worded and drawn by workbench/ui/summary_page.py) ----


@dataclass(frozen=True)
class ModelRow:
    """One model at one prompt length on the summary page: its figures, or why it failed."""

    cell: CellSummary
    reason: str  # "" when every request succeeded; else the first failure's class and message


@dataclass(frozen=True)
class SummaryReport:
    """Everything the summary page states, in one order: models as they first appear."""

    run_id: str
    kind: str
    started_at: float  # wall clock of the first request, seconds since the epoch
    endpoints: tuple[str, ...]  # "provider (host:port)"
    prompt_lengths: tuple[int, ...]
    prompt_tokens_median: float | None  # what the servers counted, over every measured request
    models: tuple[str, ...]
    attention: dict[str, str | None]
    rows: tuple[ModelRow, ...]
    repeats: int  # the most measured requests of any (model, length)

    @property
    def is_sweep(self) -> bool:
        return len(self.prompt_lengths) > 1

    def row(self, model: str, length: int) -> ModelRow | None:
        for row in self.rows:
            if row.cell.model == model and row.cell.prompt_tokens_target == length:
                return row
        return None


def _host(base_url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    return parts.netloc.rsplit("@", 1)[-1] or base_url


def _reason(rows: Iterable[RequestResult]) -> str:
    failed = [r for r in rows if not r.ok]
    if not failed:
        return ""
    first = failed[0]
    message = (first.error_message or "").strip().splitlines()
    text = f"{first.error_class}: {message[0]}" if message else str(first.error_class)
    return text if len(text) <= 300 else text[:297] + "…"


def build_report(
    results: Iterable[RequestResult],
    run_id: str = "",
    kind: str = "",
    order: Sequence[str] = (),
) -> SummaryReport:
    """The page's facts from a run's requests (warm-up and calibration requests left out).

    Models come in `order` (the panes', or the plan's targets), then as they first appear, and
    every chart, table and sentence keeps that one order."""
    measured = [r for r in results if not r.warmup]
    present = dict.fromkeys(r.model for r in measured)
    models = tuple(m for m in dict.fromkeys(order) if m in present)
    models += tuple(m for m in present if m not in models)
    order = {m: i for i, m in enumerate(models)}
    cells = sorted(
        summarize(measured), key=lambda c: (order[c.model], c.prompt_tokens_target, c.provider)
    )
    by_cell: dict[tuple[str, int], list[RequestResult]] = {}
    for r in measured:
        by_cell.setdefault((r.model, r.prompt_tokens_target or 0), []).append(r)
    rows = tuple(ModelRow(c, _reason(by_cell[(c.model, c.prompt_tokens_target)])) for c in cells)
    endpoints = tuple(dict.fromkeys(f"{r.provider} ({_host(r.base_url)})" for r in measured))
    started = [r.started_at for r in measured if r.started_at]
    prompt = aggregate(float(r.prompt_tokens) for r in measured if r.ok and r.prompt_tokens)
    return SummaryReport(
        run_id=run_id or (measured[0].run_id if measured else ""),
        kind=kind,
        started_at=min(started) if started else 0.0,
        endpoints=endpoints,
        prompt_lengths=tuple(sorted({c.prompt_tokens_target for c in cells})),
        prompt_tokens_median=prompt.median,
        models=models,
        attention={m: next((r.attention for r in measured if r.model == m), None) for m in models},
        rows=rows,
        repeats=max((c.n + c.errors for c in cells), default=0),
    )
