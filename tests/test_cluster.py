"""`workbench bench --cluster`: the workers as Ray actors on a real local Ray cluster
(issue 14, item 3), and Ray staying an optional extra that the app never imports.

The cluster (tests/support/ray_head.py) runs on this machine with Ray's defaults (token
authentication on); the tests of this file share one (each bench is a job of its own, whose
actors end with it), stopped when the file is done.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_workers import WORKBENCH, bench_args, csv_rows, history, measured, run_bench

from tests.support.cli_inprocess import run_cli

HEAD = Path(__file__).parent / "support" / "ray_head.py"
START_TIMEOUT_S = 90.0


@pytest.fixture(scope="module")
def cluster_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the cluster and of the benches sent to it: Ray's workers inherit
    its WORKBENCH_DATA_DIR, which tells its actors from another cluster's (`_actor_pids`)."""
    return {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path_factory.mktemp("ray-cluster") / "data"),
        "RAY_USAGE_STATS_ENABLED": "0",
    }


@pytest.fixture
def bench_env(cluster_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """A bench's own history and calibration, as a new user's: none from an earlier test."""
    return {**cluster_env, "WORKBENCH_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture(scope="module")  # ~3 s to start (more on a busy machine): once per file
def ray_cluster(cluster_env: dict[str, str]) -> Iterator[str]:
    """A two-CPU Ray cluster's address; stopped (all its processes) when the file is done."""
    head = subprocess.Popen(
        [sys.executable, str(HEAD), "2"],
        env=cluster_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert head.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(head.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=START_TIMEOUT_S)
        address = head.stdout.readline().strip() if ready else ""
        assert address, f"the local Ray cluster did not start within {START_TIMEOUT_S:g} s"
        yield address
    finally:
        assert head.stdin is not None
        head.stdin.close()  # ray.shutdown() stops the processes it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait(timeout=10)


def test_a_ray_cluster_gives_the_same_rows_as_one_process(
    tmp_path: Path, bench_env, ray_cluster: str
) -> None:
    one = run_cli(bench_args(tmp_path / "one.csv", "--workers", "1"), bench_env)  # in this process
    assert one.returncode == 0, one.stderr
    env2 = {**bench_env, "WORKBENCH_DATA_DIR": str(tmp_path / "data2")}
    args = bench_args(tmp_path / "ray.csv", "--cluster", ray_cluster, "--workers", "2")
    two = run_bench(args, env2)
    assert two.returncode == 0, two.stderr
    assert "Workers: 2 Ray actors at" in two.stderr
    assert "2 actor(s), concurrency 4, clock offset" in two.stderr  # one node here

    rows_one, rows_ray = csv_rows(tmp_path / "one.csv"), csv_rows(tmp_path / "ray.csv")
    assert len(rows_ray) == len(rows_one)
    m1, m2 = measured(rows_one), measured(rows_ray)
    assert sorted(int(r["repeat"]) for r in m2) == list(range(12))
    assert {r["concurrency"] for r in m2} == {"4"}
    assert all(r["error_class"] == "" for r in m2)
    assert {r["prompt_tokens"] for r in m2} == {r["prompt_tokens"] for r in m1}
    runs = history(tmp_path / "data2")
    assert len(runs) == 1 and runs[0] == (rows_ray[0]["run_id"], len(rows_ray))


def _actor_pids(env: dict[str, str]) -> list[int]:
    """The shard actors of the cluster started with `env`: Ray's workers inherit its
    environment, so another suite's cluster on the same machine is not counted."""
    marker = f"WORKBENCH_DATA_DIR={env['WORKBENCH_DATA_DIR']}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if not cmdline.startswith("ray::_ShardActor"):
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in environ:
            pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(sys.platform != "linux", reason="finds the actors through /proc")
def test_a_killed_ray_actor_leaves_classified_rows_and_the_rest_finish(
    tmp_path: Path, cluster_env, bench_env, ray_cluster: str
) -> None:
    csv_path = tmp_path / "kill.csv"
    args = bench_args(csv_path, "--cluster", ray_cluster, "--workers", "2", repeats=40)
    args[args.index("--time-scale") + 1] = "0.5"
    earlier = set(_actor_pids(cluster_env))  # an earlier test's job's, if still ending
    proc = subprocess.Popen(
        [*WORKBENCH, *args],
        env=bench_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line or (" done, " in line and int(line.split("/")[0].strip()) >= 4):
                break
        actors = [pid for pid in _actor_pids(cluster_env) if pid not in earlier]
        assert len(actors) == 2, actors
        os.kill(actors[0], signal.SIGKILL)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, err
    rows = measured(csv_rows(csv_path))
    assert sorted(int(r["repeat"]) for r in rows) == list(range(40))
    lost = [r for r in rows if r["error_class"] == "worker_lost"]
    assert lost and len(rows) - len(lost) >= 20
    assert "Ray actor" in lost[0]["error_message"] and "Fix:" in lost[0]["error_message"]


def test_cluster_without_ray_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"  # as if Ray were not installed
        "from workbench.cli import main\n"
        "sys.exit(main(['bench', '--model', 'sim-70b-gqa', '--cluster', 'auto']))"
    )
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "pip install 'attention-workbench[cluster]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists() or not list((tmp_path / "data").glob("*.sqlite3"))


def test_the_app_and_the_gui_never_import_ray() -> None:
    code = (
        "import sys\n"
        "import workbench.cli, workbench.commands.bench, workbench.commands.bench_workers\n"
        "import workbench.ui.app, workbench.ui.main_window\n"
        "print('ray' in sys.modules)"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
