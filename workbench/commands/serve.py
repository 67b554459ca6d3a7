"""`workbench serve-local`: the built-in provider (three protocols) as a standalone server."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import sys

from workbench.commands.common import add_simulation_args, int_in
from workbench.local.request_body import DEFAULT_TOTAL_BODY_BYTES


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from workbench.local.costmodel import MAX_BATCHED_TOKENS, MAX_NUM_SEQS

    p = sub.add_parser(
        "serve-local",
        help="serve the simulated models over OpenAI chat, OpenAI Responses and Anthropic Messages",
        description="Serve the built-in simulated models on 127.0.0.1 until Ctrl-C: "
        "/v1/chat/completions, /v1/responses and /v1/messages (Anthropic API version 2023-06-01).",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on. Any other than loopback (127.0.0.0/8, "
        "::1, localhost) lets other machines in, over plain HTTP: it needs --api-key-env",
    )
    p.add_argument(
        "--port",
        type=int_in(0, 65535, "the port"),
        default=8765,
        help="TCP port, 1..65535; 0 picks a free one (default 8765)",
    )
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="require the key in this variable as 'Authorization: Bearer <key>' "
        "(Anthropic's /v1/messages also takes 'x-api-key: <key>')",
    )
    p.add_argument(
        "--v1-only",
        action="store_true",
        help="answer only under /v1 (by default the routes also answer without it)",
    )
    p.add_argument(
        "--max-body-total-mib",
        type=int_in(1, 1 << 20, "--max-body-total-mib"),
        default=DEFAULT_TOTAL_BODY_BYTES // 1024**2,
        metavar="MIB",
        help="request-body MiB read at once across all connections; a request beyond it gets "
        "503 with Retry-After (one body is at most 256 MiB)",
    )
    add_simulation_args(p)
    p.add_argument(
        "--seed", type=int, default=0, help="seed of --jitter: the same seed, the same delays"
    )
    p.add_argument(
        "--kernel-csv",
        metavar="PATH|h200",
        default=None,
        help="take per-token attention time from a kernel CSV's measured latencies: a path, "
        "or h200 for the sweep shipped with the app (one H200, every simulated model's own "
        "shape). Models on another GPU, or whose shape and variant the CSV lacks, keep the "
        "analytic model",
    )
    p.add_argument(
        "--no-batching",
        action="store_true",
        help="time every request as if it had the replica to itself (no queue, no shared "
        "batch): the model before continuous batching",
    )
    p.add_argument(
        "--max-num-seqs",
        type=int_in(1, MAX_BATCHED_TOKENS, "--max-num-seqs"),
        default=MAX_NUM_SEQS,
        metavar="N",
        help=f"sequences one model's batch holds at most, as vLLM's --max-num-seqs "
        f"(default {MAX_NUM_SEQS}); more requests wait in its queue",
    )
    p.add_argument(
        "--exit-with-stdin",
        action="store_true",
        help="stop when standard input closes (how the app ties this server to its own life)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_serve(args))


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: only this machine can connect."""
    if host.strip().lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # another host name, or "" (every interface)
        return False


def _stop_on_stdin_eof(stop: asyncio.Event) -> None:
    """Set `stop` when stdin reaches EOF: the parent closed it, or died."""
    import sys
    import threading

    loop = asyncio.get_running_loop()

    def watch() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=watch, name="stdin-watch", daemon=True).start()


async def _serve(args: argparse.Namespace) -> int:
    from workbench.commands.common import fail
    from workbench.core.access.keys import key_from_env
    from workbench.local.costmodel import SimSettings, load_kernel_csv
    from workbench.local.server import serve_forever

    api_key = key_from_env(args.api_key_env) if args.api_key_env else None
    if args.api_key_env and not api_key:
        fail(f"environment variable {args.api_key_env} is empty or not set")
        return 2
    if not is_loopback(args.host):
        print(
            f"warning: --host {args.host} is not loopback: other machines can reach this server, "
            "over plain HTTP (no TLS)",
            file=sys.stderr,
            flush=True,
        )
        if api_key is None:
            fail(
                f"serve-local refuses to listen on {args.host} without a key; add "
                "--api-key-env VAR (a variable holding the key clients must send), "
                "or use --host 127.0.0.1"
            )
            return 2
    if args.kernel_csv is not None:
        try:
            measured = load_kernel_csv(args.kernel_csv)
        except ValueError as exc:
            fail(str(exc))
            return 2
        # stderr: the first stdout line is the "listening at" line the app waits for.
        print(
            f"measured attention from {args.kernel_csv} ({measured.device or 'device unknown'}"
            f", {len({k for k, _ in measured.shape_points})} shapes): "
            f"{', '.join(measured.variants())}",
            file=sys.stderr,
            flush=True,
        )
    try:  # refused here, before listening: a server must never answer 500 to every request
        settings = SimSettings(
            gpu=args.gpu,
            tensor_parallel=args.tp,
            time_scale=args.time_scale,
            jitter=args.jitter,
            seed=args.seed,
            kernel_csv=args.kernel_csv,
            batching=not args.no_batching,
            max_num_seqs=args.max_num_seqs,
        )
    except ValueError as exc:
        fail(str(exc))
        return 2
    try:
        stop = asyncio.Event()
        if args.exit_with_stdin:
            _stop_on_stdin_eof(stop)
        await serve_forever(
            host=args.host,
            port=args.port,
            api_key=api_key,
            allow_no_v1=not args.v1_only,
            settings=settings,
            max_body_total=args.max_body_total_mib * 1024**2,
            stop_event=stop,
            announce=lambda line: print(line, flush=True),
        )
    except ValueError as exc:  # a host name that cannot even be encoded
        fail(f"cannot listen on {args.host}:{args.port} ({exc}); check --host")
        return 2
    except OSError as exc:
        fail(
            f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); "
            f"pick another --port or stop the program using it"
        )
        return 2
    return 0
