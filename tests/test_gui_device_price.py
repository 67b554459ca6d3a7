"""The Capacity tab's Device price (issue 29, "at what cost?"): a user whose contract price per
device-hour differs from the list price types it in the search form, and the search prices its
requests' device time at it, as `bench --capacity --device-cost` does (the same reading of the
price in core/planning/device_cost.py, the same run.json); a bad price is refused in the CLI's
words, in English and in Chinese, and nothing starts. Real window, real serve-local, real clicks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import jsonschema
import pytest
from PySide6.QtCore import Qt
from test_json_docs import _schemas

from kernels_bridge.analytic import get_profile
from tests.support.gui_driver import (
    click_actions,
    click_tab,
    panes_on_own_clock,
    run_for,
    set_panes,
    type_over,
)

WORKBENCH = [sys.executable, "-m", "workbench"]
MODEL = "sim-70b-gqa"  # on 8 x H200 in the catalog
H200 = get_profile("H200")


@pytest.fixture
def window_time_scale():
    return 0.02


def _click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _history_json(tmp_path: Any, run_id: str) -> dict[str, Any]:
    """`workbench history show RUN --json`: the run document of the window's run."""
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}  # the window's history file
    proc = subprocess.run(
        [*WORKBENCH, "history", "show", run_id, "--json"], env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    document: dict[str, Any] = json.loads(proc.stdout)
    return document


@pytest.mark.slow
def test_an_own_device_price_prices_the_search_as_bench_device_cost_does(
    window, qtbot, loop, tmp_path
) -> None:
    """A short search (one model, a loose SLO in the server's clock, a narrow range, a wide
    tolerance: two or three steps of 50 requests at 16..32 req/s) at $2.50 a device-hour."""
    set_panes(window, [MODEL])
    panes_on_own_clock(window)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    # empty, the field stands for the deployment's list price, and says so
    assert view.price.text() == ""
    assert view.price.placeholderText() == f"${H200.usd_per_hour:.2f}/h list"
    assert "--device-cost" in view.price.toolTip()
    type_over(qtbot, view.slo, "ttft_p90:2s")
    type_over(qtbot, view.range, "16:32")
    type_over(qtbot, view.tolerance, "100")
    type_over(qtbot, view.price, "$2.5/h")  # as the CLI flag takes it
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None, view.status.text()
    final = run_for(loop, task, timeout=240)
    assert final is not None and final.status == "finished"
    said = view.sentence.text()
    assert said.endswith("per 1,000 requests in device time on 8 × H200 at $2.50 per device-hour.")
    document = _history_json(tmp_path, final.run_id)
    jsonschema.validate(document, _schemas()["history_show"])
    capacity = document["config"]["capacity"]  # the history keeps run.json's `capacity` there
    jsonschema.validate(capacity, _schemas()["run"]["properties"]["capacity"])
    assert said == f"{capacity['sentence']}."  # the app says run.json's sentence
    (answer,) = capacity["models"]
    assert answer["model"] == MODEL and answer["held"] is not None, answer
    assert answer["cost_basis"] == "device_hours"
    assert answer["device_cost"] == {
        "devices": 8, "gpu": "H200", "usd_per_hour": 2.5, "price_source": "the user's own price"
    }  # fmt: skip
    expected = 8 * 2.5 / (answer["held"] * 3600) * 1000  # devices x price / requests an hour
    assert answer["cost_per_1000_usd"] == pytest.approx(expected)
    assert f"${answer['cost_per_1000_usd']:,.2f} per 1,000 requests" in said


def _refused(window: Any, qtbot: Any, view: Any, value: str) -> str:
    type_over(qtbot, view.price, value)
    _click(qtbot, view.run_button)
    assert window.session._task is None, value  # nothing started
    text: str = view.status.text()
    return text


def test_a_bad_device_price_is_refused_in_the_clis_words_and_nothing_starts(
    window, qtbot, tmp_path
) -> None:
    set_panes(window, [MODEL])
    panes_on_own_clock(window)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    not_a_price = _refused(window, qtbot, view, "abc")
    assert not_a_price == (
        "Cannot run: 'abc' is not a price per device-hour; write USD per device-hour, e.g. 2.5 "
        "or 2.5/h"
    )
    for value in ("0", "1e9/h", "nan"):
        assert _refused(window, qtbot, view, value) == (
            f"Cannot run: '{value}': a price per device-hour must be above 0 and at most 1000 "
            "USD, e.g. 2.5/h"
        )
    # the CLI refuses the same value in the same words (one reading of a price, in core)
    proc = subprocess.run(
        [*WORKBENCH, "bench", "--model", MODEL, "--capacity", "--slo", "ttft_p90:2s",
         "--device-cost", "abc", "--no-store", "--csv", str(tmp_path / "rows.csv")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert not_a_price.removeprefix("Cannot run: ") in proc.stderr, proc.stderr
    menus = window.menus  # View → Language → 中文: the same refusal in Chinese
    click_actions(
        qtbot, window, menus.view_menu.menuAction(), menus.language_menu.menuAction(),
        menus.language_actions["zh_CN"],
    )  # fmt: skip
    qtbot.waitUntil(lambda: view.run_button.text() != "Search", timeout=3000)
    assert view.price.placeholderText() == f"标价 ${H200.usd_per_hour:.2f}/h"
    # the refusal on screen (of 'nan', the last one) is said anew, without another click
    assert view.status.text() == (
        "无法运行：'nan'：每设备小时的价格必须大于 0 且不超过 1000 美元，例如 2.5/h"
    )
    assert _refused(window, qtbot, view, "abc") == (
        "无法运行：'abc' 不是每设备小时的价格；请写每设备小时的美元价格，例如 2.5 或 2.5/h"
    )
    assert _refused(window, qtbot, view, "0") == (
        "无法运行：'0'：每设备小时的价格必须大于 0 且不超过 1000 美元，例如 2.5/h"
    )


def test_the_empty_field_names_the_list_price_of_the_panes_models(window, qtbot) -> None:
    """One list price for every pane's deployment: the field shows it; two that differ (an
    H200 and an H100 deployment): it says "list price", each model keeping its own."""
    view = window.capacity_view
    set_panes(window, [MODEL, "sim-llama-2-7b"])  # 8 x H200 and 1 x H100
    click_tab(window, qtbot, view)
    assert view.price.placeholderText() == "list price"
    click_tab(window, qtbot, window.compare)
    set_panes(window, ["sim-70b-mla", MODEL])  # both on H200
    click_tab(window, qtbot, view)
    assert view.price.placeholderText() == f"${H200.usd_per_hour:.2f}/h list"
