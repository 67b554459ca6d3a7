"""A capacity search on the Summary page and the Results tab: each step is a cell of its own
(never pooled with the other rates) that names its rate, and the charts show each model at its
capacity (issue 29).

A real `workbench bench --capacity` subprocess against a server of known capacity
(tests/support/knee_server.py: 8 slots of 400 ms, 20 requests/s) keeps its rows in a real
history file; the page is built from that file as the window builds it. The page needs steps,
not the search's accuracy (tests/test_capacity.py): 20 requests a step, not 50.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from tests.support.knee_server import knee_server
from workbench.core.history.run_facts import run_facts
from workbench.core.history.run_history import RunStore
from workbench.core.history.summary import build_report
from workbench.ui.results_view import ResultsView
from workbench.ui.summary_page import SummaryDocument

pytestmark = pytest.mark.slow


@pytest.fixture
def knee_url() -> Iterator[str]:
    with knee_server(8, 400.0) as url:
        yield url


def test_each_capacity_step_is_its_own_cell_and_the_charts_show_the_capacity(
    qapp, qtbot, tmp_path, knee_url
) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(data),
           "WORKBENCH_CONFIG_DIR": str(tmp_path / "config")}  # fmt: skip
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "bench", "--base-url", knee_url, "--model", "knee",
         "--prompt-tokens", "1K", "--max-tokens", "4", "--capacity", "--slo", "ttft_p90:600ms",
         "--arrivals", "constant", "--capacity-range", "2:64", "--capacity-requests", "20",
         "--output", str(out), "-q"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (answer,) = json.loads((out / "run.json").read_text())["capacity"]["models"]
    steps = {s["load"]: s for s in answer["steps"]}
    assert len(steps) >= 3 and answer["held"] in steps
    with (out / "results.csv").open(newline="") as f:  # each row names its step's rate
        measured = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    rates = {float(r["offered_rate"]) for r in measured if r["offered_rate"]}
    assert rates == set(steps)
    lone = [r for r in measured if not r["offered_rate"]]  # the floor: one at a time, no rate
    assert len(lone) == answer["floor"]["requests"] and {r["concurrency"] for r in lone} == {"1"}

    store = RunStore(data / "history.sqlite3")
    try:
        (run,) = store.runs()
        rows = store.results(run.run_id)
        report = build_report(rows, run.run_id, run.kind, runs=run_facts(store, [run.run_id]))
    finally:
        store.close()
    # one row per step, in the order of the rates, each with that step's requests and the
    # requests that met the SLO (the step's own verdict, not one pooled with other rates)
    floor_rows = [r for r in report.rows if r.cell.offered_rate is None]
    assert len(floor_rows) == 1 and floor_rows[0].cell.n == answer["floor"]["ok"]
    stepped = [r for r in report.rows if r.cell.offered_rate is not None]
    assert [r.cell.offered_rate for r in stepped] == sorted(steps)
    for row in stepped:
        step, goodput = steps[row.cell.offered_rate], row.cell.goodput
        assert goodput is not None and (goodput.judged, goodput.met) == (
            step["requests"],
            step["met"],
        )
    # the charts show the model at its capacity (the highest rate that held), not a median
    # pooled with the steps that missed
    charted = report.row("knee", 1024)
    assert charted is not None and charted.cell.offered_rate == answer["held"]
    document = SummaryDocument(report)
    (bar,) = document._bars("ttft_ms")
    assert bar.value == charted.cell.median("ttft_ms")
    names = [name for name, _w in document.columns]  # the table says each row's rate, and
    assert names[3:5] == ["concurrency", "req/s"]  # the floor's one request at a time

    # the Results tab's rows per model and prompt length: one per step, each naming its rate
    view = ResultsView()
    qtbot.addWidget(view)
    view.set_results(rows)
    view.view_mode.setCurrentIndex(view.view_mode.findData("aggregate"))
    model = view.table.model()
    qtbot.waitUntil(lambda: model.rowCount() == len(steps) + 1, timeout=10000)  # + the floor
    columns = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    shown = {
        model.index(r, columns.index("offered_rate")).data(): model.index(
            r, columns.index("n")
        ).data()
        for r in range(model.rowCount())
    }
    assert set(shown) == {f"{rate:g}" for rate in steps} | {""}  # the floor: no rate
    for rate, step in steps.items():  # the n of a step: its requests that succeeded
        assert shown[f"{rate:g}"] == str(step["ok"])
