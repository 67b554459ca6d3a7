"""Plain-text tables for the terminal, from summaries (the GUI draws its own)."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.core.summary import CellSummary
from workbench.core.terminal import printable


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _tokens(n: int) -> str:
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)}M"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024}K"
    return str(n)


def _spread(cell: CellSummary, figure: str, digits: int = 1) -> str:
    agg = cell.figures[figure]
    if agg.median is None:
        return "-"
    if agg.n > 1 and agg.p10 is not None and agg.p90 is not None:
        return f"{agg.median:,.{digits}f} ({agg.p10:,.{digits}f}-{agg.p90:,.{digits}f})"
    return f"{agg.median:,.{digits}f}"


def format_summary_table(cells: Sequence[CellSummary]) -> str:
    """Median (p10-p90 when repeated) of the headline figures per model and prompt length."""
    header = (
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
    rows = [header]
    for c in cells:
        rows.append(
            (
                printable(c.model),  # a server's or a config's id: no terminal escapes
                c.attention or "?",
                _tokens(c.prompt_tokens_target),
                str(c.n),
                str(c.errors),
                _spread(c, "ttft_ms", 0),
                _spread(c, "decode_tps", 1),
                _spread(c, "prefill_tps", 0),
                _spread(c, "e2e_ms", 0),
                _fmt(c.median("cost_usd"), 5) if c.price_known else "no price",
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
