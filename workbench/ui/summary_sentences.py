"""The Summary's sentences, in the UI's language (rich text, model names in bold): each
conclusion, who won, who failed, was stopped or could not run, and which figures of an imported
row its file reported (shown as the file has them, workbench/core/history/summary.py) and which
are derived from its requests. `summary_page.py` lays them out."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from workbench.core.foundation.token_counts import tokens_label
from workbench.core.history.conclusions import FEW, Conclusion, Winners
from workbench.core.history.summary import ModelRow
from workbench.core.planning.memory_fit import headline

translate = QCoreApplication.translate
# the page's table columns (summary_page.SummaryDocument.COLUMNS), by the cell's figure
_SHOWN = {"ttft_ms": "TTFT ms", "decode_tps": "decode tok/s", "prefill_tps": "prefill tok/s"}


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
        text.replace("%1", esc(c.model))
        .replace("%2", place)
        .replace("%3", esc(c.reported_by or ""))
        .replace("%4", ", ".join(name[f] for f in _SHOWN if f in c.reported))
        .replace("%5", ", ".join(name[f] for f in _SHOWN if f not in c.reported))
    )


# a line may break after a slash ("tok/" | "s") and after a space ("67 " | "% less"): a unit
# keeps to its figure and stays whole
_UNIT_SLASH = re.compile(r"(?<=[A-Za-zµ])/(?=(?:s|token|req)\b)")
_FIGURE_SPACE = re.compile(r"(?<=\d) (?=(?:%|ms|µs|s|B|KB|MB|GB|TB)(?!\w))")
WORD_JOINER = "\u2060"  # no break here, nothing shown


def keep_units(html: str) -> str:
    """The page's text with no line break inside a unit (tok/s, req/s, GB/s) nor between a
    figure and its unit (67 %)."""
    return _FIGURE_SPACE.sub("\u00a0", _UNIT_SLASH.sub("/" + WORD_JOINER, html))


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def where(length: int, concurrency: int, several_levels: bool) -> str:
    """ "4K", or "4K and concurrency 16" where the run measured several levels."""
    if not several_levels:
        return tokens_label(length)
    return (
        translate("SummaryPage", "%1 and concurrency %2")
        .replace("%1", tokens_label(length))
        .replace("%2", str(concurrency))
    )


def sentence(c: Conclusion, several_levels: bool = False) -> str:
    """One conclusion in words, model names in bold (rich text)."""
    speed = ""
    if c.decode_ratio is not None:
        if c.decode_ratio >= 1:
            speed = translate("SummaryPage", "decodes %1× faster than").replace(
                "%1", f"{c.decode_ratio:.1f}"
            )
        else:
            speed = translate("SummaryPage", "decodes %1× slower than").replace(
                "%1", f"{1 / c.decode_ratio:.1f}"
            )
    cost = ""
    if c.cost_change is not None and abs(c.cost_change) >= 0.005:
        cost = (
            translate("SummaryPage", "costs %1 % less")
            if c.cost_change < 0
            else translate("SummaryPage", "costs %1 % more")
        )
        cost = cost.replace("%1", f"{abs(c.cost_change) * 100:.0f}")
    first = ""
    if c.ttft_ratio is not None and abs(c.ttft_ratio - 1) < 0.05:
        first = translate("SummaryPage", "about the same time to first token")
    elif c.ttft_ratio is not None:
        first = (
            translate("SummaryPage", "first token %1× %2")
            .replace("%1", f"{max(c.ttft_ratio, 1 / c.ttft_ratio):.1f}")
            .replace(
                "%2",
                translate("SummaryPage", "sooner")
                if c.ttft_ratio >= 1
                else translate("SummaryPage", "later"),
            )
        )
    text = (
        translate("SummaryPage", "At %1 the %2 model <b>%3</b> %4 the %5 model <b>%6</b>")
        .replace("%1", where(c.prompt_tokens, c.concurrency, several_levels))
        .replace("%2", c.attention or "?")
        .replace("%3", esc(c.model))
        .replace("%4", speed)
        .replace("%5", c.baseline_attention or "?")
        .replace("%6", esc(c.baseline))
    )
    extras = [p for p in (first, cost) if p]
    if extras:  # the punctuation too: Chinese has its own brackets, comma and full stop
        joined = translate("SummaryPage", ", ").join(extras)
        text += translate("SummaryPage", " (%1)").replace("%1", joined)
    text += _stop()
    if 0 < c.n < FEW:  # "3.8× faster" from one request each is one sample, not a finding
        text += " " + translate(
            "SummaryPage", "Only %1 request(s) each: too few to decide on; run with repeats."
        ).replace("%1", str(c.n))
    return text


def winners_sentence(w: Winners, several_levels: bool = False) -> str:
    """Who wins at the longest length most models ran, and how many could not run there."""
    text = (
        translate("SummaryPage", "At %1 the first token came soonest from <b>%2</b>")
        .replace("%1", where(w.prompt_tokens, w.concurrency, several_levels))
        .replace("%2", esc(w.first_token))
    )
    if w.decode is not None:
        text += translate("SummaryPage", "; <b>%1</b> decoded fastest").replace("%1", esc(w.decode))
    if w.could_not_run:
        text += translate("SummaryPage", "; %1 could not run (why: below)").replace(
            "%1", ", ".join(f"<b>{esc(m)}</b>" for m in w.could_not_run)
        )
    return text + _stop()


def _stop() -> str:
    return translate("SummaryPage", ".", "the full stop ending a sentence")


def failure_sentence(row: ModelRow, several_levels: bool = False) -> str:
    c = row.cell
    why = headline(row.reason) if c.n == 0 else None
    if why is not None:  # refused before sending: its KV cache would not fit
        return (
            translate("SummaryPage", "<b>%1</b> could not run at %2: %3")
            .replace("%1", esc(c.model))
            .replace("%2", where(c.prompt_tokens_target, c.concurrency, several_levels))
            .replace("%3", esc(why))
        )
    return (
        translate("SummaryPage", "<b>%1</b> failed at %2: %3 of %4 requests (%5).")
        .replace("%1", esc(c.model))
        .replace("%2", where(c.prompt_tokens_target, c.concurrency, several_levels))
        .replace("%3", str(c.errors))
        .replace("%4", str(c.n + c.errors + c.stopped))
        .replace("%5", ", ".join(c.error_classes))
    )


def stopped_sentence(row: ModelRow, several_levels: bool = False) -> str:
    """A user's Stop is said as such: it is no failure of the model."""
    c = row.cell
    return (
        translate("SummaryPage", "<b>%1</b> was stopped by the user at %2: %3 of %4 requests.")
        .replace("%1", esc(c.model))
        .replace("%2", where(c.prompt_tokens_target, c.concurrency, several_levels))
        .replace("%3", str(c.stopped))
        .replace("%4", str(c.n + c.errors + c.stopped))
    )
