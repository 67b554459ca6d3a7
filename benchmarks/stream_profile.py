"""Where the client's CPU goes per streamed token (issue 14, Deliver 4).

Streams `--rounds` waves of `--concurrency` requests through `stream_chat` (aiohttp transport)
against `workbench serve-local` in its own process, and reports client CPU per token; with
`--profile` the same under cProfile, printing the top entries by own time and grouping them by
stage (SDK/httpx2 request building, aiohttp reading, our SSE splitting, JSON, bookkeeping,
the event loop).

    .venv/bin/python benchmarks/stream_profile.py                 # CPU per token at c=64
    .venv/bin/python benchmarks/stream_profile.py --profile       # and where it goes
    .venv/bin/python benchmarks/stream_profile.py --loop asyncio  # without uvloop
    .venv/bin/python benchmarks/stream_profile.py --floor         # bare aiohttp, no parsing
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from client_fidelity import MODEL, _time_scale_for

from workbench.core.foundation.results import RequestResult
from workbench.core.transport.clients import make_client, warm_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.process import UNBATCHED, ServerProcess


async def _waves(base_url: str, args: argparse.Namespace) -> tuple[float, int, int]:
    """CPU seconds, tokens and failed requests over all waves (the first wave not counted)."""
    client = make_client(base_url, None, "aiohttp")
    warm_client(client)
    spec = RequestSpec(
        messages=[{"role": "user", "content": "Explain KV caches briefly."}],
        max_tokens=args.tokens,
        first_token_timeout_s=60,
        stall_timeout_s=30,
    )
    # CPU time, not wall time: the loop's idle wait in epoll is not cost
    profiler = cProfile.Profile(time.process_time) if args.profile else None
    cpu, tokens, errors = 0.0, 0, 0
    try:
        for wave in range(args.rounds + 1):  # wave 0 opens the connections
            cpu0 = time.process_time()
            if profiler and wave:
                profiler.enable()
            results = await asyncio.gather(
                *(
                    stream_chat(client, RequestResult(model=MODEL), spec)
                    for _ in range(args.concurrency)
                )
            )
            if profiler and wave:
                profiler.disable()
            if wave:
                cpu += time.process_time() - cpu0
                tokens += sum(len(r.event_times) for r in results)
                errors += sum(not r.ok for r in results)
    finally:
        await client.close()
    if profiler:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
        stats.print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)
        print(out.getvalue())
    return cpu, tokens, errors


async def _floor(base_url: str, args: argparse.Namespace) -> tuple[float, int, int]:
    """The floor under any client on this loop: the same requests through a bare aiohttp
    session, their bodies read and counted ("data:" lines) but not parsed, no SDK, no httpx."""
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Explain KV caches briefly."}],
        "max_tokens": args.tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }

    async def one(http: aiohttp.ClientSession) -> int:
        async with http.post(f"{base_url}/chat/completions", json=body) as resp:
            events = 0
            while piece := await resp.content.read(16384):
                events += piece.count(b"data:")
            return events - 4  # the role, finish and usage chunks and [DONE] carry no token

    cpu, tokens = 0.0, 0
    async with aiohttp.ClientSession() as http:
        for wave in range(args.rounds + 1):  # wave 0 opens the connections
            cpu0 = time.process_time()
            counts = await asyncio.gather(*(one(http) for _ in range(args.concurrency)))
            if wave:
                cpu += time.process_time() - cpu0
                tokens += sum(counts)
    return cpu, tokens, 0


async def _main(args: argparse.Namespace) -> None:
    server = ServerProcess(time_scale=_time_scale_for(args.interval_ms), extra=UNBATCHED)
    base_url = await server.start()
    try:
        measure = _floor if args.floor else _waves
        cpu, tokens, errors = await measure(base_url, args)
    finally:
        await server.stop()
    print(
        f"{'bare aiohttp floor ' if args.floor else ''}loop={args.loop} c={args.concurrency} "
        f"rounds={args.rounds} tokens={tokens} "
        f"errors={errors} client CPU per token: {cpu / max(1, tokens) * 1e6:.1f} µs"
        + (" (under cProfile)" if args.profile else "")
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tokens", type=int, default=100)
    p.add_argument("--interval-ms", type=float, default=20.0)
    p.add_argument("--loop", choices=["auto", "asyncio"], default="auto")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--floor", action="store_true", help="bare aiohttp reads: the loop's floor")
    p.add_argument("--top", type=int, default=40)
    args = p.parse_args()
    if args.loop == "auto":
        from workbench.core.system.loop import run

        run(_main(args))
    else:
        asyncio.run(_main(args))


if __name__ == "__main__":
    main()
