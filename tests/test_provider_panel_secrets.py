"""The Providers tab and passwords in URLs (offscreen, pytest-qt + qasync): a typed base URL
with credentials is refused in the status line with the fix and never saved; a providers file
that has one shows the provider without it and says how to fix it; a proxy's password variable
survives an edit in the form; a broken file kept aside is named after saving."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import qasync

from workbench.core.access.providers import KeyRef, Provider, ProxyChoice
from workbench.core.saved.provider_store import (
    default_providers_path,
    load_providers,
    save_providers,
)
from workbench.ui.provider_controller import ProviderController
from workbench.ui.provider_panel import ProviderPanel

PASSWORD = "Pw7-BadgerOrbit-62"
T = TypeVar("T")


def _run(loop: qasync.QEventLoop, coro: Awaitable[T], timeout: float = 30) -> T:
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def _panel(qtbot: Any) -> ProviderPanel:
    """The tab as a user opens it (after the test has written the providers file it needs)."""
    widget = ProviderPanel(ProviderController())
    qtbot.addWidget(widget)
    widget.resize(1100, 800)
    widget.show()
    return widget


@pytest.fixture
def opened(qtbot: Any, loop: qasync.QEventLoop) -> Iterator[list[ProviderPanel]]:
    """Keeps each panel a test opens alive until the test's Qt teardown, like a fixture's."""
    panels: list[ProviderPanel] = []
    yield panels
    for panel in panels:
        panel.close()


def test_a_typed_base_url_with_a_password_is_refused(qtbot, loop, opened) -> None:
    panel = _panel(qtbot)
    opened.append(panel)
    panel.new_provider()
    panel.name_edit.setText("gw")
    panel.base_url_edit.setText(f"https://bob:{PASSWORD}@gw.example/v1")
    panel.base_url_edit.editingFinished.emit()
    assert PASSWORD not in panel.url_notes.text() and "user name or password" in (
        panel.url_notes.text()
    )
    assert _run(loop, panel.save()) is False
    status = panel.status.text()
    assert PASSWORD not in status and "environment variable" in status
    assert not default_providers_path().exists()


def test_a_file_with_a_url_password_shows_the_provider_without_it(qtbot, loop, opened) -> None:
    path = default_providers_path()
    path.parent.mkdir(parents=True)
    path.write_text(
        f'[providers.gw]\nbase_url = "https://bob:{PASSWORD}@gw.example/v1"\n', encoding="utf-8"
    )
    panel = _panel(qtbot)
    opened.append(panel)
    panel._select("gw")
    assert panel.base_url_edit.text() == "https://gw.example/v1"
    assert PASSWORD not in panel.status.text() and "GW_API_KEY" in panel.status.text()
    # saving from the form writes the file without it
    assert _run(loop, panel.save()), panel.status.text()
    assert PASSWORD not in path.read_text(encoding="utf-8")


def test_a_proxy_password_variable_survives_an_edit(qtbot, loop, opened) -> None:
    proxy = ProxyChoice("url", "http://carol@proxy.corp:3128", "CORP_PROXY_PW")
    save_providers([Provider("gw", "https://gw.example/v1", KeyRef("none"), proxy=proxy)])
    panel = _panel(qtbot)
    opened.append(panel)
    panel._select("gw")
    panel.stall.setValue(45)
    assert _run(loop, panel.save()), panel.status.text()
    saved = load_providers().get("gw")
    assert saved is not None and saved.proxy == proxy and saved.stall_timeout_s == 45
    # typing the password into the proxy URL is refused, with where it goes instead
    panel.proxy_url.setText(f"http://carol:{PASSWORD}@proxy.corp:3128")
    assert _run(loop, panel.save()) is False
    assert PASSWORD not in panel.status.text() and "password_env" in panel.status.text()


def test_saving_over_a_broken_file_names_the_copy_kept(qtbot, loop, opened) -> None:
    broken = b"[providers.x\n"  # a hand edit cut off mid-line
    path: Path = default_providers_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(broken)
    panel = _panel(qtbot)
    opened.append(panel)
    panel.new_provider()
    panel.name_edit.setText("gw")
    panel.base_url_edit.setText("https://gw.example/v1")
    panel.key_source.setCurrentIndex(panel.key_source.findData("none"))
    assert _run(loop, panel.save()), panel.status.text()
    copies = list(path.parent.glob("providers.toml.broken-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == broken
    assert str(copies[0]) in panel.status.text()
