"""The real main window, offscreen, driven against the built-in provider (pytest-qt + qasync)."""

from __future__ import annotations

import asyncio
import csv
import gc
import time

import pytest
from PySide6.QtCore import QEvent, QSettings, QTimer
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QApplication

from tests.support.gui_driver import opened_window
from workbench.core.foundation.results import ErrorClass
from workbench.core.history.csv_export import COLUMNS
from workbench.core.history.run_history import RunStore
from workbench.core.planning.run_events import TextDelta
from workbench.core.run.replay import replay_events
from workbench.ui.compare_controller import LOCAL_PROVIDER, CompareController
from workbench.ui.main_window import MainWindow
from workbench.ui.pane_widget import DisplayBreaks
from workbench.ui.panes_model import PaneState
from workbench.ui.window_state import restore_state


@pytest.fixture
def window(window):
    window.prompt.max_tokens.setValue(48)
    return window


def _run(loop, coro, timeout=60):
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def test_two_panes_stream_text_plots_fill_and_csv_export(window, loop, tmp_path) -> None:
    task = window.run_all()
    final = _run(loop, task)
    assert final is not None and final.status == "finished"
    panes = window.session.panes
    assert [p.state for p in panes] == [PaneState.DONE, PaneState.DONE]
    for widget, pane in zip(window.pane_set.widgets, panes, strict=True):
        assert len(widget.text.toPlainText()) > 100  # the text streamed into the pane
        assert widget.figures.text("tokens") == "48"
        assert widget.figures.text("ttft").endswith("ms")
        assert pane.curve_t and pane.curve_tokens[-1] == pytest.approx(48)
    assert window.plots.points() >= 2 * 48  # every pane's curve got its points
    # the token axis spans max_tokens from the start; the bar axes fit their tallest bar
    assert window.plots.tokens_plot.viewRange()[1][1] == pytest.approx(48 * 1.05)
    for plot, values in (
        (window.plots.ttft_plot, [p.ttft_ms() for p in panes]),
        (window.plots.decode_plot, [p.decode_tps() for p in panes]),
    ):
        top = plot.viewRange()[1][1]
        # the next step of the ladder above 1.05 x the tallest bar (steps are at most 4/3 apart)
        assert max(values) <= top <= 1.05 * 4 / 3 * max(values) + 1e-9
    out = tmp_path / "gui.csv"
    # each model's calibration request is a row of the table too, labelled by its phase
    assert window.exports.export_csv(out) == 4
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert tuple(rows[0].keys()) == COLUMNS
    assert {r["model"] for r in rows} == {"sim-llama-3-70b", "sim-deepseek-v3"}
    assert sorted(r["phase"] for r in rows) == ["calibration"] * 2 + ["measured"] * 2
    phase = window.results_view.requests_model.columns.index("phase")
    shown = {window.results_view.requests_model.rows[i][phase] for i in range(4)}
    assert shown == {"calibration", "measured"}
    charts = window.exports.export_charts(tmp_path / "charts", ".svg")
    charts += window.exports.export_charts(tmp_path / "charts", ".png")
    assert len(charts) == 12 and all(p.stat().st_size > 1000 for p in charts)
    # the stakeholder summary names the faster model in words, and exports
    window.tabs.setCurrentWidget(window.summary_view)  # built when looked at
    text = window.summary_view.document.conclusions[0]
    # the first pane is the baseline; the sentence is about the other model
    assert text.startswith("At 4K the MLA model <b>sim-deepseek-v3</b> decodes")
    assert "than the GQA model <b>sim-llama-3-70b</b>" in text
    png = window.summary_view.export(tmp_path / "summary.png")
    pdf = window.summary_view.export(tmp_path / "summary.pdf")
    assert png.stat().st_size > 10_000 and pdf.read_bytes().startswith(b"%PDF")


def test_long_paragraphs_get_display_breaks_while_streaming_and_exact_text_at_the_end(
    qapp, loop, tmp_path
) -> None:
    # at 0.2 the streams last seconds: frames land while they grow on a busy machine too (at the
    # window fixture's 0.05 a loaded xdist worker painted no frame mid-stream, seed 20261202)
    with opened_window(loop, tmp_path, time_scale=0.2) as window:
        window.prompt.max_tokens.setValue(600)
        seen_breaks = []

        def look() -> None:  # at every frame, after the window painted it: what the user sees
            widget, pane = window.pane_set.widgets[0], window.session.panes[0]
            if pane.result is None and "\n" in widget.text.toPlainText():
                seen_breaks.append(widget.text.toPlainText().count("\n"))

        window.session.frame.connect(look)
        _run(loop, window.run_all())
        widgets, panes = window.pane_set.widgets, window.session.panes
        for widget, pane in zip(widgets, panes, strict=True):
            assert "\n" not in pane.text and len(pane.text) > 2000  # one long paragraph
            assert not widget.exact_text_shown()  # still the live view's breaks...
            assert widget.text.toPlainText().replace("\n", " ") == pane.text  # ...only those
            QApplication.sendEvent(widget.text, QFocusEvent(QEvent.Type.FocusIn))
            assert widget.exact_text_shown()  # the reader reaches for the text: exactly as sent
            assert widget.text.toPlainText() == pane.text
        assert seen_breaks, "the live view never broke the long paragraph"


def test_display_breaks_land_after_sentence_ends_past_the_limit() -> None:
    breaks = DisplayBreaks()
    shown = "".join(breaks.add(f"Sentence number {i} ends here. ") for i in range(200))
    lines = shown.split("\n")
    assert breaks.inserted == len(lines) - 1 >= 5
    assert all(line.endswith(".") for line in lines[:-1])
    assert max(len(line) for line in lines) < DisplayBreaks.SOFT_BREAK_CHARS + 40
    assert shown.replace("\n", " ") == "".join(
        f"Sentence number {i} ends here. " for i in range(200)
    )
    chinese = DisplayBreaks()
    text = "".join(chinese.add("注意力机制决定了解码速度。") for _ in range(100))
    assert chinese.inserted >= 2 and all(line.endswith("。") for line in text.split("\n")[:-1])
    real = DisplayBreaks()
    real.add("x" * 500)
    assert real.add("end.\n" + "y" * 100) == "end.\n" + "y" * 100  # a real break resets it
    assert real.run == 100


def test_a_pane_painted_late_breaks_the_long_paragraph_it_has_so_far(qapp) -> None:
    """A busy machine may paint a stream's pane first after thousands of characters came in
    one burst: they get display breaks too, not one paragraph to lay out at every append."""
    from workbench.core.models.catalog import load_catalog
    from workbench.ui.pane_widget import PaneWidget
    from workbench.ui.panes_model import PaneModel

    widget, model = PaneWidget(0, load_catalog()), PaneModel()
    model.reset("request-1", t_send_ns=1)
    sentences = [f"Sentence number {i} ends here. " for i in range(160)]
    for i, sentence in enumerate(sentences[:120]):  # ~3,600 characters before the first paint
        model.add_text(sentence, False, 2 + i)
    widget.paint(model)
    lines = widget.text.toPlainText().split("\n")
    assert len(lines) >= 5 and all(line.endswith(".") for line in lines[:-1])
    assert max(len(line) for line in lines) < DisplayBreaks.SOFT_BREAK_CHARS + 40
    for i, sentence in enumerate(sentences[120:]):
        model.add_text(sentence, False, 200 + i)
    widget.paint(model)
    shown = widget.text.toPlainText()
    assert shown.replace("\n", " ") == "".join(sentences)  # each break stands for a space
    assert not widget.exact_text_shown()


def _curves_drawn(view) -> int:
    return sum(
        1 for plot in view.plots.values() for item in plot.listDataItems() if item.xData is not None
    )


def _curves_with_values(view) -> int:
    """The (figure, model) pairs the sweep's rows give a value."""
    return sum(len(view.series(figure)) for figure in view.plots)


def test_sweep_view_fills_in_live_and_draws_medians_per_model(window, loop) -> None:
    view = window.sweep_view
    window.prompt.max_tokens.setValue(160)  # long enough for several redraws mid-sweep
    window.tabs.setCurrentWidget(view)
    for n, box in view.length_boxes.items():
        box.setChecked(n in (1024, 4096))
    view.repeats.setValue(2)
    drawn_while_running = []

    async def sweep() -> None:
        view.run_button.click()
        task = window.session._task
        while not task.done():
            if window.session.running and view.results:
                drawn_while_running.append(_curves_drawn(view))
            await asyncio.sleep(0.02)
        assert (await task).status == "finished"

    _run(loop, sweep(), timeout=120)
    assert any(drawn_while_running), "the sweep plots stayed empty while the sweep ran"
    series = view.series("ttft_ms")
    assert sorted(series) == ["sim-deepseek-v3", "sim-llama-3-70b"]
    assert all([p[0] for p in points] == [1024, 4096] for points in series.values())
    # every figure of every model that has a value is drawn at the end; prefill speed may have
    # none (a TTFT within the network baseline leaves it unknown: a busy machine's short TTFT)
    assert _curves_drawn(view) == _curves_with_values(view) >= 2 * 2
    # a hidden sweep tab does not redraw until it is shown again
    window.tabs.setCurrentIndex(0)
    before = _curves_drawn(view)
    view.clear()
    view.add(window.results[0])
    assert _curves_drawn(view) == 0 and before > 0  # clear() draws at once; add() waits
    window.tabs.setCurrentWidget(view)
    drawn = _curves_drawn(view)
    assert drawn == _curves_with_values(view) >= 2  # one model, in each figure it has a value


def test_faulting_pane_shows_its_error_while_the_other_finishes(window, loop) -> None:
    window.pane_set.set([f"{LOCAL_PROVIDER}|sim-70b-gqa+500", f"{LOCAL_PROVIDER}|sim-70b-mla"])
    final = _run(loop, window.run_all())
    bad, good = window.session.panes
    assert good.state is PaneState.DONE and good.result.ok
    assert bad.state is PaneState.ERROR
    assert bad.result.error_class is ErrorClass.SERVER
    error_label = window.pane_set.widgets[0].error
    assert error_label.isVisible() and "Fix:" in error_label.text()
    assert error_label.text().startswith("<b>The server failed (5xx)</b>")  # the headline
    assert not window.pane_set.widgets[1].error.isVisible()
    assert final.status == "finished"


def test_stop_ends_streaming_within_a_second(window, loop) -> None:
    window.prompt.max_tokens.setValue(20000)
    task = window.run_all()

    async def stop_when_streaming() -> float:
        while not any(p.state is PaneState.STREAMING for p in window.session.panes):
            await asyncio.sleep(0.01)
        start = time.perf_counter()
        window.stop_action.trigger()
        await task
        return time.perf_counter() - start

    elapsed = _run(loop, stop_when_streaming())
    assert elapsed < 1.0
    states = [p.state for p in window.session.panes]
    assert PaneState.STOPPED in states
    assert not {PaneState.WAITING, PaneState.STREAMING} & set(states)
    assert window.run_action.isEnabled()


def test_replay_reproduces_recorded_token_timing(window, loop) -> None:
    final = _run(loop, window.run_all())
    recorded = [r for r in final.results if not r.warmup]

    async def replay_offsets() -> dict[str, list[float]]:
        start = time.perf_counter_ns()
        seen: dict[str, list[float]] = {}
        async for event in replay_events(recorded):
            if isinstance(event, TextDelta):
                seen.setdefault(event.request_id, []).append((event.t_ns - start) / 1e6)
        return seen

    seen = _run(loop, replay_offsets())
    base = min(r.t_send for r in recorded)
    for r in recorded:
        original = [(t - base) / 1e6 for t in r.event_times]
        replayed = seen[r.request_id]
        assert len(replayed) == len(original)
        worst = max(abs(a - b) for a, b in zip(replayed, original, strict=True))
        assert worst < 20, worst
    # and in the panes: the same text comes back
    task = window.replay(recorded)
    _run(loop, task)
    texts = sorted(w.text.toPlainText() for w in window.pane_set.widgets[:2])
    assert texts == sorted(r.text for r in recorded)


def test_a_replay_lays_the_panes_out_as_the_run_did(window, loop) -> None:
    laid_out = [p.target.model for p in window.session.panes if p.target]
    final = _run(loop, window.run_all())
    recorded = window.session.records.load_run(final.run_id)  # in the order the requests finished
    # as when the second pane's model finishes first (which of the two does is up to the machine)
    rows = sorted(recorded, key=lambda r: r.model != laid_out[1])
    assert [r.model for r in rows if r.phase == "measured"] == laid_out[::-1]
    _run(loop, window.replay(rows, speed=20))
    assert [p.target.model for p in window.session.panes if p.target] == laid_out
    assert [w.picker.currentData() for w in window.pane_set.widgets[:2]] == window.pane_set.keys


def test_no_timer_or_task_left_after_close(qapp, loop, tmp_path) -> None:
    session = CompareController(store=RunStore(tmp_path / "h.sqlite3"), time_scale=0.05)
    win = MainWindow(session, QSettings(str(tmp_path / "g.ini"), QSettings.Format.IniFormat))
    loop.run_until_complete(session.start_local_provider())
    win.pane_set.set_choices(
        [(f"{LOCAL_PROVIDER}|{m.id}", m.id) for m in session.catalog.simulated()]
    )
    win.apply_preset("attention")
    win.prompt.set_tokens(1024)
    win.prompt.max_tokens.setValue(16)
    win.show()
    _run(loop, win.run_all())
    win.close()
    loop.run_until_complete(session.close())
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    assert pending == []
    gc.collect()
    active = [t for t in win.findChildren(QTimer) if t.isActive()]
    active += [t for t in session.findChildren(QTimer) if t.isActive()]
    assert active == []
    win.deleteLater()


def test_layout_and_panes_are_remembered(qapp, loop, tmp_path) -> None:
    settings_path = str(tmp_path / "g.ini")
    session = CompareController(time_scale=0.05)
    win = MainWindow(session, QSettings(settings_path, QSettings.Format.IniFormat))
    loop.run_until_complete(session.start_local_provider())
    choices = [(f"{LOCAL_PROVIDER}|{m.id}", m.id) for m in session.catalog.simulated()]
    win.pane_set.set_choices(choices)
    win.apply_preset("attention")
    win.prompt.set_tokens(65536)
    win.close()
    loop.run_until_complete(session.close())
    session2 = CompareController(time_scale=0.05)
    win2 = MainWindow(session2, QSettings(settings_path, QSettings.Format.IniFormat))
    win2.pane_set.set_choices(choices)
    assert restore_state(win2)
    assert [k.split("|")[1] for k in win2.pane_set.keys] == [
        "sim-70b-mha",
        "sim-70b-gqa",
        "sim-70b-mla",
        "sim-70b-gla",
    ]
    assert win2.prompt.tokens() == 65536
    win2.close()
    loop.run_until_complete(session2.close())


def test_figures_wrap_onto_rows_in_a_narrow_pane_and_keep_their_values(qapp) -> None:
    from workbench.ui.figure_strip import FigureStrip

    strip = FigureStrip(
        [
            ("ttft", "TTFT", "00,000 ms"),
            ("decode", "decode", "00,000.0 tok/s"),
            ("tokens", "tokens", "000,000"),
            ("elapsed", "elapsed", "0,000.0 s"),
            ("cost", "cost", "$0.00000"),
        ]
    )
    one_row = strip.heightForWidth(strip.sizeHint().width())
    strip.resize(strip.sizeHint().width() // 2, one_row)
    strip.show()
    qapp.processEvents()
    assert strip.minimumHeight() >= 2 * one_row  # wrapped: the layout must give it the rows
    strip.set("decode", "1,234.5 tok/s")
    assert strip.text("decode") == "1,234.5 tok/s" and strip.text("ttft") == "–"
    strip.close()
