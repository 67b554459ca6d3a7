"""The suite's tiers: which tests are `gui`, `integration` or `slow`, decided here, in one place.

- gui: the test uses a Qt fixture (qtbot, qapp, loop), or its file opens the app in a process
  (GUI_FILES).
- integration: the test's file needs what the fast tier does not install or start: torch and
  Triton (the kernel worker), Ray, the LiteLLM and transformers venvs (INTEGRATION_FILES).
- slow: a file whose tests take seconds each (SLOW_FILES), beside tests marked by hand.

`scripts/test.sh --fast` runs `-m "not gui and not integration and not slow"`; `scripts/test.sh`
alone runs every tier. A file every test of which a `-m` expression leaves out is not even
imported (`pytest_ignore_collect`), so the fast tier needs no torch, ray or extra venv to collect.
Deselected tests are not skipped ones: tests/skip_policy.py does not see them.
tests/conftest.py imports these hooks; the markers are registered in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

GUI_FIXTURES = frozenset({"qtbot", "qapp", "loop"})
# files that open the app or Qt in a child process, with no Qt fixture in this one
GUI_FILES = frozenset(
    {
        "test_cold_start.py",
        "test_desktop_entry.py",
        "test_qt_feature_scan.py",
        "test_qt_sanity.py",
        "test_selftest.py",
        "test_single_instance.py",
    }
)
INTEGRATION_FILES = frozenset(
    {
        "test_cluster.py",  # a real local Ray cluster
        "test_gateway_answers.py",  # a real LiteLLM proxy
        "test_gateway_cooldown.py",
        "test_calibration_rows.py",
        "test_litellm_conformance.py",
        "test_litellm_protocols.py",
        "test_litellm_proxy_helper.py",
        "test_local_protocols_litellm.py",
        "test_protocols_end_to_end.py",
        "test_workers.py",
        "test_transformers_serve.py",  # a real `transformers serve`
        "test_kernels_gpu.py",  # torch and Triton: the kernel worker
        "test_kernels_reference.py",
        "test_kernels_triton.py",
        "test_kernels_worker.py",
        "test_kernels_protocol.py",
        "test_kernel_run_controller.py",
        "test_kernel_preset.py",
        "test_measured_timing.py",
        "test_worker_security.py",
        "test_decode_span.py",
        "test_stream_reading.py",
    }
)
# single tests of otherwise fast files, by node id (file::name)
INTEGRATION_TESTS = frozenset(
    {
        "test_bench_input.py::test_kernels_exits_3_when_rows_fail",  # the kernel worker: torch
    }
)
SLOW_FILES = frozenset(
    {
        "test_csv_streaming.py",
        "test_json_docs.py",
        "test_repository_stands_alone.py",
        "test_route_compare.py",
        "test_attention_twins.py",
        "test_result_files_fuzz.py",
        "test_sse_property.py",
    }
)


def file_markers(path: Path) -> set[str]:
    """The markers every test of this file gets (fixture-decided ones come per test)."""
    marks = set()
    if path.name in GUI_FILES:
        marks.add("gui")
    if path.name in INTEGRATION_FILES:
        marks.add("integration")
    if path.name in SLOW_FILES:
        marks.add("slow")
    return marks


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Do not import a file whose every test the `-m` expression leaves out (its imports may
    need what the fast tier does not install)."""
    expression = config.getoption("markexpr")
    marks = file_markers(collection_path)
    if not expression or not marks or collection_path.suffix != ".py":
        return None
    compiled = Expression.compile(expression)
    # a test may still add gui (by its fixtures) or slow (by hand): ignore the file only when
    # the expression leaves it out whatever those add
    for extra in ({""}, {"gui"}, {"slow"}, {"gui", "slow"}):
        if compiled.evaluate(lambda name, extra=extra: name in marks | extra):  # type: ignore[misc]
            return None
    return True


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marks = file_markers(item.path)
        if f"{item.path.name}::{item.originalname}" in INTEGRATION_TESTS:  # type: ignore[attr-defined]
            marks.add("integration")
        if GUI_FIXTURES & set(getattr(item, "fixturenames", ())):
            marks.add("gui")
        for name in sorted(marks):
            item.add_marker(name)
