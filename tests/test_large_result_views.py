"""The Results table, the Sweep chart and the Summary with thousands of rows (issue 16): rows
show at once, large sets are formatted and summarised in slices between the window's events,
and what is shown is what the small, immediate path shows: the same order, the same medians,
the same pages. Real `RequestResult` rows, real widgets (offscreen), the real event loop."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from gui_driver import run_for, until
from PySide6.QtCore import QItemSelectionModel, QPoint, Qt, QTimer

from workbench.core.foundation.results import RequestResult
from workbench.core.history.csv_export import COLUMNS
from workbench.core.history.summary import build_report
from workbench.ui.results_view import AGGREGATE_COLUMNS, ResultsView
from workbench.ui.sliced import LARGE, Latest
from workbench.ui.summary_view import SummaryView
from workbench.ui.sweep_view import SweepView

MS = 1_000_000  # ns


def _row(i: int, model: str = "m", ttft_ms: int | None = None, length: int = 1024) -> Any:
    ttft = (ttft_ms if ttft_ms is not None else 100 + i % 37) * MS
    return RequestResult(
        model=model,
        provider="p",
        base_url="http://127.0.0.1:9/v1",
        run_id="run",
        request_id=f"r{i}",
        started_at=1_763_633_700.0 + i,
        prompt_tokens_target=length,
        prompt_tokens=length,
        completion_tokens=5,
        t_send=0,
        t_first_token=ttft,
        t_first_content=ttft,
        t_last_token=ttft + 80 * MS,
        t_done=ttft + 80 * MS,
        event_times=[ttft + k * 20 * MS for k in range(5)],
        token_events=5,
    )


def _shown(view: ResultsView, column: str) -> list[str]:
    model = view.table.model()
    index = COLUMNS.index(column)
    return [model.index(r, index).data() for r in range(model.rowCount())]


def _click_header(view: ResultsView, qtbot: Any, column: str) -> None:
    header = view.table.horizontalHeader()
    x = header.sectionViewportPosition(COLUMNS.index(column)) + 5
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def test_a_large_table_shows_its_rows_at_once_and_sorted_once_formatted(qtbot, loop) -> None:
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(1200, 600)
    view.show()
    rows = [_row(i) for i in reversed(range(LARGE + 500))]  # newest first, as no one sorts
    view.set_results(rows)
    assert view.table.model().rowCount() == len(rows)  # there at once, formatted as shown
    assert view.requests_model.formatting.pending
    run_for(loop, until(lambda: not view.requests_model.formatting.pending), 30)
    started = _shown(view, "started_at")
    assert started == sorted(started) and len(set(started)) == len(rows)  # oldest first

    _click_header(view, qtbot, "ttft_ms")
    ttfts = [float(t) for t in _shown(view, "ttft_ms")]
    ascending = view.table.horizontalHeader().sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert ttfts == sorted(ttfts, reverse=not ascending)
    # equal TTFTs keep the history's order, as Qt's sort proxy kept it (a stable sort)
    ids = [r.request_id for r in view.shown_results()]
    same = [i for i, t in zip(ids, ttfts, strict=True) if t == ttfts[0]]
    history_order = [r.request_id for r in rows]
    assert same == sorted(same, key=history_order.index)


def test_the_selected_request_stays_selected_when_the_table_is_sorted(qtbot, loop) -> None:
    view = ResultsView()
    qtbot.addWidget(view)
    view.show()
    rows = [_row(i, ttft_ms=500 - i) for i in range(20)]
    view.set_results(rows)
    model = view.table.model()
    view.table.selectionModel().select(
        model.index(3, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    chosen = view.shown_results()[3].request_id
    _click_header(view, qtbot, "ttft_ms")
    [selected] = {i.row() for i in view.table.selectionModel().selectedIndexes()}
    assert view.shown_results()[selected].request_id == chosen
    assert selected != 3  # the rows did move: TTFT runs against the start order


def test_a_live_row_goes_to_its_sorted_place(qtbot, loop) -> None:
    view = ResultsView()
    qtbot.addWidget(view)
    view.show()
    view.set_results([_row(i, ttft_ms=100 + 10 * i) for i in range(10)])  # 100 … 190 ms
    _click_header(view, qtbot, "ttft_ms")
    header = view.table.horizontalHeader()
    if header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder:
        _click_header(view, qtbot, "ttft_ms")  # largest first
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    view.add(_row(99, ttft_ms=145))
    ttfts = [float(t) for t in _shown(view, "ttft_ms")]
    assert ttfts == sorted(ttfts, reverse=True) and 145.0 in ttfts and len(ttfts) == 11
    assert view.count.text() == "11 requests"


def test_the_per_model_view_of_a_large_set_matches_its_medians(qtbot, loop) -> None:
    view = ResultsView()
    qtbot.addWidget(view)
    view.show()
    rows = [_row(i, length=1024 * (1 + i % 2)) for i in range(LARGE + 100)]
    view.set_results(rows)
    view.view_mode.setCurrentIndex(view.view_mode.findData("aggregate"))
    run_for(loop, until(lambda: view.table.model().rowCount() == 2), 30)
    model, p50 = view.table.model(), AGGREGATE_TTFT_P50
    for r in range(2):
        length = int(model.index(r, 2).data())
        lengths = [1024 * (1 + i % 2) for i in range(len(rows))]
        expected = statistics.median(100 + i % 37 for i, n in enumerate(lengths) if n == length)
        assert float(model.index(r, p50).data()) == pytest.approx(expected, abs=0.5)


AGGREGATE_TTFT_P50 = AGGREGATE_COLUMNS.index("ttft_ms p50")


def test_a_large_sweep_draws_the_same_medians_as_a_small_one(qtbot, loop) -> None:
    rows = [_row(i, model="big", length=1024 * (1 + i % 3)) for i in range(LARGE + 200)]
    view = SweepView()
    qtbot.addWidget(view)
    view.show()
    view.extend(rows)
    assert view.summarizing.pending and "big" not in view.legend.text()  # not summarised yet
    run_for(loop, until(lambda: "big" in view.legend.text()), 30)
    [item] = [i for i in view.plots["ttft_ms"].plotItem.listDataItems() if i.name() == "big"]
    xs, ys = item.getData()
    by_length: dict[int, list[float]] = {}
    for i in range(len(rows)):
        by_length.setdefault(1024 * (1 + i % 3), []).append(100 + i % 37)
    assert [round(10**x) for x in xs] == sorted(by_length)
    assert list(ys) == pytest.approx([statistics.median(by_length[n]) for n in sorted(by_length)])
    # one row more: the summaries are made again (they are kept per list of rows and length)
    view.add(_row(10**6, model="big", ttft_ms=10_000, length=8192))
    assert [x for x, *_ in view.series("ttft_ms")["big"]] == [1024, 2048, 3072, 8192]


def test_a_large_summary_is_the_page_the_immediate_path_builds(qtbot, loop) -> None:
    rows = [_row(i, model=f"m{i % 2}", length=1024 * (1 + i % 3)) for i in range(LARGE + 10)]
    view = SummaryView()
    qtbot.addWidget(view)
    view.summarize(rows, "sweep", ["m1", "m0"], "m1")
    assert view.document is None  # built in slices, after this call
    run_for(loop, until(lambda: view.document is not None), 30)
    assert view.document.report == build_report(rows, kind="sweep", order=["m1", "m0"])
    assert view.document.report.models == ("m1", "m0")


def test_only_the_newest_of_two_large_jobs_is_delivered(loop) -> None:
    latest: Latest[str] = Latest()
    delivered: list[str] = []

    def work(name: str) -> Any:
        for _ in range(50):
            yield
        return name

    latest.run(lambda: work("first"), LARGE, delivered.append)
    first = latest.task
    latest.run(lambda: work("second"), LARGE, delivered.append)
    run_for(loop, until(lambda: first.done() and not latest.pending), 10)
    assert delivered == ["second"]
    latest.run(lambda: work("small"), LARGE - 1, delivered.append)  # small: done at once
    assert delivered == ["second", "small"]


def test_a_large_sweep_is_drawn_while_a_live_run_keeps_adding_rows(qtbot, loop) -> None:
    """Rows arriving faster than 20,000 are summarised do not hold the chart back: the
    summaries made are drawn, and the rows that came meanwhile are summarised next."""
    view = SweepView()
    qtbot.addWidget(view)
    view.show()
    view.extend([_row(i, model="big") for i in range(20_000)])
    added: list[int] = []
    drawn_while_adding: list[bool] = []

    def add_one() -> None:
        if len(added) < 30:  # one row every 100 ms for 3 s
            added.append(len(added))
            view.add(_row(10**6 + len(added), model="big", length=4096))
            drawn_while_adding.append("big" in view.legend.text())

    timer = QTimer()
    timer.setInterval(100)
    timer.timeout.connect(add_one)
    timer.start()
    run_for(loop, until(lambda: len(added) == 30), 30)
    timer.stop()
    assert any(drawn_while_adding)  # drawn before the last row came

    def drawn() -> dict[int, float]:
        items = [i for i in view.plots["ttft_ms"].plotItem.listDataItems() if i.name() == "big"]
        return {round(10**x): y for i in items for x, y in zip(*i.getData(), strict=True)}

    # the last rows too: the chart ends at the median of all 30, not of those summarised first
    # (on a busy machine the 20,000 rows take long enough for several rows to come meanwhile)
    late = statistics.median(100 + (10**6 + k) % 37 for k in range(1, 31))
    run_for(loop, until(lambda: drawn().get(4096) == pytest.approx(late)), 30)
    assert sorted(drawn()) == [1024, 4096]
    assert view.series("ttft_ms")["big"][1][:2] == (4096, pytest.approx(late))
