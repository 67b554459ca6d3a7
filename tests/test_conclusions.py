from workbench.core.foundation.metrics import Aggregate
from workbench.core.history.conclusions import conclude
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
