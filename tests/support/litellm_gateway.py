"""A real LiteLLM proxy in front of the built-in provider, for tests/test_litellm_conformance.py.

The upstream is a `LocalServer` on a loop of its own thread in the test process, so its emit log
(when it received each request and wrote each chunk, by time.perf_counter_ns) is at hand; the
proxy runs from its own venv through scripts/litellm_proxy.py; the CLI runs as a subprocess.
On Linux perf_counter_ns is CLOCK_MONOTONIC, one clock for every process on the host.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.cli_inprocess import run_cli
from tests.support.loopback import ThreadedLoop
from tests.support.ports import worker_port
from workbench.core.doctor import PROXY_VARIABLES
from workbench.local.emitlog import EmitLog, EmitRecord
from workbench.local.server import LocalServer

ROOT = Path(__file__).resolve().parents[2]
# Client clock vs server clock: started_at has whole milliseconds and time.time() is read a few
# microseconds before perf_counter at send, so a row's absolute times are good to ~1 ms.
CLOCK_SLACK_MS = 2.0
VENV_VARIABLE = "WORKBENCH_LITELLM_VENV"
KEY_VARIABLE = "GW_KEY"
CLI_TIMEOUT_S = 120

# Gateway alias -> upstream model id (a `+fault` suffix picks a serve-local fault mode).
ROUTES = {
    "sim-70b-gqa": "sim-70b-gqa",  # an alias the catalog prices
    "gw-unpriced": "sim-70b-gqa",  # the same upstream under a name nobody prices
    "gw-no-usage": "sim-70b-gqa+no-usage",
    "gw-429": "sim-70b-gqa+429",
    "gw-drop": "sim-70b-gqa+drop",
    # two broken routes, one per tool: LiteLLM puts a failing route in a cooldown of its own
    "gw-broken": "wrong-upstream-id",
    "gw-broken-bench": "another-wrong-id",
}

# Routes through another LiteLLM provider: alias -> (provider, upstream id). Behind `openai/`
# LiteLLM turns /v1/messages into the upstream's /v1/responses, behind `hosted_vllm/` into chat
# (tests/test_litellm_protocols.py); the upstream reasons first.
PROVIDER_ROUTES = {
    "gw-think": ("openai", "sim-70b-gqa+reasoning"),
    "gw-vllm-think": ("hosted_vllm", "sim-70b-gqa+reasoning"),
}

# LiteLLM's cooldown of a failed route lasts 5 s by default; a longer one keeps the tests that
# meet it from depending on how fast a busy machine runs the next command.
ROUTER_SETTINGS = {"cooldown_time": 60}


def litellm_venv() -> Path:
    """The venv with LiteLLM in it; a missing one fails the test (never skips) with the fix."""
    venv = Path(os.environ.get(VENV_VARIABLE) or ROOT / ".venv-litellm")
    if not (venv / "bin" / "litellm").is_file():
        pytest.fail(
            f"LiteLLM is not installed in {venv} (no bin/litellm), so the gateway conformance "
            "suite cannot run. Fix: run scripts/test.sh, which installs litellm[proxy] into "
            f".venv-litellm (read its output if it said the install failed), or set {VENV_VARIABLE}"
            " to a venv that has litellm[proxy]",
            pytrace=False,
        )
    return venv


def proxy_module() -> ModuleType:
    """scripts/litellm_proxy.py, which is a script, not a package module."""
    spec = importlib.util.spec_from_file_location(
        "litellm_proxy", ROOT / "scripts/litellm_proxy.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("litellm_proxy", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class RecordingEmitLog(EmitLog):
    """The server's emit log, also kept in arrival order so a test can take what its run added."""

    def __init__(self) -> None:
        super().__init__()
        self.in_order: list[EmitRecord] = []

    def add(self, record: EmitRecord) -> None:
        super().add(record)
        self.in_order.append(record)


@dataclass
class Gateway:
    """The proxy (`base_url` ends in /v1), its master key, and the upstream's emit log."""

    base_url: str
    key: str
    emits: RecordingEmitLog
    log_dir: Path

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def mark(self) -> int:
        return len(self.emits.in_order)

    def emitted_since(self, mark: int) -> list[EmitRecord]:
        return self.emits.in_order[mark:]

    def measured_since(self, mark: int, calibrated: int = 1) -> list[EmitRecord]:
        """What a bench run's measured requests made the upstream emit: without the network
        baseline's 1-token probes (every measured request in these tests asks for more tokens)
        and without the `calibrated` calibration requests, which a target sees first."""
        return [r for r in self.emitted_since(mark) if r.completion_tokens != 1][calibrated:]


def shared_gateway(log_dir: Path) -> AbstractContextManager[Gateway]:
    """The gateway of every module that meets one, one per pytest process (each xdist worker;
    the session fixture `litellm_gateway` of tests/conftest.py): ROUTES and PROVIDER_ROUTES, so a
    worker pays LiteLLM's ~12 s start once, not once per module. Sound because no test reads the
    whole route list, each reads only the emit records since its own mark (a worker runs one test
    at a time), and a failed route's cooldown is that route's own."""
    return running_gateway(log_dir, PROVIDER_ROUTES)


@contextmanager
def running_gateway(
    log_dir: Path, extra_routes: Mapping[str, tuple[str, str]] | None = None
) -> Iterator[Gateway]:
    """The gateway with ROUTES through LiteLLM's `openai/` provider, and `extra_routes` (alias ->
    (LiteLLM provider, upstream id)), e.g. `hosted_vllm/`, whose /v1/messages becomes chat."""
    venv = litellm_venv()
    proxy = proxy_module()
    with ThreadedLoop() as background:
        server = LocalServer()
        server.emit_log = RecordingEmitLog()
        background.run(server.start())
        extra = [
            proxy.model_entry(alias, up, server.base_url, provider=provider)
            for alias, (provider, up) in (extra_routes or {}).items()
        ]
        try:
            with proxy.running_litellm(
                venv, server.base_url, ROUTES, extra_entries=extra, workdir=log_dir,
                router_settings=ROUTER_SETTINGS, port=worker_port(),
            ) as up:  # fmt: skip
                base_url, key = up
                gateway = Gateway(base_url, key, server.emit_log, log_dir)
                _warm_up(gateway)
                yield gateway
        finally:
            background.run(server.stop())


def _warm_up(gateway: Gateway) -> None:
    """One request through the proxy first: LiteLLM's first ever call pays ~0.5 s of imports and
    setup, which no test should measure as the gateway's overhead."""
    result = cli(
        gateway.key, "models", "--base-url", gateway.base_url, "--api-key-env", KEY_VARIABLE
    )
    assert result.returncode == 0, result.stderr
    result = cli(
        gateway.key, "bench", "--base-url", gateway.base_url, "--api-key-env", KEY_VARIABLE,
        "--model", "sim-70b-gqa", "--prompt-tokens", "128", "--max-tokens", "2", "--no-store",
        "--csv", str(gateway.log_dir / "warm-up.csv"),  # not results.csv in the working folder
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str
    rows: list[dict[str, str]] = field(default_factory=list)  # the measured requests' rows
    calibration: list[dict[str, str]] = field(default_factory=list)  # bench's calibration rows
    checks: list[dict[str, Any]] = field(default_factory=list)

    def check(self, name: str) -> dict[str, Any]:
        return next(c for c in self.checks if c["name"] == name)

    def first_failed(self) -> dict[str, Any]:
        return next(c for c in self.checks if not c["ok"] and not c["skipped"])


def cli(
    key: str | None, *args: str, csv_path: Path | None = None, in_process: bool = False
) -> CliRun:
    """`workbench ARGS` in a subprocess with the key (if any) in $GW_KEY; the key must not show
    in anything it printed or wrote. `in_process`: in this process instead (run_cli), for a
    test whose subject is what the command says and writes, not its process or its timing
    beside the upstream, which shares this process."""
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env.pop(KEY_VARIABLE, None)
    if key is not None:
        env[KEY_VARIABLE] = key
    if in_process:
        done = run_cli(args, env)
    else:
        done = subprocess.run(
            [sys.executable, "-m", "workbench", *args],
            capture_output=True, text=True, timeout=CLI_TIMEOUT_S, env=env,
        )  # fmt: skip
    run = CliRun(done.returncode, done.stdout, done.stderr)
    written = csv_path.read_text(encoding="utf-8") if csv_path and csv_path.exists() else ""
    if key is not None:
        assert key not in done.stdout + done.stderr + written, "the key leaked"
    rows = list(csv.DictReader(written.splitlines())) if written else []
    run.rows = [r for r in rows if r["phase"] == "measured"]
    run.calibration = [r for r in rows if r["phase"] == "calibration"]
    if "--json" in args and args[0] == "doctor":
        run.checks = json.loads(done.stdout)
    return run


def bench(
    gateway: Gateway,
    csv_path: Path,
    model: str,
    *extra: str,
    key: str | None = None,
    store: bool = False,
    in_process: bool = False,
) -> CliRun:
    """One `workbench bench` through the gateway at a 128-token prompt, rows read back; the
    history (under $WORKBENCH_DATA_DIR) only when `store`; `in_process` as for `cli`."""
    args = [
        "bench", "--base-url", gateway.base_url, "--api-key-env", KEY_VARIABLE, "--model", model,
        "--prompt-tokens", "128", "--csv", str(csv_path), *extra,
    ]  # fmt: skip
    if not store:
        args.append("--no-store")
    return cli(key or gateway.key, *args, csv_path=csv_path, in_process=in_process)


def wall_ns(perf_ns: int) -> float:
    """A perf_counter_ns time as wall-clock ns (the two clocks' offset, read now)."""
    return perf_ns + (time.time_ns() - time.perf_counter_ns())


def started_ns(row: dict[str, str]) -> float:
    moment = datetime.strptime(row["started_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return moment.timestamp() * 1e9


def server_ttft_ms(record: EmitRecord) -> float:
    return (record.chunk_emit_ns[0] - record.t_received_ns) / 1e6


def check_against_emit_log(
    rows: list[dict[str, str]], records: list[EmitRecord], slack_ms: float
) -> list[float]:
    """The rows against the upstream's completions, with no id to join them on (a gateway's
    ids are its own): the k-th first token read never precedes the k-th first token written,
    the k-th request sent never follows the k-th the upstream received (each holds for the true
    pairing, so for the sorted one), the tokens are the chunks written, and what the gateway
    added to TTFT (rows paired by first token) is never above `slack_ms` and on average not
    below 0. Returns what the gateway added to each row's TTFT, in ms."""
    assert len(rows) == len(records)
    reads = sorted(started_ns(r) + float(r["ttft_ms"]) * 1e6 for r in rows)
    writes = sorted(wall_ns(r.chunk_emit_ns[0]) for r in records)
    lags_ms = [(read - write) / 1e6 for read, write in zip(reads, writes, strict=True)]
    assert min(lags_ms) >= -CLOCK_SLACK_MS, lags_ms
    sends = sorted(started_ns(r) for r in rows)
    arrivals = sorted(wall_ns(r.t_received_ns) for r in records)
    waits_ms = [(got - sent) / 1e6 for sent, got in zip(sends, arrivals, strict=True)]
    assert min(waits_ms) >= -CLOCK_SLACK_MS, waits_ms
    assert sorted(int(r["completion_tokens"]) for r in rows) == sorted(
        len(r.chunk_emit_ns) for r in records
    )
    by_read = sorted(rows, key=lambda r: started_ns(r) + float(r["ttft_ms"]) * 1e6)
    by_write = sorted(records, key=lambda r: r.chunk_emit_ns[0])
    added_ms = [
        float(row["ttft_ms"]) - server_ttft_ms(record)
        for row, record in zip(by_read, by_write, strict=True)
    ]
    assert max(added_ms) <= slack_ms, added_ms
    assert sum(added_ms) / len(added_ms) >= -CLOCK_SLACK_MS, added_ms
    return added_ms
