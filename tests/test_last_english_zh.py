"""The last English a user read with the window in 中文 (session 39): a key that cannot be had
(core/access/keys.py, context "Keys"), what happened to a failed stream check's request
(core/foundation/failure_words.py, "RequestFailure"), an import's warnings and a config file's
field errors (core/importers, "ConfigImport", with the validation kit's words, "Validation").
Each is driven through the real window in 中文 and compared with the translator's Chinese, read
from the translation files (never typed in here); the CLI's English stays as it was."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from test_gui_zh_complete import switch_language
from test_import_errors_zh import to_english

from tests.support.gui_driver import click_action, click_tab, run_for, until
from tests.support.hostile_server import HostileServer
from workbench.core.access import keys
from workbench.core.access.providers import KeyRef
from workbench.core.doctor import messages as doctor
from workbench.core.foundation import failure_words
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.importers import _files, _shapes, benchmark
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer
from workbench.ui.provider_panel import ProviderPanel

LEFT = Qt.MouseButton.LeftButton
MISSING_VAR = "ZH_LAST_ENGLISH_KEY"


pytestmark = pytest.mark.usefixtures("no_proxy_env")


@pytest.fixture
def window(window_back_in_english):
    return window_back_in_english  # the window with its tabs, English after (tests/support/gui.py)


def translated(context: str, template: str, **fields: str) -> str:
    """The translator's text for `template`, its fields filled in."""
    return QCoreApplication.translate(context, template).format(**fields)


def chinese(context: str, template: str, **fields: str) -> str:
    """The same, for a template whose translation has Chinese words in it."""
    said = QCoreApplication.translate(context, template)
    assert re.search(r"[\u4e00-\u9fff]", said), (context, template, said)
    return translated(context, template, **fields)


def _panel(window, qtbot) -> ProviderPanel:
    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    return panel


def _new_provider(panel: ProviderPanel, qtbot, name: str, base_url: str, key_var: str) -> None:
    """A provider typed into the form as a user does, its key from an environment variable."""
    panel.new_provider()
    panel.name_edit.setText(name)
    panel.key_source.setCurrentIndex(panel.key_source.findData("env"))
    panel.key_env.setText(key_var)
    qtbot.keyClicks(panel.base_url_edit, base_url)
    qtbot.keyClick(panel.base_url_edit, Qt.Key.Key_Return)


def _import(panel: ProviderPanel, loop, path: Path) -> str:
    """Providers → Import from `path`: the preview's text (then Cancel), or "" when the import
    was refused (the status line says why)."""
    task = asyncio.ensure_future(panel.import_from(str(path)))
    run_for(
        loop,
        until(
            lambda: (
                task.done() or (panel.import_dialog is not None and panel.import_dialog.isVisible())
            )
        ),
    )
    if task.done():
        return ""
    summary = panel.import_dialog.summary.toPlainText()
    panel.import_dialog.reject()
    run_for(loop, task)
    return summary


def test_a_key_env_var_not_set_is_said_in_chinese(
    window, qtbot, loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A provider whose key's environment variable is not set, tested and asked for its models
    from the Providers tab in 中文: the connection test's warning and key line, and the status
    line after Fetch models, say why in Chinese; back in English, the CLI's words."""
    monkeypatch.delenv(MISSING_VAR, raising=False)
    server = LocalServer(settings=SimSettings(time_scale=0.01))
    loop.run_until_complete(server.start())
    try:
        switch_language(qtbot, window, "zh_CN")
        panel = _panel(window, qtbot)
        _new_provider(panel, qtbot, "nokey", f"http://127.0.0.1:{server.port}/v1", MISSING_VAR)
        why = chinese("Keys", keys.ENV_NOT_SET, provider="nokey", var=MISSING_VAR)

        qtbot.mouseClick(panel.test_button, LEFT)
        run_for(
            loop, until(lambda: panel.last_report is not None and panel.test_button.isEnabled())
        )
        summary = panel.connection_test.doctor_summary.text()
        source = KeyRef("env", MISSING_VAR).description().render(QCoreApplication.translate)
        assert chinese("Keys", keys.UNAVAILABLE, source=source, why=why) in summary, summary
        assert summary.rstrip().endswith(why), summary  # the warning line

        qtbot.mouseClick(panel.fetch_button, LEFT)
        run_for(loop, until(lambda: panel.fetch_button.isEnabled() and why in panel.status.text()))
        assert panel.status.text() == why

        # saved, then run from the Compare tab: the run is refused before anything is sent
        qtbot.mouseClick(panel.save_button, LEFT)
        run_for(
            loop, until(lambda: panel.save_button.isEnabled() and "nokey" in panel.status.text())
        )
        window.pane_set.set(["nokey|sim-llama-3-70b"])
        click_tab(window, qtbot, window.compare)
        click_action(window, qtbot, window.run_action)
        refused = QCoreApplication.translate(
            "MainWindow", "Cannot run: %1. Change it in the Providers tab."
        ).replace("%1", why)
        assert window.statusBar().currentMessage() == refused
        assert not window.session.running
        panel = _panel(window, qtbot)  # the status line says the key's reason again
        qtbot.mouseClick(panel.fetch_button, LEFT)
        run_for(loop, until(lambda: panel.fetch_button.isEnabled() and why in panel.status.text()))

        to_english(window, qtbot)
        english = keys.ENV_NOT_SET.format(provider="nokey", var=MISSING_VAR)
        assert panel.status.text() == english
        assert english.startswith(f"provider 'nokey': environment variable ${MISSING_VAR} is not")
    finally:
        loop.run_until_complete(server.stop())


def test_a_stream_cut_mid_way_is_said_in_chinese_by_the_doctor(
    window, qtbot, loop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real server that resets the connection after two tokens, tested from the Providers tab
    in 中文 with that model typed in: the stream check's evidence says what happened in
    Chinese, the exception's own words kept as they are."""
    monkeypatch.setenv(MISSING_VAR, "sk-zh-last-english-0123456789")
    server = HostileServer()
    loop.run_until_complete(server.start())
    try:
        switch_language(qtbot, window, "zh_CN")
        panel = _panel(window, qtbot)
        _new_provider(panel, qtbot, "hostile", server.base_url, MISSING_VAR)
        qtbot.keyClicks(panel.model_list.add_edit, "reset-mid-stream")
        qtbot.keyClick(panel.model_list.add_edit, Qt.Key.Key_Return)
        qtbot.mouseClick(panel.test_button, LEFT)
        run_for(
            loop, until(lambda: panel.last_report is not None and panel.test_button.isEnabled())
        )

        check = next(c for c in panel.last_report.checks if c.name == "stream")
        english = str(check.evidence)  # the CLI's words
        lost = re.escape(failure_words.LOST_MID_STREAM).replace(r"\{detail\}", "(?P<detail>.+)")
        found = re.search(lost, english, re.DOTALL)  # the exception's words may span lines
        assert found, english
        mark, _, details = panel.check_row("stream")
        assert mark == "✗"
        head = chinese("Doctor", doctor.EV_STREAM_MODEL, model="reset-mid-stream")
        what = chinese("RequestFailure", failure_words.LOST_MID_STREAM, detail=found["detail"])
        assert details.startswith(
            translated("Doctor", doctor.EV_STREAM_FAILED, head=head, what=what)
        ), details

        to_english(window, qtbot)
        assert panel.check_row("stream")[2].startswith(english)
    finally:
        loop.run_until_complete(server.stop())


def test_an_import_warns_in_chinese(window, qtbot, loop, tmp_path: Path) -> None:
    """A benchmark config with no key field and a context window written as words: the
    preview's warnings (a provider saved without a key, a bad model fact left out) read in
    Chinese, the file's names and fields kept."""
    config = tmp_path / "benchmark_config.json"
    body = {
        "base_url": "https://gw.example.com/v1",
        "models": {"m": {"id": "llama-3-70b", "max_context": "lots"}},
    }
    config.write_text(json.dumps(body), encoding="utf-8")
    switch_language(qtbot, window, "zh_CN")
    panel = _panel(window, qtbot)
    summary = _import(panel, loop, config)

    label = config.name
    no_key = chinese("ConfigImport", benchmark.NO_KEY_FIELD, label=label)
    problem = chinese(
        "ConfigImport",
        _shapes.MUST_BE_FOUND,
        expected=chinese("Validation", QT_TRANSLATE_NOOP("Validation", "a whole number >= 1")),
        got=chinese("Validation", QT_TRANSLATE_NOOP("Validation", "text")),
    )
    ignored = chinese(
        "ConfigImport",
        _shapes.IGNORED_FIELD,
        file=label,
        field="models.m.max_context",
        problem=problem,
    )
    assert f"  - {ignored}" in summary.splitlines(), summary
    assert f"  - {no_key}" in summary.splitlines(), summary


def test_a_bad_field_is_refused_in_chinese(window, qtbot, loop, tmp_path: Path) -> None:
    """A benchmark config whose base_url is a number: the import is refused with the file,
    the line, the field and what it must be, in Chinese; in English again after a switch."""
    config = tmp_path / "benchmark_config.json"
    config.write_text('{\n  "base_url": 5,\n  "api_key_env": "GW_KEY"\n}\n', encoding="utf-8")
    switch_language(qtbot, window, "zh_CN")
    panel = _panel(window, qtbot)
    assert _import(panel, loop, config) == ""

    problem = chinese(
        "ConfigImport",
        _shapes.MUST_BE_FOUND,
        expected=chinese("Validation", QT_TRANSLATE_NOOP("Validation", "text")),
        got=chinese("Validation", QT_TRANSLATE_NOOP("Validation", "a whole number")),
    )
    field = translated("ConfigImport", _files.FIELD_PROBLEM, field="base_url", problem=problem)
    assert panel.status.text() == chinese(
        "ConfigImport", _files.IN_FILE_AT_LINE, file=config.name, line="2", message=field
    )

    to_english(window, qtbot)
    assert panel.status.text() == (
        "benchmark_config.json, line 2: base_url must be text, found a whole number"
    )
