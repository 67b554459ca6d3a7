"""The Summary's sentence on an imported row: which figures its file reported (shown as the file
has them, workbench/core/summary_files.py) and which are derived from its requests."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from workbench.core.summary import ModelRow

translate = QCoreApplication.translate
# the page's table columns (summary_page.SummaryDocument.COLUMNS), by the cell's figure
_SHOWN = {"ttft_ms": "TTFT ms", "decode_tps": "decode tok/s", "prefill_tps": "prefill tok/s"}


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def source_sentence(row: ModelRow, place: str) -> str:
    """Rich text naming the row's model (bold), its `place` ("4K"), the tool and the sources."""
    c = row.cell
    name = {f: translate("SummaryPage", label) for f, label in _SHOWN.items()}
    text = (
        translate(
            "SummaryPage", "<b>%1</b> at %2, imported from %3: %4 as the file reported; %5 derived."
        )
        if c.reported
        else translate(
            "SummaryPage",
            "<b>%1</b> at %2, imported from %3: every figure derived from its requests (the "
            "file's own cover several rows).",
        )
    )
    return (
        text.replace("%1", _esc(c.model))
        .replace("%2", place)
        .replace("%3", _esc(c.reported_by or ""))
        .replace("%4", ", ".join(name[f] for f in _SHOWN if f in c.reported))
        .replace("%5", ", ".join(name[f] for f in _SHOWN if f not in c.reported))
    )
