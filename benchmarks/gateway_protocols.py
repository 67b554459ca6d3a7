"""One model, three wire protocols, direct and through LiteLLM (issue 17): what each endpoint
adds to TTFT, against the upstream's own emit log.

The upstream is the built-in provider on a loop of its own thread in this process (so its emit
log is at hand; this process does nothing else while the runs go), LiteLLM runs from its own
venv (`scripts/litellm_proxy.py`) and `workbench bench` as a subprocess per run. The upstream
model reasons first (serve-local's `reasoning` mode), so each endpoint also shows whether the
thinking survived LiteLLM's translation.

- direct: `bench --protocol chat|anthropic|responses` at serve-local, concurrency 8; rows join
  their emit records on response_id. Figure: TTFT minus the server's TTFT (arrival to first
  emit), per row, which issue 17 wants within 5 ms.
- LiteLLM: its /v1/chat/completions, /v1/messages (behind an `openai/` model, which LiteLLM
  sends to the upstream's /v1/responses, and behind a `hosted_vllm/` one, sent to chat) and
  /v1/responses, concurrency 4; the gateway's ids are its own, so rows pair with the upstream's
  completions by the order of their first tokens. Figure: TTFT minus the upstream's TTFT.

    .venv/bin/python benchmarks/gateway_protocols.py
    .venv/bin/python benchmarks/gateway_protocols.py --quick   # a smoke run, nothing recorded
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from gateway_overhead import _litellm_version
from litellm_proxy import model_entry, running_litellm
from machine import machine_record, write_result

from workbench.core.foundation.metrics import percentile
from workbench.local.costmodel import SimSettings
from workbench.local.emitlog import EmitLog, EmitRecord
from workbench.local.server import LocalServer

UPSTREAM = "sim-70b-gqa+reasoning"
KEY_ENV = "GATEWAY_PROTOCOLS_KEY"
DIRECT = ("chat", "anthropic", "responses")
# (name, --protocol, gateway alias); the upstream path each took is read from the emit log
THROUGH_LITELLM = (
    ("/v1/chat/completions", "chat", "gw-openai"),
    ("/v1/messages (openai/ model)", "anthropic", "gw-openai"),
    ("/v1/messages (hosted_vllm/ model)", "anthropic", "gw-vllm"),
    ("/v1/responses", "responses", "gw-openai"),
)


class OrderedEmitLog(EmitLog):
    """The emit log, also in arrival order, so a run's completions are those it added."""

    def __init__(self) -> None:
        super().__init__()
        self.in_order: list[EmitRecord] = []

    def add(self, record: EmitRecord) -> None:
        super().add(record)
        self.in_order.append(record)


@contextmanager
def upstream(time_scale: float) -> Iterator[tuple[str, OrderedEmitLog]]:
    """serve-local on a loop of its own thread; yields its /v1 URL and its emit log."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = LocalServer(settings=SimSettings(time_scale=time_scale, batching=False))
    server.emit_log = log = OrderedEmitLog()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(30)
    try:
        yield server.base_url, log
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def bench(args: argparse.Namespace, base_url: str, key: str | None, *extra: str) -> list[dict]:
    """One `workbench bench` run; its measured rows."""
    with tempfile.TemporaryDirectory(prefix="gateway-protocols-") as scratch:
        out = Path(scratch) / "rows.csv"
        argv = [sys.executable, "-m", "workbench", "bench", "--base-url", base_url, *extra]
        argv += ["--prompt-tokens", str(args.prompt_tokens), "--max-tokens", str(args.max_tokens)]
        argv += ["--csv", str(out), "--no-store", "-q"]
        env = {**os.environ, "WORKBENCH_DATA_DIR": str(Path(scratch) / "data")}
        if key is not None:
            env[KEY_ENV] = key
            argv += ["--api-key-env", KEY_ENV]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
        if done.returncode != 0:
            sys.exit(f"bench exited {done.returncode}:\n{done.stderr[-3000:]}")
        with out.open(newline="", encoding="utf-8") as f:
            return [r for r in csv.DictReader(f) if r["phase"] == "measured"]


def _server_ttft_ms(record: EmitRecord) -> float:
    return (record.chunk_emit_ns[0] - record.t_received_ns) / 1e6


def _decode_tps(record: EmitRecord) -> float:
    emits = record.chunk_emit_ns
    return (len(emits) - 1) / ((emits[-1] - emits[0]) / 1e9)


def _read_ns(row: dict[str, str]) -> float:
    sent = datetime.strptime(row["started_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return sent.timestamp() * 1e9 + float(row["ttft_ms"]) * 1e6


def figures(rows: list[dict], records: list[EmitRecord], by_id: bool) -> dict[str, Any]:
    """TTFT minus the upstream's TTFT per row (joined on id, else paired by first token), the
    decode speeds, the upstream path, and whether usage and thinking came through."""
    if by_id:
        ids = {r.completion_id: r for r in records}
        pairs = [(row, ids[row["response_id"]]) for row in rows]
    else:
        by_read = sorted(rows, key=_read_ns)
        pairs = list(zip(by_read, sorted(records, key=lambda r: r.chunk_emit_ns[0]), strict=True))
    added = [float(row["ttft_ms"]) - _server_ttft_ms(rec) for row, rec in pairs]
    return {
        "n": len(rows),
        "errors": sum(1 for r in rows if r["error_class"]),
        "upstream_path": sorted({r.protocol for r in records}),
        "added_ttft_median_ms": statistics.median(added),
        "added_ttft_p90_ms": percentile(added, 90),
        "added_ttft_max_ms": max(added),
        "rows_within_5ms": sum(1 for a in added if a < 5.0),
        "decode_tps_median": statistics.median(float(r["decode_tps"]) for r in rows),
        "upstream_decode_tps_median": statistics.median(map(_decode_tps, records)),
        "usage_from_upstream": all(
            r["usage_estimated"] == "false" and int(r["completion_tokens"]) == rec.completion_tokens
            for r, rec in pairs
        ),
        "thinking_survived": all(float(r["ttfc_ms"]) > float(r["ttft_ms"]) for r in rows),
    }


def measure(
    args: argparse.Namespace, url: str, log: OrderedEmitLog, key: str | None, model: str,
    protocol: str, concurrency: int,
) -> dict[str, Any]:  # fmt: skip
    """A warm-up run, then the measured one, against the completions it added upstream."""
    extra = ("--model", model, "--protocol", protocol, "--concurrency", str(concurrency))
    bench(args, url, key, *extra, "--repeats", str(concurrency))  # LiteLLM's first calls
    mark = len(log.in_order)
    rows = bench(args, url, key, *extra, "--repeats", str(args.repeats))
    # without the baseline's probes and the calibration, which ask fewer tokens
    records = [r for r in log.in_order[mark:] if r.completion_tokens == args.max_tokens]
    return figures(rows, records, by_id=key is None)


def _line(name: str, f: dict[str, Any]) -> str:
    cells = [
        name,
        f"{f['n']}/{f['errors']}",
        ", ".join(f["upstream_path"]),
        f"{f['added_ttft_median_ms']:+.1f}",
        f"{f['added_ttft_p90_ms']:+.1f}",
        f"{f['added_ttft_max_ms']:+.1f}",
        f"{f['rows_within_5ms']}/{f['n']}",
        f"{f['decode_tps_median']:.1f} ({f['upstream_decode_tps_median']:.1f})",
        "yes" if f["usage_from_upstream"] else "no",
        "yes" if f["thinking_survived"] else "no",
    ]
    return " | ".join(cells)


HEAD = (
    "endpoint | n/err | upstream path | added TTFT med ms | p90 | max | rows < 5 ms | "
    "decode tok/s (upstream) | usage | thinking\n---|---|---|---|---|---|---|---|---|---"
)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--litellm-venv", default=".venv-litellm", help="a venv with litellm[proxy]")
    p.add_argument("--repeats", type=int, default=32)
    p.add_argument("--prompt-tokens", type=int, default=1024)
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--time-scale", type=float, default=1.0)
    p.add_argument("--quick", action="store_true", help="few requests; record nothing")
    args = p.parse_args()
    if args.quick:
        args.repeats, args.max_tokens = 8, 24
    started, load_before = time.monotonic(), os.getloadavg()
    direct: dict[str, dict[str, Any]] = {}
    gateway: dict[str, dict[str, Any]] = {}
    with upstream(args.time_scale) as (url, log), tempfile.TemporaryDirectory() as work:
        for protocol in DIRECT:
            direct[protocol] = measure(args, url, log, None, UPSTREAM, protocol, 8)
        routes = [
            model_entry("gw-openai", UPSTREAM, url),
            model_entry("gw-vllm", UPSTREAM, url, provider="hosted_vllm"),
        ]
        with running_litellm(args.litellm_venv, url, {}, routes, workdir=work) as (gw, key):
            for name, protocol, alias in THROUGH_LITELLM:
                gateway[name] = measure(args, gw, log, key, alias, protocol, 4)
    load_after = os.getloadavg()
    setup = (
        f"\nUpstream: serve-local {UPSTREAM} (time scale {args.time_scale:g}), prompt "
        f"{args.prompt_tokens} tokens, max_tokens {args.max_tokens}, {args.repeats} measured "
        "requests per endpoint after a warm-up run. Added TTFT = the row's TTFT minus the "
        "upstream's own (arrival to first emit). Load average (1 min) before/after: "
        f"{load_before[0]:.1f} / {load_after[0]:.1f}.\n"
    )
    text = (
        "## Direct to serve-local, concurrency 8\n\n" + HEAD + "\n"
        + "\n".join(_line(k, v) for k, v in direct.items())
        + "\n\n## Through LiteLLM, concurrency 4\n\n" + HEAD + "\n"
        + "\n".join(_line(k, v) for k, v in gateway.items()) + "\n" + setup
    )  # fmt: skip
    print(text)
    data = {
        "direct_c8": direct,
        "litellm_c4": gateway,
        "setup": {k: v for k, v in vars(args).items() if k != "litellm_venv"},
        "litellm": _litellm_version(Path(args.litellm_venv)),
        "load_average_1min": [load_before[0], load_after[0]],
        "seconds": round(time.monotonic() - started, 1),
        "machine": machine_record(),
    }
    command = "python benchmarks/gateway_protocols.py " + " ".join(sys.argv[1:])
    write_result("gateway_protocols", command.strip(), text, data, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
