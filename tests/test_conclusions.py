import dataclasses

from workbench.core.foundation.metrics import Aggregate
from workbench.core.history.conclusions import conclude, winners
from workbench.core.history.summary import FIGURES, CellSummary


def _cell(model, attention, length, decode, ttft, cost):
    values = {"decode_tps": decode, "ttft_ms": ttft, "cost_usd": cost}
    figures = {f: Aggregate(3, 0, values.get(f), None, None, None) for f in FIGURES}
    return CellSummary("p", model, attention, length, 3, 0, float(length), figures, ())


def test_conclusion_uses_longest_shared_length_and_reads_as_ratios() -> None:
    cells = [
        _cell("gqa", "GQA", 1024, 50.0, 200.0, 0.010),
        _cell("gqa", "GQA", 65536, 20.0, 9000.0, 0.050),
        _cell("mla", "MLA", 1024, 55.0, 150.0, 0.008),
        _cell("mla", "MLA", 65536, 36.0, 6000.0, 0.030),
    ]
    (c,) = conclude(cells)
    assert (c.prompt_tokens, c.model, c.baseline) == (65536, "mla", "gqa")
    assert c.decode_ratio == 1.8 and c.ttft_ratio == 1.5
    assert abs(c.cost_change - (-0.4)) < 1e-9  # 40 % less


def test_no_conclusion_without_two_models() -> None:
    assert conclude([_cell("gqa", "GQA", 1024, 50.0, 200.0, 0.01)]) == []


def test_winners_are_named_at_each_concurrency_level_never_across_levels() -> None:
    """Issue 25 item 5: at 1 request in flight gqa answers first; at 16, mla. Pooled, gqa at 1
    was ranked against mla at 16, and the sentence named no level."""
    low = [
        _cell("gqa", "GQA", 4096, 60.0, 100.0, 0.01),
        _cell("mla", "MLA", 4096, 50.0, 150.0, 0.01),
        _cell("mha", "MHA", 4096, 40.0, 300.0, 0.01),
    ]
    high = [
        _cell("gqa", "GQA", 4096, 10.0, 2000.0, 0.01),
        _cell("mla", "MLA", 4096, 30.0, 900.0, 0.01),
        _cell("mha", "MHA", 4096, 5.0, 4000.0, 0.01),
    ]
    cells = low + [dataclasses.replace(c, concurrency=16) for c in high]
    found = winners(cells)
    assert [(w.concurrency, w.first_token, w.decode) for w in found] == [
        (1, "gqa", "gqa"),
        (16, "mla", "mla"),
    ]
