"""The attention-story preset in the real window: eight twin panes at 1M, each saying whether
its KV cache fits; Run all sends the seven that fit and refuses MHA before sending; the Summary
names the winners and why MHA could not run (issue 33)."""

from __future__ import annotations

import pytest

from tests.support.gui_driver import click_run, click_tab
from workbench.ui.main_window import PRESETS


@pytest.fixture
def window_time_scale():
    return 0.005  # GQA at 1M: 8 s, MoBA 0.8 s


def test_the_story_at_1m_runs_seven_twins_and_says_why_mha_cannot(window, qtbot, loop) -> None:
    window.apply_preset("story")
    window.prompt.max_tokens.setValue(8)
    assert window.prompt.tokens() == 1024 * 1024
    assert [k.split("|")[1] for k in window.pane_set.keys] == list(PRESETS["story"])
    checked = [n for n, box in window.sweep_view.length_boxes.items() if box.isChecked()]
    assert checked[0] == 1024 and checked[-1] == 1024 * 1024
    fits = {w.picker.currentData().split("|")[1]: w.fit.text() for w in window.pane_set.widgets}
    assert fits["sim-70b-mha"].startswith("Will not fit in memory: MHA at 1,048,576 tokens")
    assert "2.75 TB of KV cache" in fits["sim-70b-mha"] and "GQA" in fits["sim-70b-mha"]
    for twin, text in fits.items():
        if twin != "sim-70b-mha":
            assert "its KV cache fits" in text, (twin, text)
    final = click_run(window, qtbot, loop)
    assert final is not None and final.status == "finished"
    rows = {r.model: r for r in final.results if r.phase == "measured"}
    assert rows["sim-70b-mha"].t_send is None
    assert str(rows["sim-70b-mha"].error_class) == "out_of_memory"
    assert all(r.ok for m, r in rows.items() if m != "sim-70b-mha")
    click_tab(window, qtbot, window.summary_view)
    texts = window.summary_view.document.texts()
    story = next(t for t in texts if t.startswith("At 1M the first token came soonest from"))
    assert "sim-70b-nsa" in story or "sim-70b-moba" in story
    assert "sim-70b-mha could not run" in story
    why = next(t for t in texts if t.startswith("sim-70b-mha could not run at 1M:"))
    assert "2.75 TB of KV cache" in why and "22 H200s" in why
