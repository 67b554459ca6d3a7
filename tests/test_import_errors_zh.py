"""A result file that cannot be imported is said in the window's language (session 36): the
readers mark their messages (core/result_files, context "ResultFile"), History → Import… shows
them translated, and again in English after a switch back (str() of the error, the CLI's
words, stays English)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_gui_zh_complete import switch_language
from test_result_import_gui import _import

from tests.support.gui_driver import click_actions, click_tab, run_for
from workbench.ui.provider_panel import ProviderPanel
from workbench.ui.translators import install_translators

DATA = Path(__file__).parent / "data" / "results"


@pytest.fixture
def window(qapp, window_with_tabs):
    yield window_with_tabs  # the shared window with its Providers tab (tests/support/gui.py)
    install_translators(qapp, "en")  # English for the next test, whatever happened


def to_english(window, qtbot) -> None:
    """View → Language → English, clicked; waits for the texts to change."""
    menus = window.menus
    click_actions(
        qtbot,
        window,
        menus.view_menu.menuAction(),
        menus.language_menu.menuAction(),
        menus.language_actions["en"],
    )
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == "Compare", timeout=3000)


def _broken(tmp_path: Path) -> Path:
    detailed = json.loads((DATA / "vllm_save_detailed.json").read_text())
    path = tmp_path / "vllm-broken.json"
    path.write_text(json.dumps(detailed | {"max_concurrency": "four"}))
    return path


def test_an_import_error_is_said_in_chinese_then_in_english_again(
    window, qtbot, loop, tmp_path
) -> None:
    switch_language(qtbot, window, "zh_CN")
    status = window.history_view.import_status
    _import(window, qtbot, _broken(tmp_path), loop)
    assert "vllm-broken.json：字段 'max_concurrency' 为 'four'，应为 Token 数" in status.text()
    assert "请修正或删除该字段，或用生成它的工具重新导出文件" in status.text()
    words = re.findall(r"[A-Za-z]{3,}", status.text().replace("vllm-broken.json", ""))
    assert set(words) <= {"max", "concurrency", "four", "Token"}, words  # the file's, a unit

    unknown = tmp_path / "notes.json"
    unknown.write_text('{"notes": 1}')
    _import(window, qtbot, unknown, loop)
    assert "不属于本应用能读取的任何结果格式：请选择vLLM `bench serve" in status.text()

    to_english(window, qtbot)
    assert "is in none of the result formats this app reads: pass a vLLM" in status.text()


def test_a_config_import_error_is_said_in_chinese_then_in_english_again(
    window, qtbot, loop, tmp_path
) -> None:
    """Providers → Import → From a file…, a path that is gone by the time it is read."""
    switch_language(qtbot, window, "zh_CN")
    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    assert not run_for(loop, panel.import_from(str(tmp_path / "gone.json")))
    assert panel.status.text() == f"{tmp_path / 'gone.json'}：没有这个文件或文件夹"
    to_english(window, qtbot)
    assert panel.status.text() == f"{tmp_path / 'gone.json'}: no such file or folder"
