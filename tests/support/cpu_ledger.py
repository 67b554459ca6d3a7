"""`pytest --cpu-ledger PATH`: the CPU each test cost, written to a CSV (opt-in).

Per test: the process's user + sys CPU (`RUSAGE_SELF`, its threads included) and that of the
children it reaped (`RUSAGE_CHILDREN`: a subprocess counts once waited for, so a module fixture's
server lands on the test whose teardown stops it), for setup, call and teardown apart, and the
wall time. CPU seconds hold on a loaded machine where wall seconds do not. Each process adds a
row `<outside tests>` (start-up, imports, collection: its CPU at the end less its tests'). Under
pytest-xdist each worker sends its rows to the controller, which writes one CSV with a `worker`
column; the terminal summary ranks the files. tests/conftest.py registers this module as a plugin.
"""

from __future__ import annotations

import csv
import resource
import time
from collections import defaultdict
from collections.abc import Generator

import pytest

PHASES = ("setup", "call", "teardown")
COLUMNS = ("worker", "nodeid", *(f"{p}_cpu_s" for p in PHASES), "children_cpu_s", "wall_s")
OUTSIDE = "<outside tests>"
Row = list[object]  # the COLUMNS' values


def cpu_seconds() -> tuple[float, float]:
    """(this process's user + sys, its reaped children's user + sys), in seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def by_file(rows: list[Row]) -> dict[str, tuple[float, int]]:
    """{file: (CPU seconds, tests)}: setup, call and teardown together."""
    files: dict[str, tuple[float, int]] = defaultdict(lambda: (0.0, 0))
    for _worker, nodeid, *figures in rows:
        cpu, n = files[str(nodeid).split("::")[0]]
        spent = sum(float(x) for x in figures[:3])  # type: ignore[arg-type]
        files[str(nodeid).split("::")[0]] = (cpu + spent, n + (nodeid != OUTSIDE))
    return dict(files)


class Ledger:
    def __init__(self, config: pytest.Config, path: str) -> None:
        self.path = path
        self.worker = getattr(config, "workerinput", {}).get("workerid", "main")
        self.rows: list[Row] = []
        self.open: dict[str, Row] = {}

    def _measure(self, item: pytest.Item, phase: str) -> Generator[None, None, None]:
        own0, kids0 = cpu_seconds()
        wall0 = time.perf_counter()
        yield
        own1, kids1 = cpu_seconds()
        row = self.open.setdefault(item.nodeid, [self.worker, item.nodeid, 0.0, 0.0, 0.0, 0.0, 0.0])
        row[2 + PHASES.index(phase)] = (own1 - own0) + (kids1 - kids0)
        row[5] = float(row[5]) + kids1 - kids0  # type: ignore[arg-type]
        row[6] = float(row[6]) + time.perf_counter() - wall0  # type: ignore[arg-type]
        if phase == "teardown":
            self.rows.append(self.open.pop(item.nodeid))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        yield from self._measure(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        yield from self._measure(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        yield from self._measure(item, "teardown")

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """xdist, on the controller: a worker ended; keep the rows it sent."""
        self.rows.extend(getattr(node, "workeroutput", {}).get("cpu_ledger", []))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        own, kids = cpu_seconds()
        # a worker's rows are its own; the controller's, every worker's (their CPU is its
        # reaped children's): what is left is this process's own start and collection
        spent = sum(float(x) for r in self.rows for x in r[2:5])  # type: ignore[arg-type]
        self.rows.append([self.worker, OUTSIDE, own + kids - spent, 0.0, 0.0, kids, 0.0])
        if hasattr(session.config, "workerinput"):  # an xdist worker: the controller writes
            session.config.workeroutput["cpu_ledger"] = self.rows  # type: ignore[attr-defined]
            return
        with open(self.path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            writer.writerows([*r[:2], *(f"{float(x):.4f}" for x in r[2:])] for r in self.rows)  # type: ignore[arg-type]

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.worker != "main":
            return
        files = sorted(by_file(self.rows).items(), key=lambda kv: -kv[1][0])
        total = sum(cpu for _, (cpu, _) in files)
        terminalreporter.write_sep("-", f"cpu ledger: {total:.1f} s CPU, in {self.path}")
        for name, (cpu, n) in files[:15]:
            terminalreporter.write_line(f"{cpu:8.1f} s  {n:4d} tests  {name}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-ledger",
        metavar="PATH",
        default=None,
        help="write each test's CPU (setup, call, teardown; children included) and wall time"
        " to PATH, a CSV (tests/support/cpu_ledger.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("cpu_ledger")
    if path is not None:
        config.pluginmanager.register(Ledger(config, path), "cpu_ledger_instance")
