"""Our client's schedule and CPU beside guidellm's and AIPerf's (issue 29, goal "schedule fidelity")

One `serve-local` process (as benchmarks/arrival_fidelity.py starts it) stamps each request's
arrival. At each rate (50, 200, 500 req/s; 1K-token prompts, 8 output tokens) each client runs
in turn, as its user runs it, against that server:

- ours: `workbench bench --rate R --arrivals constant --duration S --workers 1`;
- guidellm: `guidellm run --profile kind=constant,rate=R --constraint kind=max_duration,...`;
- AIPerf: `aiperf profile --request-rate R --arrival-pattern constant --benchmark-duration S`;
- vLLM's client (`vllm bench serve`) is not run: see VLLM_NOT_RUN.

For each, from the server's arrival log (`GET /v1/_emit_log/_arrivals/{model}`, read by
benchmarks/arrival_gaps.py): the requests it saw, the achieved rate against the asked one, the
gaps' spread, and (constant arrivals) each arrival's lateness against an ideal schedule at R.
Ours also reports its own lateness (`dispatch_ms`, from its CSV); arrival_fidelity.py measures
ours against its exact schedule. Client CPU: the tool's process tree sampled from /proc
(benchmarks/tree_cpu.py) between its first and last arrival, so start-up and report are left
out; 1 / (CPU per request) is the rate one client core sustains. The whole run's CPU (from
getrusage) is shown beside it.

The peers live in venvs of their own (scripts/make_peer_fixtures.sh makes them under
.venv-peers/); their tokenizer is trained here (scripts/make_peer_tokenizer.py), offline.

    .venv/bin/python benchmarks/arrival_peers.py            # 3 rates x 5 s x 3 clients, recorded
    .venv/bin/python benchmarks/arrival_peers.py --quick    # 1 s each, not recorded
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arrival_gaps import gap_stats, in_window
from machine import machine_record, write_result
from tree_cpu import TreeSampler

import workbench
from workbench.core.foundation.metrics import percentile
from workbench.core.system import loop as event_loop
from workbench.local.process import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
MODEL = "sim-70b-gqa"
TIME_SCALE = 0.01  # as arrival_fidelity.py: 8 tokens of a 1K prompt in ~3 ms, never the queue
PROMPT_TOKENS, OUTPUT_TOKENS = 1024, 8
LOG_CAPACITY = 10_000  # the server keeps the last 10,000 arrivals (workbench/local/emitlog.py)
VLLM_NOT_RUN = (
    "vLLM's client (`vllm bench serve`) was not measured: it ships only inside the vllm package "
    "(0.34.0: a 239 MB wheel), which pins torch==2.14.0 (from the package index, the CUDA build "
    "with GBs of nvidia-* wheels; only torch 2.13.0+cpu is at hand) and needs flashinfer-python, "
    "nvidia-cutlass-dsl[cu13] and PyNvVideoCodec; its benchmark imports vllm.inputs, vllm.lora "
    "and vllm.multimodal (torch), so it does not run without that install."
)


@dataclass(frozen=True)
class Run:
    """One client at one rate: what to start, and where its files go."""

    rate: float
    process: str
    duration_s: float
    base_url: str  # http://127.0.0.1:PORT/v1
    work: Path
    tokenizer: Path

    @property
    def root_url(self) -> str:
        return self.base_url.rsplit("/v1", 1)[0]


def ours(run: Run) -> list[str]:
    return [
        sys.executable, "-m", "workbench", "bench", "--base-url", run.base_url,
        "--model", MODEL, "--prompt-tokens", str(PROMPT_TOKENS),
        "--max-tokens", str(OUTPUT_TOKENS), "--rate", f"{run.rate:g}",
        "--arrivals", run.process, "--duration", f"{run.duration_s:g}", "--workers", "1",
        "--csv", str(run.work / "ours.csv"), "--force", "--no-store", "-q",
    ]  # fmt: skip


def guidellm(run: Run, venvs: Path) -> list[str]:
    return [
        str(venvs / "guidellm" / "bin" / "guidellm"), "run",
        "--backend", f"kind=openai_http,target={run.root_url},model={MODEL},validate_backend=false",
        "--tokenizer", f"kind=huggingface_auto,model={run.tokenizer}",
        "--profile", f"kind={run.process},rate={run.rate:g}",
        "--constraint", f"kind=max_duration,seconds={run.duration_s:g}",
        "--data",
        f"kind=synthetic_text,prompt_tokens={PROMPT_TOKENS},output_tokens={OUTPUT_TOKENS}",
        "--output", f"kind=json,path={run.work / 'guidellm.json'}", "--disable-console",
    ]  # fmt: skip


def aiperf(run: Run, venvs: Path) -> list[str]:
    return [
        str(venvs / "aiperf" / "bin" / "aiperf"), "profile", "--model", MODEL,
        "--url", run.root_url, "--endpoint-type", "chat", "--streaming",
        "--tokenizer", str(run.tokenizer), "--request-rate", f"{run.rate:g}",
        "--arrival-pattern", run.process, "--benchmark-duration", f"{run.duration_s:g}",
        "--request-count", str(round(run.rate * run.duration_s)),
        "--isl", str(PROMPT_TOKENS), "--osl", str(OUTPUT_TOKENS), "--random-seed", "29",
        "--ui-type", "none", "--artifact-dir", str(run.work / "aiperf"),
    ]  # fmt: skip


@dataclass(frozen=True)
class Tool:
    name: str
    command: Callable[[Run], list[str]]
    env: dict[str, str | None]  # None: unset
    version: str


def _venv_version(python: Path, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def tools(names: list[str], venvs: Path) -> list[Tool]:
    """The clients asked for; a peer not installed is a ValueError that says how to install it."""
    found: list[Tool] = []
    for name in names:
        if name == "ours":
            found.append(Tool("ours", ours, {"PYTHONPATH": str(ROOT)}, workbench.__version__))
            continue
        python = venvs / name / "bin" / "python"
        if not python.exists():
            raise ValueError(
                f"{name} is not installed under {venvs}: run scripts/make_peer_fixtures.sh "
                f"{venvs} (it builds each tool's venv), or leave it out of --tools"
            )
        # as scripts/make_peer_fixtures.sh runs them: guidellm offline, AIPerf with the flag unset
        env: dict[str, str | None] = {"HF_HUB_OFFLINE": "1" if name == "guidellm" else None}
        command = guidellm if name == "guidellm" else aiperf
        found.append(
            Tool(name, lambda run, c=command: c(run, venvs), env, _venv_version(python, name))
        )
    return found


async def _arrivals(root_url: str) -> list[int]:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{root_url}/v1/_emit_log/_arrivals/{MODEL}") as resp:
            return list((await resp.json())["t_headers_ns"])


async def _ours_start(run: Run) -> tuple[int | None, list[float]]:
    """Our run's first scheduled request's arrival (calibration and baseline come before it)
    and its own lateness per request (dispatch_ms), from its CSV."""
    with (run.work / "ours.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    if not rows:
        return None, []
    first = min(rows, key=lambda r: float(r["scheduled_s"]))
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{run.root_url}/v1/_emit_log/{first['response_id']}") as resp:
            start = int((await resp.json())["t_headers_ns"])  # on the arrival log's clock
    return start, [float(r["dispatch_ms"]) for r in rows if r["dispatch_ms"]]


async def measure(tool: Tool, run: Run) -> dict[str, Any]:
    """Run one client at one rate; its figures from the server's arrival log and its CPU."""
    env = dict(os.environ)
    for key, value in tool.env.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    log = (run.work / f"{tool.name}.log").open("wb")
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    launch_ns = start_ns = time.perf_counter_ns()
    proc = await asyncio.create_subprocess_exec(
        *tool.command(run), cwd=run.work, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    async with TreeSampler(proc.pid) as sampler:
        try:
            rc: int | None = await asyncio.wait_for(proc.wait(), 120 + 10 * run.duration_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            rc = None
    end_ns = time.perf_counter_ns()
    log.close()
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    dispatch: list[float] = []
    if tool.name == "ours" and (run.work / "ours.csv").exists():
        first, dispatch = await _ours_start(run)
        start_ns = first if first is not None else end_ns
    arrivals = in_window(await _arrivals(run.root_url), start_ns, end_ns)
    stats = gap_stats(arrivals, run.rate, run.process)
    cpu = sampler.cpu_between(arrivals[0], arrivals[-1]) if len(arrivals) > 1 else None
    per_request = cpu / (len(arrivals) - 1) if cpu else None
    return {
        "tool": tool.name,
        "rate": run.rate,
        "process": run.process,
        "duration_s": run.duration_s,
        "exit_code": rc,
        **stats.to_json(),
        "dispatch_p50_ms": percentile(dispatch, 50),
        "dispatch_p99_ms": percentile(dispatch, 99),
        "client_cpu_ms_per_request": None if per_request is None else per_request * 1000,
        "per_core_rate": None if not per_request else 1 / per_request,
        "run_cpu_s": (usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime),
        "wall_s": (end_ns - launch_ns) / 1e9,
        "log_tail": None if rc == 0 else _tail(run.work / f"{tool.name}.log"),
    }


def _tail(path: Path) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-8:])


def _f(value: float | None, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def table(levels: list[dict[str, Any]]) -> str:
    lines = [
        "client | asked req/s | requests at the server | achieved req/s (error) | gap CV "
        "| abs(gap - 1/R) p50 / p99 ms | lateness vs ideal p50 / p99 ms "
        "| own lateness report p50 / p99 ms | CPU ms/request while sending "
        "| req/s one core sustains | whole run CPU / wall s",
        "---|---|---|---|---|---|---|---|---|---|---",
    ]
    for x in levels:
        lines.append(
            f"{x['tool']} | {x['rate']:g} | {x['requests']} | "
            f"{_f(x['achieved_rate'], '.1f')} ({_f(x['rate_error_pct'], '+.1f')} %) | "
            f"{_f(x['gap_cv'])} | {_f(x['gap_error_p50_ms'])} / {_f(x['gap_error_p99_ms'])} | "
            f"{_f(x['lateness_p50_ms'])} / {_f(x['lateness_p99_ms'])} | "
            f"{_f(x['dispatch_p50_ms'])} / {_f(x['dispatch_p99_ms'])} | "
            f"{_f(x['client_cpu_ms_per_request'])} | {_f(x['per_core_rate'], ',.0f')} | "
            f"{x['run_cpu_s']:.1f} / {x['wall_s']:.1f}"
        )
    return "\n".join(lines)


async def _main(args: argparse.Namespace, chosen: list[Tool]) -> int:
    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="arrival-peers-"))
    tokenizer = work / "tokenizer"
    if any(t.name != "ours" for t in chosen):
        python = args.venvs / "guidellm" / "bin" / "python"  # it has tokenizers + transformers
        script = ROOT / "scripts" / "make_peer_tokenizer.py"
        subprocess.run([str(python), str(script), str(tokenizer)], check=True)
    server = ServerProcess(time_scale=TIME_SCALE)
    base_url = await server.start()
    levels: list[dict[str, Any]] = []
    try:
        for rate in args.rates:
            for tool in chosen:
                folder = work / f"{tool.name}-{rate:g}"
                folder.mkdir()
                run = Run(rate, args.arrivals, args.duration, base_url, folder, tokenizer)
                level = await measure(tool, run)
                print(f"{tool.name} at {rate:g} req/s: {level['requests']} requests", flush=True)
                if level["log_tail"]:
                    print(f"  exit {level['exit_code']}:\n{level['log_tail']}", flush=True)
                levels.append(level)
    finally:
        await server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(table(levels))
    load = os.getloadavg()
    versions = {t.name: t.version for t in chosen}
    failed = [
        f"{x['tool']} at {x['rate']:g} ({'killed' if x['exit_code'] is None else x['exit_code']})"
        for x in levels
        if x["exit_code"] != 0
    ]
    notes = (
        f"\n\nClients: {', '.join(f'{k} {v}' for k, v in versions.items())}; {args.arrivals} "
        f"arrivals, {args.duration:g} s per rate, {PROMPT_TOKENS}-token prompts, {OUTPUT_TOKENS} "
        f"output tokens, one client at a time against one serve-local (time scale {TIME_SCALE}). "
        f"Exit codes: {'all 0' if not failed else 'not 0 for ' + ', '.join(failed)}. "
        "Lateness vs ideal: each arrival against first + i/R, moved so none is early (it "
        "understates a client's lateness by its least one; arrival_fidelity.md has ours against "
        "its exact schedule). CPU while sending: the client's whole process tree between its "
        "first and last arrival. Load average (1 / 5 / 15 min) before: "
        f"{' / '.join(f'{x:.1f}' for x in load_before)}; at the end: "
        f"{' / '.join(f'{x:.1f}' for x in load)} on {os.cpu_count()} cores (clients, "
        f"server and other work share them). {VLLM_NOT_RUN}\n"
    )
    command = "python benchmarks/arrival_peers.py " + " ".join(sys.argv[1:])
    data = {
        "machine": machine_record(),
        "clients": versions,
        "levels": levels,
        "load_average_before": load_before,
        "load_average": load,
        "vllm": VLLM_NOT_RUN,
    }
    write_result("arrival_peers", command.strip(), table(levels) + notes, data, quick=args.quick)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[50.0, 200.0, 500.0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per rate")
    parser.add_argument("--arrivals", choices=("constant", "poisson"), default="constant")
    names = ("ours", "guidellm", "aiperf")
    parser.add_argument("--tools", nargs="+", default=list(names), choices=names)
    parser.add_argument(
        "--venvs",
        type=Path,
        default=ROOT / ".venv-peers",
        help="the peers' venvs (scripts/make_peer_fixtures.sh makes them)",
    )
    parser.add_argument("--quick", action="store_true", help="1 s per rate, nothing recorded")
    args = parser.parse_args()
    if args.quick:
        args.duration = 1.0
    if not 0 < args.duration <= 10 or any(not 0 < r <= 2000 for r in args.rates):
        parser.error("--duration takes 0..10 s and --rates 0..2000 req/s")
    if max(args.rates) * args.duration * 1.2 > LOG_CAPACITY:
        parser.error(f"rate x duration must stay under {LOG_CAPACITY / 1.2:,.0f} requests")
    try:
        chosen = tools(args.tools, args.venvs.resolve())
    except ValueError as exc:
        parser.error(str(exc))
    return event_loop.run(_main(args, chosen))


if __name__ == "__main__":
    raise SystemExit(main())
