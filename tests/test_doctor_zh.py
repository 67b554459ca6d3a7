"""The doctor's evidence and the import preview's base-URL notes read in 中文 (session 37): the
checks build their evidence as marked phrases (core/doctor/messages.py, context "Doctor"), the
base URL's normalisation says its changes as marked phrases (core/protocols/base_url.py, context
"BaseUrl"), and the window shows both in its language; the CLI's English stays as it was."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from test_gui_zh_complete import switch_language
from test_import_errors_zh import to_english

from tests.support.gui_driver import click_tab, run_for, until
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer
from workbench.ui.provider_panel import ProviderPanel

LEFT = Qt.MouseButton.LeftButton
WORD = re.compile(r"[A-Za-z]{3,}")


pytestmark = pytest.mark.usefixtures("no_proxy_env")


@pytest.fixture
def window(window_back_in_english):
    return window_back_in_english  # the window with its tabs, English after (tests/support/gui.py)


@pytest.fixture
def server(loop):
    """The built-in provider's server with its API under /v1 only (a root URL answers 404)."""
    srv = LocalServer(settings=SimSettings(time_scale=0.01), allow_no_v1=False)
    loop.run_until_complete(srv.start())
    yield srv
    loop.run_until_complete(srv.stop())


def _words(text: str, *data: str) -> set[str]:
    """The Latin words of `text` once the data it quotes (URLs, paths) is taken out."""
    for value in sorted(data, key=len, reverse=True):
        text = text.replace(value, " ")
    return set(WORD.findall(re.sub(r"/[\w/]+", " ", text)))


def test_a_failing_doctor_check_shows_chinese_evidence_then_english_again(
    window, qtbot, loop, server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base URL without its /v1 and with /chat/completions pasted on, typed into the form
    with the window in 中文 and tested against a real local server: the note beside the field,
    and the failing models_path check's evidence, cause and fix read in Chinese (the URLs,
    methods and status codes stay as they are); back in English the row reads as the CLI
    says it."""
    switch_language(qtbot, window, "zh_CN")
    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    root = f"http://127.0.0.1:{server.port}"
    panel.new_provider()
    panel.name_edit.setText("pasted")
    panel.key_source.setCurrentIndex(panel.key_source.findData("env"))
    monkeypatch.setenv("DOCTOR_ZH_KEY", "sk-doctor-zh-key-0123456789")  # any key will do
    panel.key_env.setText("DOCTOR_ZH_KEY")
    qtbot.keyClicks(panel.base_url_edit, root + "/chat/completions")
    qtbot.keyClick(panel.base_url_edit, Qt.Key.Key_Return)
    assert panel.url_notes.text() == (
        f"已保存为 {root} — 去掉了 '/chat/completions'：这是接口路径，SDK 会自己把它加到 "
        "Base URL 后面"
    )
    qtbot.mouseClick(panel.test_button, LEFT)
    run_for(loop, until(lambda: panel.last_report is not None and panel.test_button.isEnabled()))

    mark, _, details = panel.check_row("models_path")
    assert mark == "✗"
    evidence = details.splitlines()[0]
    assert evidence.startswith(f"{root}：GET /models → HTTP 404 JSON（"), evidence
    assert f"；加上 /v1 后（{root}/v1）：GET /models → HTTP 200 JSON（" in evidence
    assert re.search(r"POST /chat/completions → HTTP 400 JSON（\d+ 毫秒）$", evidence), evidence
    assert "Base URL 缺少 /v1" in details  # the cause, translated before this session
    assert _words(details, root) <= {"GET", "POST", "HTTP", "JSON", "API", "Base", "URL"}, details
    _, _, tcp = panel.check_row("tcp")
    assert tcp.startswith(f"已连接 127.0.0.1:{server.port}，用时 ") and tcp.endswith(" 毫秒")
    assert panel.check_row("tls")[2] == "已跳过：明文 HTTP：没有 TLS"
    assert panel.check_row("auth")[2] == (  # where the key came from, in Chinese too
        "密钥以 Bearer 令牌发送（密钥来自环境变量 $DOCTOR_ZH_KEY）；"
        "GET /models → HTTP 200：未被拒绝"
    )

    to_english(window, qtbot)  # the same report, its rows said again in English
    checks = {c.name: c for c in panel.last_report.checks}
    _, _, details = panel.check_row("models_path")
    assert details.splitlines()[0] == checks["models_path"].evidence  # the CLI's words
    assert checks["models_path"].evidence.startswith(f"{root}: GET /models → HTTP 404 JSON (")
    assert f"; with /v1 added ({root}/v1): GET /models → HTTP 200" in details
    assert panel.check_row("tls")[2] == "skipped: plain http: no TLS"
    assert panel.url_notes.text().startswith(f"Saved as {root} — removed '/chat/completions': ")


def test_the_import_preview_says_the_base_url_notes_in_chinese(
    window, qtbot, loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Providers → Import from a file whose base URL has an endpoint and a query string pasted
    on: the preview's notes say what was changed in Chinese, and the key's line where it comes
    from and what Save does with it."""
    monkeypatch.delenv("GW_API_KEY", raising=False)
    config = tmp_path / "benchmark_config.json"
    config.write_text(
        json.dumps(
            {
                "base_url": "https://gw.example.com/api/v1/chat/completions?api-version=1",
                "api_key_env": "GW_API_KEY",
                "models": {"m": {"id": "llama-3-70b"}},
            }
        ),
        encoding="utf-8",
    )
    switch_language(qtbot, window, "zh_CN")
    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    task = asyncio.ensure_future(panel.import_from(str(config)))
    run_for(
        loop, until(lambda: panel.import_dialog is not None and panel.import_dialog.isVisible())
    )
    summary = panel.import_dialog.summary.toPlainText()
    panel.import_dialog.reject()
    run_for(loop, task)
    notes = [line.strip() for line in summary.splitlines() if line.strip().startswith("注")]
    assert notes == [
        "注：去掉了 '/chat/completions'：这是接口路径，SDK 会自己把它加到 Base URL 后面",
        "注：去掉了查询字符串（Base URL 不带查询参数；密钥从不放进 URL）",
    ], summary
    assert "https://gw.example.com/api/v1" in summary
    # where the key comes from and what Save does with it
    assert "来自 环境变量 $GW_API_KEY (benchmark_config.json: api_key_env)" in summary, summary
    assert "→ 保持为环境变量引用 $GW_API_KEY（在当前 shell 中未设置）" in summary, summary


def _config(folder: Path, base_url: str) -> Path:
    folder.mkdir()
    path = folder / "benchmark_config.json"
    body = {"base_url": base_url, "api_key_env": "GW_API_KEY", "models": {"m": {"id": "m1"}}}
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def _preview(panel: ProviderPanel, loop, path: Path, save: bool) -> str:
    """Import `path` as a user does; the preview's text; then Save or Cancel."""
    task = asyncio.ensure_future(panel.import_from(str(path)))
    run_for(
        loop, until(lambda: panel.import_dialog is not None and panel.import_dialog.isVisible())
    )
    dialog = panel.import_dialog
    summary = dialog.summary.toPlainText()
    dialog.save_button.click() if save else dialog.reject()
    run_for(loop, task)
    return summary


def test_the_import_preview_says_what_save_does_in_chinese(
    window, qtbot, loop, tmp_path: Path
) -> None:
    """A provider imported and saved, then another file whose provider takes the same name
    with another URL: the preview says, in Chinese, that it is saved under a new name."""
    switch_language(qtbot, window, "zh_CN")
    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    first = _preview(panel, loop, _config(tmp_path / "a", "https://gw.example.com/v1"), True)
    assert "example  [新增]" in first, first
    second = _preview(panel, loop, _config(tmp_path / "b", "https://gw.example.net/v1"), False)
    assert (
        "example-2  [新增] — 保存为 'example-2'：'example' 已是另一个 URL 的服务商的名称"
    ) in second, second


def test_a_base_url_that_cannot_be_one_is_refused_in_chinese(window, qtbot) -> None:
    """The note beside the base URL field says why a typed text is no base URL, in 中文."""
    switch_language(qtbot, window, "zh_CN")
    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    panel.new_provider()
    qtbot.keyClicks(panel.base_url_edit, "ftp://files.example.com")
    qtbot.keyClick(panel.base_url_edit, Qt.Key.Key_Return)
    assert panel.url_notes.text() == (
        "'ftp://files.example.com' 不是 http(s) URL；请写成 https://host/v1 这样的形式"
    )
    to_english(window, qtbot)
    assert panel.url_notes.text() == (
        "'ftp://files.example.com' is not an http(s) URL; write it like https://host/v1"
    )
