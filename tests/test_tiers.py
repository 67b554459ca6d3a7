"""The tier lists of tests/support/tiers.py name files and tests that exist (a renamed one would
drop back into the fast tier unnoticed), and `-m` leaves a whole listed file unimported."""

from __future__ import annotations

import re
from pathlib import Path

import numpy  # noqa: F401  (see below)
import pytest

from tests.support import tiers

# pytester's in-process runs drop from sys.modules what they imported first, and numpy cannot be
# imported twice in one process: a later test of this worker importing it failed ("cannot load
# module more than once per process"), in any order where this file came before numpy's import.

pytest_plugins = ["pytester"]
TESTS = Path(__file__).resolve().parent


def test_every_listed_file_and_test_exists() -> None:
    for name in tiers.GUI_FILES | tiers.INTEGRATION_FILES | tiers.SLOW_FILES | tiers.SERIAL_FILES:
        assert (TESTS / name).is_file(), f"tests/support/tiers.py lists {name}, not in tests/"
    for node in (
        tiers.INTEGRATION_TESTS | tiers.SLOW_TESTS | tiers.SERIAL_TESTS | set(tiers.HEAVY_TESTS)
    ):
        file, test = node.split("::")
        source = (TESTS / file).read_text(encoding="utf-8")
        assert re.search(rf"^(async )?def {test}\(", source, re.M), f"no test {node}"


def test_a_file_the_expression_leaves_out_is_not_imported(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast tier collects without torch: an integration file is never imported."""
    monkeypatch.setattr(tiers, "INTEGRATION_FILES", frozenset({"test_needs_torch.py"}))
    pytester.makeconftest(
        "from tests.support.tiers import pytest_collection_modifyitems, pytest_ignore_collect"
    )
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "markers =\n    gui\n    integration\n    slow\n"
    )
    pytester.makepyfile(
        test_needs_torch="import not_installed_anywhere\n\ndef test_kernel():\n    pass\n",
        test_plain="def test_fast():\n    pass\n\ndef test_window(qtbot_like=None):\n    pass\n",
    )
    fast = pytester.runpytest_inprocess("-m", "not gui and not integration and not slow")
    fast.assert_outcomes(passed=2)
    whole = pytester.runpytest_inprocess()
    assert "not_installed_anywhere" in whole.stdout.str()  # the whole suite does import it


def test_the_phases_split_the_serial_tests_from_the_rest(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scripts/test.sh runs `--phase parallel` with -n, then `--phase serial`: each test once."""
    monkeypatch.setattr(tiers, "SERIAL_FILES", frozenset({"test_paced.py"}))
    monkeypatch.setattr(tiers, "SERIAL_TESTS", frozenset({"test_mixed.py::test_within_a_second"}))
    pytester.makeconftest(
        "from tests.support.tiers import (\n"
        "    pytest_addoption, pytest_collection_modifyitems, pytest_ignore_collect\n)"
    )
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "markers =\n    gui\n    integration\n    slow\n    serial\n"
    )
    pytester.makepyfile(
        test_paced="def test_lateness():\n    pass\n",
        test_mixed="def test_within_a_second():\n    pass\n\ndef test_rows():\n    pass\n",
    )
    parallel = pytester.runpytest_inprocess("--phase", "parallel", "-v")
    parallel.assert_outcomes(passed=1, deselected=2)
    assert "test_mixed.py::test_rows PASSED" in parallel.stdout.str()
    serial = pytester.runpytest_inprocess("--phase", "serial", "-v")
    serial.assert_outcomes(passed=2, deselected=1)
    assert "test_paced.py::test_lateness PASSED" in serial.stdout.str()
    pytester.runpytest_inprocess().assert_outcomes(passed=3)


def test_the_serial_phase_imports_only_the_files_with_serial_tests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--phase serial` runs a few dozen tests of a hundred-odd files: the others are not even
    imported (a file that fails to import shows only in the phases that need it)."""
    monkeypatch.setattr(tiers, "SERIAL_FILES", frozenset())
    monkeypatch.setattr(tiers, "SERIAL_TESTS", frozenset({"test_mixed.py::test_within_a_second"}))
    pytester.makeconftest(
        "from tests.support.tiers import (\n"
        "    pytest_addoption, pytest_collection_modifyitems, pytest_ignore_collect\n)"
    )
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "markers =\n    gui\n    integration\n    slow\n    serial\n"
    )
    pytester.makepyfile(
        test_mixed="def test_within_a_second():\n    pass\n\ndef test_rows():\n    pass\n",
        test_unpaced="import not_installed_anywhere\n\ndef test_table():\n    pass\n",
    )
    serial = pytester.runpytest_inprocess("--phase", "serial", "-v")
    serial.assert_outcomes(passed=1, deselected=1)
    assert "test_mixed.py::test_within_a_second PASSED" in serial.stdout.str()
    parallel = pytester.runpytest_inprocess("--phase", "parallel")
    assert "not_installed_anywhere" in parallel.stdout.str()  # imported there, and failing
