"""The Providers tab, offscreen, against the real built-in provider on 127.0.0.1 (pytest-qt +
qasync: a per-test QEventLoop driving `run_until_complete`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import qasync
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QMessageBox, QPlainTextEdit, QWidget

from tests.support.gui_driver import until
from workbench.core.access.keys import clear_session_keys
from workbench.core.doctor import PROXY_VARIABLES
from workbench.core.foundation.i18n import Phrase
from workbench.core.saved.provider_store import default_providers_path, load_providers
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer
from workbench.ui.compare_controller import LOCAL_PROVIDER, CompareController
from workbench.ui.main_window import MainWindow
from workbench.ui.provider_controller import ProviderController
from workbench.ui.provider_panel import NAME_ROLE, ProviderPanel
from workbench.ui.window_late import add_provider_tab

KEY = "sk-panel-test-key-0123456789abcdef"
WRONG_KEY = "sk-panel-wrong-key-9876543210fedcba"
KEY_VAR = "PANEL_TEST_API_KEY"
MODEL = "sim-70b-gqa"
CONFIGS = Path(__file__).parent / "data" / "configs"  # described in data/README.md
T = TypeVar("T")


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield
    clear_session_keys()


@pytest.fixture
def server(loop: qasync.QEventLoop) -> Iterator[LocalServer]:
    srv = LocalServer(settings=SimSettings(time_scale=0.01), api_key=KEY)
    loop.run_until_complete(srv.start())
    yield srv
    loop.run_until_complete(srv.stop())


@pytest.fixture
def panel(qtbot: Any, loop: qasync.QEventLoop) -> ProviderPanel:
    widget = ProviderPanel(ProviderController())
    qtbot.addWidget(widget)
    widget.resize(1100, 800)
    widget.show()
    return widget


def _run(loop: qasync.QEventLoop, coro: Awaitable[T], timeout: float = 30) -> T:
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def _fill(panel: ProviderPanel, name: str, base_url: str, var: str = KEY_VAR) -> None:
    panel.new_provider()
    panel.name_edit.setText(name)
    panel.base_url_edit.setText(base_url)
    panel.key_source.setCurrentIndex(panel.key_source.findData("env"))
    panel.key_env.setText(var)


def _shown_texts(root: QWidget, skip: QWidget | None = None) -> list[str]:
    """Every text a user could read in `root`: labels, fields, lists, tables, tooltips."""
    texts = [root.toolTip()]
    for label in root.findChildren(QLabel):
        texts += [label.text(), label.toolTip()]
    for edit in root.findChildren(QLineEdit):
        if edit is not skip:
            texts += [edit.text(), edit.placeholderText()]
    for edit in root.findChildren(QPlainTextEdit):
        texts.append(edit.toPlainText())
    if isinstance(root, ProviderPanel):
        for view in (root.list, root.models):
            for row in range(view.count()):
                texts += [view.item(row).text(), view.item(row).toolTip()]
        for row in range(root.checks_table.rowCount()):
            for column in range(root.checks_table.columnCount()):
                item = root.checks_table.item(row, column)
                if item is not None:
                    texts += [item.text(), item.toolTip()]
    return texts


def test_add_provider_saves_the_reference_never_the_key(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    changed: list[dict] = []
    panel.providers_changed.connect(changed.append)
    _fill(panel, "lab", server.base_url + "/chat/completions/")
    panel.headers_edit.setPlainText("X-Title: workbench")
    assert _run(loop, panel.save()), panel.status.text()
    text = default_providers_path().read_text(encoding="utf-8")
    assert KEY not in text
    assert KEY_VAR in text and server.base_url in text
    assert "/chat/completions" not in text
    assert "removed '/chat/completions'" in panel.url_notes.text()
    saved = load_providers().get("lab")
    assert saved is not None and saved.base_url == server.base_url
    assert saved.key.source == "env" and saved.key.name == KEY_VAR
    assert saved.headers == {"X-Title": "workbench"}
    assert changed and "lab" in changed[-1]
    # the built-in provider is listed first, read-only, with its base URL
    assert panel.list.item(0).data(Qt.ItemDataRole.UserRole) == LOCAL_PROVIDER
    assert panel.list.item(1).data(Qt.ItemDataRole.UserRole) == "lab"
    assert all(KEY not in t for t in _shown_texts(panel))


def test_test_connection_passes_every_check(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop, monkeypatch, qtbot: Any
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    _fill(panel, "lab", server.base_url)
    assert _run(loop, panel.fetch_models()) is not None
    panel.set_model_checked(MODEL)

    async def click_and_watch() -> bool:
        qtbot.mouseClick(panel.test_button, Qt.MouseButton.LeftButton)
        disabled_while_running = False
        while panel.last_report is None or not panel.test_button.isEnabled():
            disabled_while_running |= not panel.test_button.isEnabled()
            await asyncio.sleep(0.001)
        return disabled_while_running

    assert _run(loop, click_and_watch(), 60)  # disabled while the doctor runs
    assert panel.test_button.isEnabled()  # and restored after
    report = panel.last_report
    assert report is not None
    failures = [c for c in report.checks if not c.ok and not c.skipped]
    assert failures == [], failures
    assert panel.checks_table.rowCount() == len(report.checks)
    marks = {panel.check_row(c.name)[0] for c in report.checks}
    assert marks <= {"✓", "–"} and "✓" in marks
    assert "All checks passed" in panel.doctor_summary.text()
    assert KEY_VAR in panel.doctor_summary.text()  # where the key came from, never the key
    assert all(KEY not in t for t in _shown_texts(panel))


def test_wrong_key_fails_the_auth_check_with_its_fix_shown(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_VAR, WRONG_KEY)
    _fill(panel, "lab", server.base_url)
    report = _run(loop, panel.test_connection(), 60)
    assert report is not None
    auth = next(c for c in report.checks if c.name == "auth")
    assert not auth.ok and not auth.skipped and auth.fix
    mark, title, details = panel.check_row("auth")
    assert mark == "✗" and "auth" in title.lower()
    assert "Fix: " + auth.fix in details and "Cause: " + auth.cause in details
    assert auth.fix in panel.doctor_summary.text()
    assert panel.checks_table.isVisible() and panel.doctor_summary.isVisible()
    assert all(WRONG_KEY not in t for t in _shown_texts(panel))


def test_fetch_models_fills_the_list_and_the_search_box_filters_it(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    _fill(panel, "lab", server.base_url)
    ids = _run(loop, panel.fetch_models())
    assert ids and MODEL in ids
    assert panel.models.count() == len(ids)
    row = next(
        r for r in range(panel.models.count()) if panel.models.item(r).text().startswith(MODEL)
    )
    assert "GQA" in panel.models.item(row).text()  # the catalog's attention beside the id
    assert "ctx" in panel.models.item(row).text()
    panel.model_search.setText("mla")
    visible = panel.visible_models()
    assert visible and len(visible) < len(ids)
    for r in range(panel.models.count()):
        item = panel.models.item(r)
        assert item.isHidden() == ("mla" not in item.text().lower())
    panel.model_search.clear()
    assert len(panel.visible_models()) == len(ids)
    # checking a model adds it to the provider
    panel.set_model_checked(MODEL)
    assert _run(loop, panel.save()), panel.status.text()
    saved = load_providers().get("lab")
    assert saved is not None and [m.id for m in saved.models] == [MODEL]


def test_fetch_models_with_a_missing_key_says_so_in_the_panel(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop, monkeypatch
) -> None:
    monkeypatch.delenv("PANEL_UNSET_VARIABLE", raising=False)
    _fill(panel, "lab", server.base_url, var="PANEL_UNSET_VARIABLE")
    assert _run(loop, panel.fetch_models()) is None
    assert "PANEL_UNSET_VARIABLE" in panel.status.text() and "not set" in panel.status.text()
    assert panel.fetch_button.isEnabled()


def test_import_preview_saves_only_after_confirming(
    panel: ProviderPanel, loop: qasync.QEventLoop
) -> None:
    path = CONFIGS / "benchmark_config.json"
    changed: list[dict] = []
    panel.providers_changed.connect(changed.append)

    async def import_and(answer: str) -> bool:
        task = asyncio.ensure_future(panel.import_from(str(path)))
        await until(lambda: panel.import_dialog is not None and panel.import_dialog.isVisible())
        dialog = panel.import_dialog
        assert dialog is not None
        summary = dialog.summary.toPlainText()
        assert "taotoken" in summary and "https://taotoken.net/api" in summary
        assert "llama-3-70b" in summary and "deepseek-chat" in summary
        assert "$TAOTOKEN_API_KEY" in summary  # where the key will come from
        if answer == "save":
            dialog.save_button.click()
        else:
            dialog.reject()
        return await task

    assert _run(loop, import_and("cancel")) is False
    assert not default_providers_path().exists()
    assert changed == [] and "nothing saved" in panel.status.text().lower()
    assert _run(loop, import_and("save")) is True
    saved = load_providers().get("taotoken")
    assert saved is not None and [m.id for m in saved.models] == ["llama-3-70b", "deepseek-chat"]
    assert changed and "taotoken" in changed[-1]
    assert panel.name_edit.text() == "taotoken"


def test_broken_import_shows_the_importers_words(
    panel: ProviderPanel, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    broken = tmp_path / "settings.json"
    broken.write_text('{"base_url": "https://x/v1", ', encoding="utf-8")
    assert _run(loop, panel.import_from(str(broken))) is False
    assert "settings.json" in panel.status.text()
    assert panel.import_dialog is None and panel.import_button.isEnabled()


def test_removing_asks_and_removes(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop
) -> None:
    _fill(panel, "lab", server.base_url)
    assert _run(loop, panel.save())

    async def remove_and(button: QMessageBox.StandardButton) -> bool:
        task = asyncio.ensure_future(panel.remove_selected())
        await until(lambda: panel.confirm_box is not None and panel.confirm_box.isVisible())
        assert panel.confirm_box is not None and "lab" in panel.confirm_box.text()
        panel.confirm_box.button(button).click()
        return await task

    assert _run(loop, remove_and(QMessageBox.StandardButton.Cancel)) is False
    assert load_providers().get("lab") is not None
    assert _run(loop, remove_and(QMessageBox.StandardButton.Yes)) is True
    assert load_providers().get("lab") is None
    names = [panel.list.item(r).data(Qt.ItemDataRole.UserRole) for r in range(panel.list.count())]
    assert names == [LOCAL_PROVIDER]


def test_core_errors_show_in_their_own_words(panel: ProviderPanel, loop: qasync.QEventLoop) -> None:
    _fill(panel, "lab", "not a url at all")
    assert _run(loop, panel.save()) is False
    assert "spaces inside it" in panel.status.text()
    _fill(panel, "lab", "http://127.0.0.1:9/v1", var="sk-not-a-variable")
    assert _run(loop, panel.save()) is False
    assert "MY_API_KEY" in panel.status.text()
    assert "sk-not-a-variable" not in panel.status.text()  # a pasted key is never echoed
    _fill(panel, "lab", "http://127.0.0.1:9/v1")
    panel.headers_edit.setPlainText("Authorization: Bearer sk-literal-credential-123456")
    assert _run(loop, panel.save()) is False
    assert "${MY_VAR}" in panel.status.text()
    assert not default_providers_path().exists()


def test_no_keyring_disables_that_choice_and_never_saves_the_key_in_plain_text(
    qtbot: Any, loop: qasync.QEventLoop, monkeypatch
) -> None:
    why = "no OS keyring is available here (test); keep the key in an environment variable"
    said = Phrase(why, context="Keys")
    monkeypatch.setattr("workbench.ui.provider_controller.keyring_phrase", lambda: (False, said))
    # the keyring the key would be stored in, as every caller asks (else the state an earlier
    # test of the process left the keyring in decided it)
    monkeypatch.setattr("workbench.core.access.keys.keyring_phrase", lambda: (False, said))
    panel = ProviderPanel(ProviderController())
    qtbot.addWidget(panel)
    panel.show()
    index = panel.key_source.findData("keyring")
    item = panel.key_source.model().item(index)
    assert not item.isEnabled()
    assert panel.key_source.itemData(index, Qt.ItemDataRole.ToolTipRole) == why
    # forced anyway (an old provider saved that way): the keyring's refusal shows, nothing saved
    _fill(panel, "lab", "http://127.0.0.1:9/v1")
    panel.key_source.setCurrentIndex(index)
    assert "environment variable" in panel.key_note.text()  # the alternative is offered
    panel.key_edit.setText(KEY)
    assert _run(loop, panel.save()) is False
    assert "no OS keyring" in panel.status.text()
    assert not default_providers_path().exists()
    assert all(KEY not in t for t in _shown_texts(panel, skip=panel.key_edit))


def test_session_key_is_never_shown_and_tls_off_is_flagged(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop
) -> None:
    _fill(panel, "lab", server.base_url)
    panel.key_source.setCurrentIndex(panel.key_source.findData("session"))
    panel.key_edit.setText(KEY)
    assert panel.key_edit.echoMode() is QLineEdit.EchoMode.Password
    assert all(KEY not in t for t in _shown_texts(panel, skip=panel.key_edit))
    panel.verify_tls.setChecked(False)
    assert panel.tls_warning.isVisible()
    assert _run(loop, panel.save()), panel.status.text()
    assert panel.key_edit.text() == ""  # the typed key left the form once saved
    assert KEY not in default_providers_path().read_text(encoding="utf-8")
    assert "TLS verification OFF" in panel.list.item(1).text()
    assert panel.tls_warning.isVisible()
    # the session key works for the doctor: the auth check passes
    report = _run(loop, panel.test_connection(), 60)
    assert report is not None
    assert next(c for c in report.checks if c.name == "auth").ok
    assert all(KEY not in t for t in _shown_texts(panel))


def test_main_window_pane_choices_follow_saved_providers(
    qtbot: Any, loop: qasync.QEventLoop, server: LocalServer, tmp_path: Path
) -> None:
    session = CompareController(time_scale=0.05)
    window = MainWindow(session, QSettings(str(tmp_path / "g.ini"), QSettings.Format.IniFormat))
    _run(loop, session.start_local_provider())
    panel = ProviderPanel(ProviderController(session))
    add_provider_tab(window, panel)
    window.pane_set.set_choices(
        [(f"{LOCAL_PROVIDER}|{m.id}", m.id) for m in session.catalog.simulated()]
    )
    window.apply_preset("real")
    window.show()
    assert window.tabs.tabText(window.tabs.indexOf(panel)) == "Providers"
    assert session.local_base_url in panel.list.item(0).text()
    _fill(panel, "lab", server.base_url)
    panel._fill_models([MODEL], [MODEL], editable=True)
    assert _run(loop, panel.save()), panel.status.text()
    assert "lab" in session.providers
    assert f"lab|{MODEL}" in [k for k, _ in window.pane_set.choices]
    window.close()
    _run(loop, session.close())
    window.deleteLater()


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_clicking_test_connection_on_a_closed_port_shows_the_failed_tcp_check(
    panel: ProviderPanel, loop: qasync.QEventLoop, qtbot: Any
) -> None:
    port = _closed_port()
    _fill(panel, "down", f"http://127.0.0.1:{port}/v1", var="UNSET_PANEL_KEY_VAR")
    assert panel.doctor_summary.text() == "Not run yet."
    qtbot.mouseClick(panel.test_button, Qt.MouseButton.LeftButton)  # what a user does
    _run(loop, until(lambda: panel.last_report is not None, timeout=30), 40)
    tcp = panel.check_row("tcp")
    assert tcp is not None and tcp[0] == "✗"
    assert str(port) in tcp[2] and "Fix:" in tcp[2]
    summary = panel.doctor_summary.text()
    assert "check(s) failed" in summary and "TCP connection" in summary
    assert panel.test_button.isEnabled()


HAND_WRITTEN = """\
# My providers: keep this line (top of the file)

[providers.mine]  # my gateway, the header's comment
base_url = "https://mine.example/v1"  # after a value
# inside the table: ask Bob before changing the gateway
key = "${MINE_KEY}"
"""


def test_user_comments_survive_saves_from_the_providers_tab(
    qtbot: Any, loop: qasync.QEventLoop
) -> None:
    path = default_providers_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    panel = ProviderPanel(ProviderController())
    qtbot.addWidget(panel)
    panel.show()
    row = next(r for r in range(panel.list.count()) if panel.list.item(r).text().startswith("mine"))
    panel.list.setCurrentRow(row)
    assert panel.name_edit.text() == "mine"
    panel.first_token.setValue(77)
    assert _run(loop, panel.save()), panel.status.text()
    _fill(panel, "second", "https://second.example/v1")
    assert _run(loop, panel.save()), panel.status.text()
    text = path.read_text(encoding="utf-8")
    for comment in (
        "# My providers: keep this line (top of the file)",
        "# my gateway, the header's comment",
        '"https://mine.example/v1"  # after a value',
        "# inside the table: ask Bob before changing the gateway",
    ):
        assert comment in text
    assert 'key = "${MINE_KEY}"' in text  # an unchanged field stays as the user wrote it
    loaded = load_providers()
    assert loaded.names() == ["mine", "second"]
    mine = loaded.get("mine")
    assert mine is not None and mine.first_token_timeout_s == 77


def test_clicking_add_fetch_and_save_stores_the_form_with_the_checked_models(
    panel: ProviderPanel, server: LocalServer, loop: qasync.QEventLoop, monkeypatch, qtbot: Any
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    assert panel.name_edit.text() == "new-provider" and panel.models.count() == 0
    panel.name_edit.setText("clicked")
    panel.base_url_edit.setText(server.base_url)
    panel.key_source.setCurrentIndex(panel.key_source.findData("env"))
    panel.key_env.setText(KEY_VAR)
    panel.stall.setValue(42)
    qtbot.mouseClick(panel.fetch_button, Qt.MouseButton.LeftButton)
    _run(loop, until(lambda: panel.models.count() > 0 and panel.fetch_button.isEnabled()))
    panel.set_model_checked(MODEL)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    _run(loop, until(lambda: load_providers().get("clicked") is not None))
    saved = load_providers().get("clicked")
    assert saved is not None and saved.base_url == server.base_url
    assert saved.key.name == KEY_VAR and saved.stall_timeout_s == 42
    assert [m.id for m in saved.models] == [MODEL]
    # the list shows the saved entry once the save has finished (the file is written first)
    listed = lambda: [panel.list.item(i).data(NAME_ROLE) for i in range(panel.list.count())]  # noqa: E731
    _run(loop, until(lambda: "clicked" in listed() and panel.save_button.isEnabled()))
    # shown again from the file: the form and the checked model in the list
    panel._select(LOCAL_PROVIDER)
    panel._select("clicked")
    assert panel.name_edit.text() == "clicked" and panel.stall.value() == 42
    checked = [
        panel.models.item(r).data(Qt.ItemDataRole.UserRole)
        for r in range(panel.models.count())
        if panel.models.item(r).checkState() == Qt.CheckState.Checked
    ]
    assert checked == [MODEL]

    # and Remove, confirmed, forgets it
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    _run(loop, until(lambda: panel.confirm_box is not None and panel.confirm_box.isVisible()))
    assert panel.confirm_box is not None
    yes = panel.confirm_box.button(QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(yes, Qt.MouseButton.LeftButton)
    _run(loop, until(lambda: panel.name_edit.text() == LOCAL_PROVIDER))
    assert load_providers().get("clicked") is None and not panel.edit_box.isEnabled()
