"""Plain-text tables for the terminal, from summaries (the GUI draws its own)."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.foundation.terminal import printable
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.history.route_compare import LevelComparison, RouteFigures
from workbench.core.history.summary import CellSummary


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _spread(cell: CellSummary, figure: str, digits: int = 1) -> str:
    agg = cell.figures[figure]
    if agg.median is None:
        return "-"
    if agg.n > 1 and agg.p10 is not None and agg.p90 is not None:
        return f"{agg.median:,.{digits}f} ({agg.p10:,.{digits}f}-{agg.p90:,.{digits}f})"
    return f"{agg.median:,.{digits}f}"


def _goodput(cell: CellSummary) -> tuple[str, str]:
    """Goodput in requests/s and the share that met the SLO, e.g. ('3.2', '80% (8/10)')."""
    good = cell.goodput
    if good is None:
        return "-", "-"
    share = "-" if good.attainment is None else f"{good.attainment:.0%} ({good.met}/{good.judged})"
    return _fmt(good.request_goodput, 2), share


def format_summary_table(cells: Sequence[CellSummary]) -> str:
    """Median (p10-p90 when repeated) of the headline figures per model and prompt length
    (and offered rate: a run at a rate shows it, `req/s`); an open-loop run adds TTFT from the
    scheduled time and the dispatch lateness, a run with an SLO its goodput and the share of
    requests that met it."""
    header: tuple[str, ...] = (
        "model",
        "attn",
        "prompt",
        "n",
        "err",
        "TTFT ms",
        "decode tok/s",
        "prefill tok/s",
        "e2e ms",
        "cost $",
    )
    open_loop = any(c.open_loop for c in cells)
    judged = any(c.goodput is not None for c in cells)
    rated = any(c.offered_rate is not None for c in cells)  # a row per rate: say which
    header = (*header[:3], "req/s", *header[3:]) if rated else header
    header += ("TTFT sched ms", "dispatch ms") if open_loop else ()
    header += ("goodput req/s", "SLO met") if judged else ()
    rows = [header]
    for c in cells:
        extra: tuple[str, ...] = ()
        if open_loop:
            extra += (_spread(c, "ttft_from_scheduled_ms", 0), _spread(c, "dispatch_ms", 1))
        if judged:
            extra += _goodput(c)
        rows.append(
            (
                printable(c.model),  # a server's or a config's id: no terminal escapes
                c.attention or "?",
                tokens_label(c.prompt_tokens_target),
                *((c.rate_text or "-",) if rated else ()),
                str(c.n),
                str(c.errors),
                _spread(c, "ttft_ms", 0),
                _spread(c, "decode_tps", 1),
                _spread(c, "prefill_tps", 0),
                _spread(c, "e2e_ms", 0),
                _fmt(c.median("cost_usd"), 5) if c.price_known else "no price",
                *extra,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for index, row in enumerate(rows):
        cells_text = [
            text.ljust(widths[i]) if i < 3 else text.rjust(widths[i]) for i, text in enumerate(row)
        ]
        lines.append("  ".join(cells_text).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _signed(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:+,.{digits}f}"


def _route_row(level: int, route: str, f: RouteFigures) -> tuple[str, ...]:
    return (
        str(level),
        route,
        str(f.n),
        str(f.errors),
        _fmt(f.ttft_median_ms),
        _fmt(f.ttft_p90_ms),
        _fmt(f.decode_tps_median),
        _fmt(f.e2e_median_ms, 0),
        _fmt(f.e2e_p90_ms, 0),
    )


def format_route_table(levels: Sequence[LevelComparison]) -> str:
    """Direct, gateway and the gateway's addition (gateway minus direct) per concurrency."""
    header = (
        "conc",
        "route",
        "n",
        "err",
        "TTFT ms",
        "TTFT p90",
        "decode tok/s",
        "e2e ms",
        "e2e p90",
    )
    rows = [header]
    for c in levels:
        rows.append(_route_row(c.concurrency, "direct", c.direct))
        rows.append(_route_row(c.concurrency, "gateway", c.gateway))
        pct = c.decode_tps_change_pct
        decode = _signed(c.decode_tps_change) + (f" ({pct:+.1f}%)" if pct is not None else "")
        rows.append(
            (
                str(c.concurrency),
                "added",
                "",
                "",
                _signed(c.added_ttft_median_ms),
                _signed(c.added_ttft_p90_ms),
                decode,
                _signed(c.added_e2e_median_ms, 0),
                _signed(c.added_e2e_p90_ms, 0),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for index, row in enumerate(rows):
        text = [t.ljust(widths[i]) if i < 2 else t.rjust(widths[i]) for i, t in enumerate(row)]
        lines.append("  ".join(text).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
