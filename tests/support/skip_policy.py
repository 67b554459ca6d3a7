"""A skipped test is a failed test, unless it names the hardware it needs.

A skip that nobody reads hides a test that never ran: a missing fixture, a missing package, a
wrong path. So every skip fails the run, except for a test marked
`@pytest.mark.hardware("CUDA GPU")`, which says which machine it needs (a GPU, an OS feature).
Software is never such a need: scripts/test.sh installs everything the tests import.

tests/conftest.py imports these hooks; tests/test_repository_stands_alone.py copies this file
as the conftest of a small inner suite to show that they work. It imports nothing from the
project, so it works as a conftest anywhere.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

MARKER = "hardware"
HOW_TO_FIX = (
    "a test may skip only for a marked hardware need (@pytest.mark.hardware); "
    "install what it needs (scripts/test.sh does)"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(name): the test needs this hardware (e.g. 'CUDA GPU') and may skip without it;"
        " any other skip fails the run",
    )


def _reason(longrepr: Any) -> str:
    """The skip's reason, from the (path, line, message) triple pytest stores for a skip."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        message = str(longrepr[2])
    else:
        message = str(longrepr)
    return message.removeprefix("Skipped: ").strip() or "no reason given"


def _failure(reason: str) -> str:
    return f"skipped ({reason}): {HOW_TO_FIX}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail"):
        return  # passed, failed, or an expected failure: not a skip
    if item.get_closest_marker(MARKER) is not None:
        return  # a named hardware need
    report.outcome = "failed"
    report.longrepr = _failure(_reason(report.longrepr))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    """A module that skips while it is imported (`pytest.importorskip` at its top, or
    `pytest.skip(..., allow_module_level=True)`) skips every test in it: that fails too."""
    outcome = yield
    report: pytest.CollectReport = outcome.get_result()
    if not report.skipped:
        return
    try:
        marked = collector.get_closest_marker(MARKER) is not None
    except Exception:  # the module did not import, so its pytestmark is unknown
        marked = False
    if not marked:
        report.outcome = "failed"
        report.longrepr = _failure(_reason(report.longrepr))
