"""Aggregate request rows into one row per (target, prompt length, concurrency, offered rate):
what tables and charts show. Concurrency levels are never pooled: a request at 16 in flight is
not one at 1; nor are offered rates (a capacity search's steps), a request at 4 req/s is not one
at 16."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from workbench.core.foundation.metrics import Aggregate, aggregate, derive, token_count
from workbench.core.foundation.redaction import redact_and_cut
from workbench.core.foundation.reported_figures import reported as stated_figures
from workbench.core.foundation.results import RequestResult
from workbench.core.load.capacity_report import held_rates
from workbench.core.load.slo import Goodput, GoodputTally

if TYPE_CHECKING:  # the run's facts bring the capacity modules: not at the window's start
    from workbench.core.history.run_facts import RunFacts

FIGURES = (
    "ttft_ms",
    "decode_tps",
    "prefill_tps",
    "e2e_ms",
    "tpot_ms",
    "overall_tps",
    "cost_usd",
    "ttft_from_scheduled_ms",
    "dispatch_ms",
)


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
    price_known: bool = True  # False when any row had no known price: cost is not summed
    stopped: int = 0  # requests the user stopped: neither in `n` nor in `errors`
    concurrency: int = 1  # requests in flight when these were measured
    goodput: Goodput | None = None  # against the run's --slo; None without one
    open_loop: bool = False  # its requests came on a schedule (--rate)
    offered_rate: float | None = None  # the schedule's requests/s; None: closed loop, a trace
    reported_by: str | None = None  # the tool whose file these rows were imported from
    reported: tuple[
        str, ...
    ] = ()  # the figures that file stated (with_file_figures); the rest derived

    def median(self, figure: str) -> float | None:
        return self.figures[figure].median

    @property
    def rate_text(self) -> str:
        """The offered rate as every table shows it (requests/s, e.g. "5.66"); "" when the
        cell had none (closed loop, a trace's own clock)."""
        return "" if self.offered_rate is None else f"{self.offered_rate:g}"


@dataclass
class _Cell:
    attention: str | None
    n: int = 0
    errors: int = 0
    stopped: int = 0
    # only the figures the summary quotes, 8 bytes each: a long run's rows are not kept
    figures: dict[str, array[float]] = field(
        default_factory=lambda: {name: array("d") for name in FIGURES}
    )
    prompt_tokens: array[float] = field(default_factory=lambda: array("d"))
    error_classes: set[str] = field(default_factory=set)
    price_known: bool = True
    goodput: GoodputTally = field(default_factory=GoodputTally)
    open_loop: bool = False


def shown_model(result: RequestResult) -> str:
    """The model as a summary names it: one model through two protocols is two entries."""
    protocol = result.protocol or "chat"
    return result.model if protocol == "chat" else f"{result.model} via {protocol}"


CellKey = tuple[str, str, int, int, float | None]


def cell_key(result: RequestResult) -> CellKey:
    """The cell a row belongs to: target, prompt length, concurrency and offered rate."""
    length = result.prompt_tokens_target or 0
    return (result.provider, shown_model(result), length, result.concurrency, result.offered_rate)


def _rest(c: CellSummary) -> tuple[float, str, str]:
    return (c.offered_rate or 0.0, c.provider, c.model)


class Summarizer:
    """`summarize`, one row at a time: keeps ~64 bytes per measured request, not the rows."""

    def __init__(self) -> None:
        self._cells: dict[CellKey, _Cell] = {}

    def add(self, result: RequestResult) -> None:
        if result.warmup:
            return
        cell = self._cells.setdefault(cell_key(result), _Cell(result.attention))
        cell.price_known = cell.price_known and result.prices.known
        cell.open_loop = cell.open_loop or result.scheduled_s is not None
        if result.stopped:  # a user's Stop: neither met nor missed, failed nor measured
            cell.stopped += 1
            return
        metrics = derive(result)
        cell.goodput.add(result, metrics)
        if not result.ok:
            cell.errors += 1
            cell.error_classes.add(str(result.error_class))
            return
        cell.n += 1
        for name in FIGURES:
            value = getattr(metrics, name)
            if value is not None:
                cell.figures[name].append(value)
        prompt = token_count(result.prompt_tokens)
        if prompt is not None:
            cell.prompt_tokens.append(float(prompt))

    def cells(self) -> list[CellSummary]:
        """One summary per (target, prompt length, concurrency), shortest prompt first."""
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
                price_known=cell.price_known,
                stopped=cell.stopped,
                concurrency=level,
                goodput=cell.goodput.result(),
                open_loop=cell.open_loop,
                offered_rate=rate,
            )
            for (provider, model, length, level, rate), cell in self._cells.items()
        ]
        return sorted(cells, key=lambda c: (c.prompt_tokens_target, c.concurrency, *_rest(c)))


def summarize(results: Iterable[RequestResult]) -> list[CellSummary]:
    """Group measured (non-warm-up) rows by target, prompt length and concurrency, shortest
    prompt first."""
    summarizer = Summarizer()
    for result in results:
        summarizer.add(result)
    return summarizer.cells()


# ---- the stakeholder page's facts (worded and drawn by workbench/ui/summary_page.py) ----


@dataclass(frozen=True)
class ModelRow:
    """One model at one prompt length on the summary page: its figures, or why it failed."""

    cell: CellSummary
    reason: str  # "" when no request failed; else the first failure's class and message


@dataclass(frozen=True)
class SummaryReport:
    """Everything the summary page states, in one order: models as they first appear."""

    run_id: str
    kind: str
    started_at: float  # wall clock of the first request, seconds since the epoch
    endpoints: tuple[str, ...]  # "provider (host:port)"; a stated URL alone: "host:port"
    prompt_lengths: tuple[int, ...]
    prompt_tokens_median: float | None  # what the servers counted, over every measured request
    models: tuple[str, ...]
    attention: dict[str, str | None]
    rows: tuple[ModelRow, ...]
    repeats: int  # the most measured requests of any (model, length, concurrency)
    concurrency_levels: tuple[int, ...] = (1,)  # 0: an imported file did not say
    # (file name, tool) of each imported run shown; and of those whose file names no endpoint
    imported_from: tuple[tuple[str, str], ...] = ()
    no_endpoint: tuple[tuple[str, str], ...] = ()
    own_runs: bool = True  # some rows were measured here, not imported
    # a capacity search's run.json section: the page leads with its sentence
    capacity: dict[str, Any] | None = None
    # model -> the offered rate the charts show of it: its capacity search's highest rate that
    # held; a model absent here is charted at its highest rate
    charted_rates: dict[str, float] = field(default_factory=dict)

    @property
    def is_sweep(self) -> bool:
        return len(self.prompt_lengths) > 1

    @property
    def charted_level(self) -> int:
        """The concurrency the charts show: the highest measured, the load a choice is made for."""
        return max(self.concurrency_levels, default=1)

    @property
    def several_rates(self) -> bool:
        return len({r.cell.offered_rate for r in self.rows}) > 1

    def row(self, model: str, length: int, concurrency: int | None = None) -> ModelRow | None:
        """The row of a model at a length and concurrency (None: the charted level), at its
        charted rate (a capacity search's steps are rows of their own)."""
        level = self.charted_level if concurrency is None else concurrency
        charted = self.charted_rates.get(model)
        ours = [
            r for r in self.rows if r.cell.model == model and r.cell.prompt_tokens_target == length
        ]
        held = [r for r in ours if charted is not None and r.cell.offered_rate == charted]
        if concurrency is None and held:  # at its capacity, whatever the floor's level (one)
            return held[0]
        found = [row for row in ours if row.cell.concurrency == level]
        chosen = [r for r in found if charted is not None and r.cell.offered_rate == charted]
        return max(chosen or found, key=lambda r: r.cell.offered_rate or 0.0, default=None)

    def charted_rows(self) -> list[ModelRow]:
        """One row per model and prompt length at the charted level and rate."""
        rows = (self.row(m, n) for m in self.models for n in self.prompt_lengths)
        return [r for r in rows if r is not None]


def _host(base_url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    return parts.netloc.rsplit("@", 1)[-1] or base_url


def _endpoint(provider: str, base_url: str) -> str:
    host = _host(base_url)
    return host if provider in ("", base_url) else f"{provider} ({host})"


def _reason(rows: Iterable[RequestResult]) -> str:
    failed = [r for r in rows if r.failed]
    if not failed:
        return ""
    first = failed[0]
    message = (first.error_message or "").strip().splitlines()
    text = f"{first.error_class}: {message[0]}" if message else str(first.error_class)
    return redact_and_cut(text, 300, ellipsis="…")


def build_report(
    results: Iterable[RequestResult],
    run_id: str = "",
    kind: str = "",
    order: Sequence[str] = (),
    cells: Sequence[CellSummary] | None = None,
    runs: Sequence[RunFacts] = (),
) -> SummaryReport:
    """The page's facts from a run's requests (warm-up and calibration requests left out).

    Models come in `order` (the panes', or the plan's targets), then as they first appear, and
    every chart, table and sentence keeps that one order. `cells`: `summarize(results)` when
    the caller made it already (the window does, in slices, for a large run). `runs`: the
    history's facts of the rows' runs: an imported run's figures as its file stated them, and
    the run's date where its rows have no send time."""
    measured = [r for r in results if not r.warmup]
    present = dict.fromkeys(shown_model(r) for r in measured)
    models = tuple(m for m in dict.fromkeys(order) if m in present)
    models += tuple(m for m in present if m not in models)
    rank = {m: i for i, m in enumerate(models)}
    ordered = sorted(
        summarize(measured) if cells is None else cells,
        key=lambda c: (rank[c.model], c.prompt_tokens_target, c.concurrency, *_rest(c)),
    )
    by_cell: dict[CellKey, list[RequestResult]] = {}
    for r in measured:
        by_cell.setdefault(cell_key(r), []).append(r)
    keys = [
        (c.provider, c.model, c.prompt_tokens_target, c.concurrency, c.offered_rate)
        for c in ordered
    ]
    if runs:
        ordered = with_file_figures(ordered, [{r.run_id for r in by_cell[k]} for k in keys], runs)
    rows = tuple(ModelRow(c, _reason(by_cell[k])) for c, k in zip(ordered, keys, strict=True))
    pairs = dict.fromkeys((r.provider, r.base_url) for r in measured)  # a URL parsed once
    # an imported file names its server by URL alone, or not at all (then no endpoint is shown)
    endpoints = tuple(dict.fromkeys(_endpoint(provider, url) for provider, url in pairs if url))
    # an imported run's date is its file's (as the history lists it), else its first send
    shown_runs = {r.run_id for r in measured}
    dated = {f.run_id: f.created_at for f in runs if f.run_id in shown_runs and f.created_at}
    filed = {f.run_id for f in runs if f.tool and f.run_id in dated}
    started = [r.started_at for r in measured if r.started_at and r.run_id not in filed]
    started += [dated[i] for i in filed]
    started = started or list(dated.values())
    sources = {
        f.run_id: (f.file or f.run_id, f.tool) for f in runs if f.tool and f.run_id in shown_runs
    }
    with_url = {r.run_id for r in measured if r.base_url}
    capacity = next((f.capacity for f in runs if f.run_id in shown_runs and f.capacity), None)
    counted = (token_count(r.prompt_tokens) for r in measured if r.ok)
    prompt = aggregate(float(n) for n in counted if n)
    return SummaryReport(
        run_id=run_id or (measured[0].run_id if measured else ""),
        kind=kind,
        started_at=min(started) if started else 0.0,
        endpoints=endpoints,
        prompt_lengths=tuple(sorted({c.prompt_tokens_target for c in ordered})),
        prompt_tokens_median=prompt.median,
        models=models,
        attention={
            m: next((r.attention for r in measured if shown_model(r) == m), None) for m in models
        },
        rows=rows,
        repeats=max((c.n + c.errors + c.stopped for c in ordered), default=0),
        concurrency_levels=tuple(sorted({c.concurrency for c in ordered})) or (1,),
        capacity=capacity,
        charted_rates=held_rates(capacity),
        imported_from=tuple(sources.values()),
        no_endpoint=tuple(v for k, v in sources.items() if k not in with_url),
        own_runs=bool(shown_runs - set(sources)),
    )


# An imported run's figures as its file reported them: the numbers `history show` prints,
# renamed by reported_figures (docs/metrics.md, "JSON vocabulary"). A run's rows give every
# figure of its cell. Where an imported run is one cell of the page (one model, prompt length
# and concurrency) and its file states a figure, the cell quotes the file's (a guidellm median
# is one of the values, not the rows' interpolated one); the rest stay the rows' and are named
# derived. A file's run-wide figures over several cells (a vLLM file of two prompt lengths)
# belong to none of them: those cells keep their rows' figures, all derived.

# a cell's figure -> the vocabulary's metric. Decode tok/s stays the rows': the tools' time per
# output token differ (guidellm's includes the first token's wait; vLLM's and AIPerf's do not).
_FROM_FILE = {"ttft_ms": "ttft", "e2e_ms": "e2el"}


def _file_aggregate(mine: Aggregate, own: dict[str, float], metric: str) -> Aggregate:
    """`mine` with each statistic the file states in its place."""

    def stated(stat: str, computed: float | None) -> float | None:
        return own.get(f"{stat}_{metric}_ms", computed)

    return replace(
        mine,
        median=stated("median", mine.median),
        p10=stated("p10", mine.p10),
        p90=stated("p90", mine.p90),
        p99=stated("p99", mine.p99),
    )


def with_file_figures(
    cells: Sequence[CellSummary], runs_of_cell: Sequence[set[str]], runs: Sequence[RunFacts]
) -> list[CellSummary]:
    """`cells` with the figures each imported run's file states; `runs_of_cell[i]`: the runs
    whose rows made cells[i]."""
    facts = {f.run_id: f for f in runs if f.tool}
    cells_of_run: dict[str, int] = {}
    for ids in runs_of_cell:
        for run_id in ids:
            cells_of_run[run_id] = cells_of_run.get(run_id, 0) + 1
    out = []
    for cell, ids in zip(cells, runs_of_cell, strict=True):
        imported = [facts[i] for i in ids if i in facts]
        if not imported:
            out.append(cell)
            continue
        tool = ", ".join(sorted({str(f.tool) for f in imported}))
        if len(ids) > 1 or cells_of_run[imported[0].run_id] > 1:
            out.append(replace(cell, reported_by=tool))  # the file's figures are no one cell's
            continue
        own = stated_figures(imported[0].stored or {})[0]
        figures = dict(cell.figures)
        stated = []
        for figure, metric in _FROM_FILE.items():
            if figure in figures and f"median_{metric}_ms" in own:
                figures[figure] = _file_aggregate(figures[figure], own, metric)
                stated.append(figure)
        out.append(replace(cell, figures=figures, reported_by=tool, reported=tuple(stated)))
    return out
