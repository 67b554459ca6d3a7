"""The Capacity tab (issue 29, item 5): a presenter picks two twins, clicks Search, watches the
progress count the search's schedule, and reads the answer above goodput and latency charts;
the Summary then leads with the same sentence. The presets fill the SLO and the sample trace,
and the trace replays on its own clock. Real window, real built-in provider, real clicks."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from tests.support.gui_driver import (
    click_actions,
    click_tab,
    panes_on_own_clock,
    run_for,
    set_panes,
    type_over,
    until,
)
from tests.support.knee_server import knee_server
from workbench.core.datasets import load_dataset
from workbench.core.load.capacity import MIN_RATE, Rule, step_requests, worst_case
from workbench.core.load.slo import parse_slo
from workbench.core.run.capacity_run import CapacityFound, CapacityStep
from workbench.resources import resource

MODELS = ["sim-70b-gqa", "sim-70b-mla"]


@pytest.fixture
def window_time_scale():
    return 0.02


@pytest.fixture
def knee_url() -> Iterator[str]:
    with knee_server(8, 400.0) as url:  # 20 requests/s
        yield url


def _click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


@pytest.mark.slow
def test_a_search_from_the_cli_opens_from_the_history_with_its_charts(
    window, qtbot, tmp_path, knee_url
) -> None:
    """`bench --capacity` writes the history the app reads; Open results shows its search."""
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}  # the window's history file
    argv = [sys.executable, "-m", "workbench", "bench", "--base-url", knee_url, "--model",
            "knee", "--prompt-tokens", "1K", "--max-tokens", "4", "--capacity", "--slo",
            "ttft_p90:600ms", "--capacity-range", "8:32", "--capacity-requests", "20",
            "--capacity-tolerance", "25", "--arrivals", "constant",
            "--csv", str(tmp_path / "rows.csv")]  # fmt: skip
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = next(line for line in proc.stdout.splitlines() if line.startswith("knee "))
    history = window.history_view
    click_tab(window, qtbot, history)
    history.refresh()
    qtbot.waitUntil(lambda: history.table.rowCount() >= 1, timeout=5000)
    rect = history.table.visualItemRect(history.table.item(0, 0))
    qtbot.mouseClick(history.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    _click(qtbot, history.open_button)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    assert view.sentence.text() == said
    assert "knee" in {item.name() for item in view.goodput_plot.getPlotItem().listDataItems()}


@pytest.mark.slow
def test_a_search_on_two_twins_shows_each_capacity_and_the_summary_leads_with_it(
    window, qtbot, loop
) -> None:
    """The window's built-in server runs at 0.02: as the tab's refusal says, an SLO is judged
    on that clock by adding the server as an OpenAI-compatible endpoint (a provider of its
    own) and writing the limits in its clock (3 s and 60 ms x 0.02)."""
    set_panes(window, MODELS)
    panes_on_own_clock(window)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    assert view.slo.text() == "ttft_p90:3s,tpot_p90:60ms"  # the chat-at-4K preset's
    type_over(qtbot, view.slo, "ttft_p90:60ms,tpot_p90:1.2ms")
    type_over(qtbot, view.tolerance, "25")  # a bisection step fewer per model than at 10 %
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None, view.status.text()
    objectives = parse_slo(view.slo.text())
    rule = Rule(low=MIN_RATE, requests=step_requests(objectives), tolerance=0.25, follow=True)
    planned = worst_case(rule)[1] * len(MODELS)
    assert f"{worst_case(rule, objectives)[1]:,} requests and about" in view.plan.text()
    run_for(loop, until(lambda: f"of at most {planned} requests" in view.status.text()))
    # the time elapsed, no ETA: one counted on the worst case read hours at the start
    assert "elapsed" in view.status.text() and "ETA" not in view.status.text()
    assert "ETA" not in window.eta.text() and "elapsed" in window.eta.text()
    final = run_for(loop, task, timeout=240)
    assert final is not None and final.status == "finished"
    said = view.sentence.text()
    assert said.startswith(MODELS[0]) or said.startswith(MODELS[1])
    assert all(m in said for m in MODELS), said
    assert "TTFT p90 ≤ 60 ms" in said and "at 4K prompts" in said
    searched = [m for m in MODELS if view.steps[m]]
    for plot in (view.goodput_plot, view.latency_plot):  # a line per model searched
        named = {item.name() for item in plot.getPlotItem().listDataItems()}
        assert set(searched) <= named
    click_tab(window, qtbot, window.summary_view)
    qtbot.waitUntil(lambda: window.summary_view.document is not None, timeout=10_000)
    first = window.summary_view.document.texts()[0]
    assert first == said


def test_an_slo_on_the_sped_up_built_in_provider_is_refused_as_bench_refuses_it(
    window, qtbot
) -> None:
    """The window runs the built-in models at 0.02: limits in real milliseconds would be
    judged on rescaled latencies. The tab refuses before anything is sent, in the words of
    bench's refusal (core/load/slo.clock_refusal), with the limits in the server's clock."""
    set_panes(window, MODELS[:1])
    view = window.capacity_view
    click_tab(window, qtbot, view)
    _click(qtbot, view.run_button)
    assert window.session._task is None  # nothing sent
    said = view.status.text()
    assert said.startswith("Cannot run: An SLO judges real milliseconds, but --time-scale 0.02")
    assert "start the app without --time-scale" in said
    assert "serve-local --time-scale 0.02" in said and "ttft_p90:60ms,tpot_p90:1.2ms" in said


@pytest.mark.slow
def test_the_sample_trace_preset_replays_the_trace_through_the_core_reader(
    window, qtbot, loop
) -> None:
    set_panes(window, MODELS[:1])
    panes_on_own_clock(window)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    _click(qtbot, view.preset)  # open the list, pick the second preset with the keyboard
    qtbot.keyClick(view.preset.view(), Qt.Key.Key_Down)
    qtbot.keyClick(view.preset.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.preset.currentData() == "trace", timeout=3000)
    trace = load_dataset(resource("traces", "mooncake_sample.jsonl"))
    assert view.dataset_path is not None and view.dataset_path.name == "mooncake_sample.jsonl"
    assert f"{len(trace.requests)} requests, with timestamps" in view.status.text()
    assert view.run_button.text() == "Replay trace"
    # a replay has a speed, not a search's range and tolerance
    assert view.speed.isVisible() and not view.range.isVisible()
    assert not view.tolerance.isVisible()
    _click(qtbot, view.speed)  # click in, select what is there, type over it
    qtbot.keyClick(view.speed, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(view.speed, "10")
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None
    final = run_for(loop, task, timeout=240)
    assert final is not None and final.status == "finished"
    rows = [r for r in window.session.records.load_run(final.run_id) if r.phase == "measured"]
    assert len(rows) == len(trace.requests)
    # each request was due at its place in the trace, ten times faster
    due = sorted(r.scheduled_s for r in rows if r.scheduled_s is not None)
    assert due == pytest.approx(list(trace.offsets(10.0)), abs=1e-6)
    _click(qtbot, view.preset)  # back to a search: its fields again, no speed
    qtbot.keyClick(view.preset.view(), Qt.Key.Key_Up)
    qtbot.keyClick(view.preset.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.range.isVisible() and not view.speed.isVisible(), timeout=3000)


def test_a_refusal_on_screen_is_said_anew_in_the_language_switched_to(window, qtbot) -> None:
    """Search with no model in any pane: the refusal names the fix; View → Language → 中文
    says it in Chinese where it stands, and English again, without another click."""
    window.pane_set.set([])
    view = window.capacity_view
    click_tab(window, qtbot, view)
    _click(qtbot, view.run_button)
    assert window.session._task is None
    assert view.status.text() == "Cannot run: choose a model in a Compare pane first"
    menus = window.menus
    for code, said in (
        ("zh_CN", "无法运行：请先在“对比”窗格中选择模型"),
        ("en", "Cannot run: choose a model in a Compare pane first"),
    ):
        click_actions(
            qtbot, window, menus.view_menu.menuAction(), menus.language_menu.menuAction(),
            menus.language_actions[code],
        )  # fmt: skip
        qtbot.waitUntil(lambda said=said: view.status.text() == said, timeout=3000)


def test_the_range_and_tolerance_fields_shape_the_search_as_the_cli_flags_do(
    window, qtbot, loop
) -> None:
    set_panes(window, MODELS[:1])
    view = window.capacity_view
    click_tab(window, qtbot, view)
    panes_on_own_clock(window)
    assert view.range.text() == "" and view.range.placeholderText() == "automatic"
    for field, text in ((view.range, "16:2"), (view.tolerance, "25")):
        type_over(qtbot, field, text)
    _click(qtbot, view.run_button)
    assert window.session._task is None  # refused before anything is sent, naming the fix
    assert view.status.text() == "Cannot run: the range needs 0 < LOW < HIGH, got 16..2"
    type_over(qtbot, view.range, "2:16")
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None
    rule = Rule(low=2, high=16, requests=step_requests(parse_slo(view.slo.text())), tolerance=0.25)
    steps, requests, _s = worst_case(rule, parse_slo(view.slo.text()))
    plan = view.plan.text()  # the CLI's words for the same rule (core/load/capacity_report.py)
    assert plan.startswith(
        "Capacity search by rate, 2..16 req/s: 5 requests one at a time first (a model that "
        "misses the SLO alone is not searched further), then x2 steps from 5.66, "
    )
    assert "then bisection to within 25%" in plan and f"at most {steps} steps, " in plan
    assert f"{requests:,} requests" in plan
    run_for(loop, until(view.stop_button.isEnabled))  # the search has begun: Stop ends it
    _click(qtbot, view.stop_button)  # (clicked at once, it was disabled: the search ran out)
    final = run_for(loop, task, timeout=60)
    assert final is not None and final.status == "cancelled"
    assert view.steps[MODELS[0]] == []  # ended in its floor, before any step


def test_stop_between_two_steps_ends_the_search_there(window, qtbot, loop) -> None:
    """Stop clicked as a step's point is drawn, before the next step has begun: the search
    ends with that step. (The window cancelled only the runner of the step that had just
    ended, and the next step ran as if nothing had been asked: the search went on.)"""
    set_panes(window, MODELS[:1])
    view = window.capacity_view
    click_tab(window, qtbot, view)
    panes_on_own_clock(window)
    type_over(qtbot, view.range, "32:64")  # ~1 s a step; every step holds the preset's SLO
    stopped_at: list[float] = []

    def stop_once(event: Any) -> None:
        if isinstance(event, CapacityStep) and not stopped_at:
            stopped_at.append(event.step.load)
            _click(qtbot, view.stop_button)

    window.session.capacity_event.connect(stop_once)
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None, view.status.text()
    final = run_for(loop, task, timeout=120)
    assert final is not None and final.status == "cancelled"
    assert [step["load"] for step in view.steps[MODELS[0]]] == stopped_at == [45.3]


def test_a_panes_stop_ends_its_own_search_and_the_next_model_is_searched(
    window, qtbot, loop
) -> None:
    """A pane's Stop in the middle of a step: that model's search ends there, stopped, with the
    steps judged before (the cut step is not judged on its few rows), and the other model's
    search runs whole. (The step ended, and the next step of the same search began.)"""
    set_panes(window, MODELS)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    panes_on_own_clock(window)
    type_over(qtbot, view.range, "32:64")
    found: list[dict[str, Any]] = []
    window.session.capacity_event.connect(
        lambda e: found.append(e.section) if isinstance(e, CapacityFound) else None
    )
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None, view.status.text()
    # no share done in the status bar either: the worst case held it at 0 % for the whole search
    run_for(loop, until(lambda: not window.run_action.isEnabled()))  # the search is running
    assert window.progress_bar.isHidden()
    first = window.pane_set.widgets[0]
    judged: list[list[float]] = []  # model 0's steps drawn when its Stop took
    first.stop.connect(lambda _index: judged.append([s["load"] for s in view.steps[MODELS[0]]]))

    def stop_in_second_step() -> bool:
        """Click while the first step is drawn and the second's requests are in flight (its
        Stop on); again if the click fell as a request ended (the button turned off first)."""
        if not judged and view.steps[MODELS[0]] and first.stop_button.isEnabled():
            _click(qtbot, first.stop_button)
        return bool(judged)

    run_for(loop, until(stop_in_second_step))
    final = run_for(loop, task, timeout=120)
    assert final is not None and final.status == "finished"
    (section,) = found
    stopped, other = section["models"]  # in the panes' order
    assert (stopped["model"], stopped["status"]) == (MODELS[0], "stopped")
    assert [step["load"] for step in stopped["steps"]] == judged[0] == [45.3]
    assert other["model"] == MODELS[1] and other["status"] != "stopped"
    assert other["steps"] and view.steps[MODELS[1]]


def test_the_capacity_sentence_reads_in_chinese_and_back(window, qtbot) -> None:
    from PySide6.QtCore import QCoreApplication, QTranslator

    from workbench.core.load.capacity_report import section

    objectives = parse_slo("ttft_p90:3s,tpot_p90:60ms")
    device = {"devices": 8, "gpu": "H200", "usd_per_hour": 3.99, "price_source": "list"}
    answers = [
        {"model": "sim-70b-gqa", "status": "found", "capacity": 4.1, "plus_minus": 0.2,
         "held": 4.0, "missed": 4.3, "requests": 250, "cost_per_1000_usd": 1.2,
         "cost_basis": "device_hours", "device_cost": device, "steps": []},
        {"model": "sim-70b-mla", "status": "above", "capacity": 16.0, "plus_minus": None,
         "held": 16.0, "missed": None, "requests": 200, "cost_per_1000_usd": 0.41,
         "cost_basis": "device_hours", "device_cost": device, "steps": []},
    ]  # fmt: skip
    found = section(Rule(low=1, high=16), objectives, 32768, answers)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    view.show_section(found)
    english = (
        "sim-70b-mla serves at least 16 req/s (the top of the range searched) at TTFT p90 ≤ 3 s "
        "and TPOT p90 ≤ 60 ms; sim-70b-gqa 4.1 req/s (±0.2); at 32K prompts; $0.41 vs $1.20 "
        "per 1,000 requests in device time on 8 × H200 at $3.99 per device-hour."
    )
    assert view.sentence.text() == english == f"{found['sentence']}."  # run.json's, in English
    translator = QTranslator()
    assert translator.load(str(resource("translations", "workbench_zh_CN.qm")))
    QCoreApplication.installTranslator(translator)
    try:
        view.retranslate()
        assert view.sentence.text() == (
            "sim-70b-mla 在 TTFT p90 ≤ 3 s 且 TPOT p90 ≤ 60 ms 下可承载 至少 16 req/s"
            "（所搜索范围的上限）；sim-70b-gqa 4.1 req/s (±0.2)；提示长度 32K；每 1,000 个请求 "
            "$0.41 对 $1.20（按设备时长计：8 × H200，每设备小时 $3.99）。"
        )
    finally:
        QCoreApplication.removeTranslator(translator)
    view.retranslate()
    assert view.sentence.text() == english


def test_a_model_that_misses_one_at_a_time_is_said_in_words_without_a_knee(
    window, qtbot, loop
) -> None:
    """A TTFT limit under the lone request's: the tab says so after the floor's few requests,
    names the figure it measured, and charts no rate and no knee for it."""
    set_panes(window, MODELS[:1])
    panes_on_own_clock(window)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    type_over(qtbot, view.slo, "ttft_p90:1ms")
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None, view.status.text()
    final = run_for(loop, task, timeout=120)
    assert final is not None and final.status == "finished"
    said = view.sentence.text()
    assert said.startswith(
        f"{MODELS[0]} cannot hold TTFT p90 ≤ 1 ms at 4K prompts even one request at a time: "
        "alone its TTFT p90 is "
    ), said
    assert said.endswith(
        "Loosen the limit, or serve the model faster (more devices, a faster deployment) or "
        "with shorter prompts."
    )
    assert view.steps[MODELS[0]] == []
    for plot in (view.goodput_plot, view.latency_plot):  # nothing charted, no knee drawn
        assert MODELS[0] not in {item.name() for item in plot.getPlotItem().listDataItems()}
        lines = [i for i in plot.getPlotItem().items if isinstance(i, pg.InfiniteLine)]
        assert all(line.angle == 0 for line in lines)  # at most the SLO's level, no knee
    assert "Done: " in view.status.text()


def test_a_step_ended_early_is_marked_over_the_limit_not_charted_at_its_finished_p90(
    window, qtbot
) -> None:
    """A step the search ended early (its queued requests cut, the finished ones' p90 under
    the limit) has no percentile: the latency chart marks it at the limit with its own legend
    entry, beside the steps measured; the goodput chart has every step."""
    from tests.support.request_rows import cancelled_row, measured_row
    from workbench.core.foundation.metrics import derive
    from workbench.core.load.capacity import judge
    from workbench.core.load.capacity_report import section, step_json

    objectives = parse_slo("ttft_p90:500ms")

    def step(load: float, ttfts: list[float], cut: int = 0, ended: str | None = None) -> Any:
        rows = [measured_row(i, t) for i, t in enumerate(ttfts)]
        rows += [cancelled_row(100 + i) for i in range(cut)]
        return step_json(judge(load, [(r, derive(r)) for r in rows], objectives, 1.0, ended))

    steps = [step(2.0, [200.0] * 20), step(4.0, [300.0] * 18 + [450.0] * 2),
             step(8.0, [300.0] * 12 + [900.0], cut=7, ended="ttft_p90")]  # fmt: skip
    answer = {"model": MODELS[0], "status": "found", "capacity": 6.0, "plus_minus": 2.0,
              "held": 4.0, "missed": 8.0, "requests": 60, "cost_per_1000_usd": None,
              "steps": steps}  # fmt: skip
    view = window.capacity_view
    click_tab(window, qtbot, view)
    view.show_section(section(Rule(low=1, high=16), objectives, 4096, [answer]))
    items = view.latency_plot.getPlotItem().listDataItems()
    (line,) = [i for i in items if i.name() == MODELS[0]]
    assert list(line.getData()[0]) == [2.0, 4.0]  # measured percentiles only
    (marks,) = [i for i in items if i.name() is None and i.opts["symbol"] == "t1"]
    assert list(marks.getData()[0]) == [8.0] and list(marks.getData()[1]) == [500.0]
    low, high = view.latency_plot.viewRange()[1]
    assert low == 0 and high >= 500  # from zero, the limit and its marks in sight
    assert view.latency_plot.viewRange()[0] == view.goodput_plot.viewRange()[0]  # one rate axis
    legend = view.latency_plot.getPlotItem().legend
    names = [label.text for _sample, label in legend.items]
    assert names.count("over the limit; its percentile not measured") == 1
    view.redraw()  # redrawn (a theme or language switch): still one entry
    names = [label.text for _sample, label in legend.items]
    assert names.count("over the limit; its percentile not measured") == 1
    (good,) = [i for i in view.goodput_plot.getPlotItem().listDataItems() if i.name()]
    assert list(good.getData()[0]) == [2.0, 4.0, 8.0]
