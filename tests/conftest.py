import os
import sys
from pathlib import Path

# Qt runs offscreen in tests; qasync must pick PySide6; the history goes to a temp dir per test.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
# Bytecode is cached (__pycache__, ignored by git) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE): the suite starts Python hundreds of times (the CLI, serve-local,
# workers), each of which compiled the project's modules again, and each xdist worker rewrote
# every test file's asserts (benchmarks/results/test_tiers.md, session 39). Set before pytest
# imports the test files; xdist's workers and every subprocess inherit the environment.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest

# A skip fails the run unless the test is marked @pytest.mark.hardware("..."): the marker's
# registration and the two report hooks live in skip_policy.py (the inner suite of
# test_repository_stands_alone.py runs the same file).
from tests.support.skip_policy import (  # noqa: F401  (pytest finds hooks by their names in this module)
    pytest_configure,
    pytest_make_collect_report,
    pytest_runtest_makereport,
)

# The tiers (gui, integration, slow, serial) of `scripts/test.sh`: decided in tiers.py.
from tests.support.tiers import (  # noqa: F401
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_ignore_collect,
)

# the real main window as fixtures (window, window_with_tabs, window_time_scale); under xdist,
# the longest tests first, one worker each (tiers.HEAVY_TESTS); `--cpu-ledger PATH`, each test's CPU
pytest_plugins = ["tests.support.gui", "tests.support.heavy_first", "tests.support.cpu_ledger"]
sys.dont_write_bytecode = False  # this process too (see PYTHONDONTWRITEBYTECODE above)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKBENCH_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy variable of the machine's (HTTP_PROXY, NO_PROXY, …) reaches this test: the
    doctor reads them, and a test on 127.0.0.1 must not go through a proxy."""
    from workbench.core.doctor import PROXY_VARIABLES

    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def env(_isolated_data_dir) -> dict[str, str]:
    """The environment for a `workbench` command a test starts: this test's own data and
    config folders (above); a copy, for the test to add to."""
    return dict(os.environ)


_CHECKOUT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def _results_csv_seen() -> set[Path]:
    """The results*.csv in the repository root: those there before the session, then those
    already reported."""
    return set(_CHECKOUT.glob("results*.csv"))


@pytest.fixture(autouse=True)
def _no_results_csv_left_in_the_checkout(_results_csv_seen):
    """`bench` without --csv or --output writes results[-N].csv in its working folder: a test
    that runs it must give it a path (or a cwd under tmp_path), not litter the checkout.
    Checked against the session's start, so a module fixture's run is caught at its first test."""
    yield
    new = set(_CHECKOUT.glob("results*.csv")) - _results_csv_seen
    _results_csv_seen.update(new)  # each file fails one test, not every test after it
    assert not new, (
        f"{sorted(p.name for p in new)} appeared in the checkout during this test or its "
        "fixtures' set-up (or, under -n or with a second pytest in this checkout, one running "
        "beside it): give its bench run --csv or --output under tmp_path"
    )


@pytest.fixture(autouse=True)
def _qt_objects_die_on_the_main_thread(request):
    """After a test that used Qt: run deferred deletions, then collect garbage, here.

    A window left in a reference cycle would otherwise be freed by whichever thread next
    triggers a collection (a later test's loopback server thread, say), destroying Qt objects
    off the GUI thread: the suite then segfaults at random inside the next processEvents.
    """
    yield
    if not {"qtbot", "qapp", "loop"} & set(request.fixturenames):
        return
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
    gc.collect()


@pytest.fixture(scope="session")
def litellm_gateway(tmp_path_factory):
    """A real LiteLLM proxy before the built-in provider, one per pytest process, shared by the
    modules that meet one (tests/support/litellm_gateway.py, shared_gateway); imported here only
    when a test asks for it."""
    from tests.support.litellm_gateway import shared_gateway

    with shared_gateway(tmp_path_factory.mktemp("litellm")) as up:
        yield up


@pytest.fixture
def loop(qapp):
    """A qasync event loop over the test's QApplication, for driving real windows.

    It stays the thread's running loop for the whole test, as the app's loop does: the app
    handles every Qt event inside one `run_until_complete`. A test drives the loop in steps,
    and Qt events are handled between them as well (qasync's last `processEvents` after each
    step, qtbot's clicks, pytest-qt's own `processEvents`). qasync runs asyncio callbacks from
    Qt timers and socket notifiers, so a task woken there (a run's consumer, on a token) would
    otherwise find no running loop: its `Queue.get` raised "bound to a different event loop".
    """
    import asyncio

    import qasync

    class SteppedLoop(qasync.QEventLoop):
        def run_forever(self) -> int:
            try:
                return super().run_forever()
            finally:
                asyncio._set_running_loop(self)  # qasync clears it when a step ends

    loop = SteppedLoop(qapp)
    asyncio.set_event_loop(loop)
    asyncio._set_running_loop(loop)
    try:
        yield loop
    finally:
        asyncio._set_running_loop(None)
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def memory_keyring():
    """A real keyring backend that keeps passwords in a dict (there is no OS keyring in CI)."""
    import keyring

    from tests.support.memory_keyring import MemoryKeyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
