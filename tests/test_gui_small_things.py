"""What a presenter notices (issue 25, item 16): the task picker is not named like a tab, the
needle's depth says what it is."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtCore import Qt

from tests.support.gui_driver import click_run, click_tab, make_window, run_for, until
from workbench.ui.kernels_view import KernelsView
from workbench.ui.provider_controller import ProviderController
from workbench.ui.provider_panel import ProviderPanel
from workbench.ui.window_late import add_kernels_tab, add_provider_tab


def test_the_task_picker_is_named_apart_from_the_tabs_and_the_depth_is_labelled(
    window, qtbot
) -> None:
    prompt = window.prompt
    tabs = {window.tabs.tabText(i).replace("&", "") for i in range(window.tabs.count())}
    shown = [prompt.task.itemText(i) for i in range(prompt.task.count())]
    assert not tabs & set(shown), shown  # "Summary" was the Summary tab's name too
    assert all(t.startswith("Task:") for t in shown)
    assert not prompt.depth.isEnabled()  # no needle, no depth
    prompt.task.setFocus()
    qtbot.keyClick(prompt.task, Qt.Key.Key_Down)
    assert prompt.task.currentData() == "needle" and prompt.depth.isEnabled()
    assert prompt.depth.text() == "needle depth 0.50"


def test_a_conclusion_from_one_request_each_says_it_is_too_few(window, qtbot, loop) -> None:
    assert click_run(window, qtbot, loop).status == "finished"  # one request per model
    click_tab(window, qtbot, window.summary_view)
    texts = window.summary_view.document.texts()
    verdict = next(t for t in texts if "faster than" in t or "slower than" in t)
    assert "Only 1 request(s) each: too few to decide on" in verdict, verdict


def test_the_kernels_tab_choices_come_back_at_the_next_launch(qapp, loop, tmp_path, qtbot) -> None:
    first = make_window(loop, tmp_path)
    view = KernelsView()
    add_kernels_tab(first, view)
    click_tab(first, qtbot, view)
    choices = view.choices
    for box in (choices.variant_boxes["mla"], choices.kv_boxes[65536]):
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    choices.batch.setFocus()
    choices.batch.selectAll()
    qtbot.keyClicks(choices.batch, "64")
    choices.dtype.setFocus()
    qtbot.keyClick(choices.dtype, Qt.Key.Key_End)
    chosen = (view.variants(), view.kv_lens(), choices.batch.value(), choices.dtype.currentData())
    assert chosen[2] == 64
    view.worker_row.token_edit.setText("s3cret-token")
    first.close()  # the window saves its layout as it closes
    loop.run_until_complete(view.aclose())
    loop.run_until_complete(first.session.close())
    assert "s3cret-token" not in (tmp_path / "gui.ini").read_text()

    second = make_window(loop, tmp_path)
    again = KernelsView()
    add_kernels_tab(second, again)
    try:
        assert (again.variants(), again.kv_lens(), again.choices.batch.value(),
                again.choices.dtype.currentData()) == chosen  # fmt: skip
        fresh = KernelsView()  # what a launch without saved choices shows
        assert (fresh.variants(), fresh.kv_lens(), fresh.choices.batch.value()) != chosen[:3]
        fresh.deleteLater()
    finally:
        second.close()
        loop.run_until_complete(again.aclose())
        loop.run_until_complete(second.session.close())


def test_a_provider_added_with_the_cli_reaches_the_running_window(window, qtbot, tmp_path) -> None:
    config = tmp_path / "config"  # not made yet: the CLI's save makes it
    panel = ProviderPanel(ProviderController(window.session, path=config / "providers.toml"))
    add_provider_tab(window, panel)
    env = {**os.environ, "WORKBENCH_CONFIG_DIR": str(config)}
    add = ["providers", "add", "gw", "--base-url", "http://127.0.0.1:9/v1", "--model", "gw-7b"]
    done = subprocess.run(
        [sys.executable, "-m", "workbench", *add], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # no restart: the window reads the file the CLI wrote
    qtbot.waitUntil(lambda: "gw|gw-7b" in {k for k, _ in window.pane_set.choices}, timeout=10000)
    names = [panel.list.item(i).text().split("\n")[0] for i in range(panel.list.count())]
    assert "gw" in names


def test_a_model_id_the_server_does_not_list_can_be_typed_in_and_saved(
    window, qtbot, loop, tmp_path
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    panel = ProviderPanel(ProviderController(window.session, path=config / "providers.toml"))
    add_provider_tab(window, panel)
    click_tab(window, qtbot, panel)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(panel.name_edit, "gw")
    qtbot.keyClicks(panel.base_url_edit, "http://127.0.0.1:9/v1")
    panel.key_source.setFocus()
    qtbot.keyClick(panel.key_source, Qt.Key.Key_End)  # "No key"
    models = panel.model_list
    qtbot.keyClicks(models.add_edit, "my-private-alias")
    qtbot.mouseClick(models.add_button, Qt.MouseButton.LeftButton)
    assert models.checked_ids() == ["my-private-alias"]
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    run_for(loop, until(lambda: panel.controller.get("gw") is not None, timeout=10))
    assert [m.id for m in panel.controller.get("gw").models] == ["my-private-alias"]
    assert "gw|my-private-alias" in {k for k, _ in window.pane_set.choices}
