"""The real main window as a fixture, one home for every GUI test file (tests/conftest.py
registers this module as a plugin).

- `window`: gui_driver.opened_window on the built-in provider for the test (closed with its
  session after it, English and a light palette left behind).
- `window_with_tabs`: the same with the Provider and Kernels tabs, as the app opens it.
- `window_time_scale`: the built-in provider's time scale; a file overrides this fixture to
  run faster or slower. A file that needs more set-up defines a fixture named `window` that
  takes `window` (or `window_with_tabs`) and adds to it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from workbench.ui.main_window import MainWindow

# Qt and the window load with the first GUI test, not with the fast tier's conftest


@pytest.fixture
def window_time_scale() -> float:
    return 0.05


@pytest.fixture
def window(qapp: Any, loop: Any, tmp_path: Path, window_time_scale: float) -> Iterator[MainWindow]:
    from tests.support.gui_driver import opened_window

    with opened_window(loop, tmp_path, window_time_scale) as win:
        yield win


@pytest.fixture
def window_with_tabs(
    qapp: Any, loop: Any, tmp_path: Path, window_time_scale: float
) -> Iterator[MainWindow]:
    from tests.support.gui_driver import CLOSE_SECONDS, opened_window
    from workbench.ui.kernels_view import KernelsView
    from workbench.ui.provider_controller import ProviderController
    from workbench.ui.provider_panel import ProviderPanel
    from workbench.ui.window_late import add_kernels_tab, add_provider_tab

    with opened_window(loop, tmp_path, window_time_scale) as win:
        add_provider_tab(win, ProviderPanel(ProviderController(win.session)))
        kernels = KernelsView()
        add_kernels_tab(win, kernels)
        yield win
        # before the window closes: closing deletes it, the Kernels tab with it
        loop.run_until_complete(asyncio.wait_for(kernels.aclose(), CLOSE_SECONDS))


@pytest.fixture
def window_back_in_english(qapp: Any, window_with_tabs: MainWindow) -> Iterator[MainWindow]:
    """The window with its tabs, for a test that switches the language: English again after
    it, whatever happened."""
    from workbench.ui.translators import install_translators

    yield window_with_tabs
    install_translators(qapp, "en")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop the windows' shared serve-local processes (tests/support/shared_provider.py)."""
    shared = sys.modules.get("tests.support.shared_provider")
    if shared is not None:
        shared.stop_all()
