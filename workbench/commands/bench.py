"""`workbench bench`: a comparison or sweep from flags, printed as a table and written as CSV."""

from __future__ import annotations

import argparse
import asyncio
import sys
from contextlib import AsyncExitStack
from pathlib import Path

from workbench.commands.common import (
    add_target_args,
    add_transport_arg,
    fail,
    parse_int_list,
    resolve_endpoint,
)
from workbench.core.catalog import load_catalog
from workbench.core.clients import ClientPool
from workbench.core.csv_export import write_csv
from workbench.core.prompts import PromptBuilder
from workbench.core.providers import DEFAULT_FIRST_TOKEN_TIMEOUT_S, DEFAULT_STALL_TIMEOUT_S
from workbench.core.results import Target
from workbench.core.runner import Progress, RequestFinished, RunFinished, Runner, RunPlan
from workbench.core.store import RunStore, load_calibration, save_calibration
from workbench.core.summary import summarize
from workbench.report import format_summary_table

DEFAULT_CSV = "results.csv"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bench",
        help="compare models or sweep prompt lengths; print a table and write CSV",
        description="Measure TTFT, decode tok/s and more for each model at each prompt length. "
        "With neither --base-url nor --provider it starts the built-in local provider. "
        "With --provider, the saved provider's timeouts apply unless flags override them.",
    )
    add_target_args(p)
    p.add_argument(
        "--model",
        action="append",
        required=True,
        metavar="ID",
        help="model id; repeat for a side-by-side comparison",
    )
    p.add_argument(
        "--prompt-tokens",
        default="32768",
        type=parse_int_list,
        metavar="N[,N...]",
        help="prompt length(s) in tokens, 128..1048576 (default 32768); "
        "suffixes K and M allowed, e.g. 1K,4K,32K",
    )
    p.add_argument("--repeats", type=int, default=1, help="measured requests per cell")
    p.add_argument("--warmup", type=int, default=0, help="warm-up requests per cell, discarded")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument(
        "--concurrency", type=int, default=1, help="requests in flight per model, 1..256"
    )
    p.add_argument(
        "--sequential",
        action="store_true",
        help="run models one after another instead of all at once",
    )
    p.add_argument("--language", choices=("en", "zh"), default="en")
    p.add_argument("--task", choices=("summary", "needle"), default="summary")
    p.add_argument("--needle-depth", type=float, default=0.5)
    p.add_argument(
        "--cache-test",
        action="store_true",
        help="send the same prompt every repeat (no nonce): cold vs warm prefix cache",
    )
    p.add_argument(
        "--first-token-timeout",
        type=float,
        default=None,
        metavar="S",
        help=f"seconds to wait for the first token (default: the provider's, else "
        f"{DEFAULT_FIRST_TOKEN_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--stall-timeout",
        type=float,
        default=None,
        metavar="S",
        help=f"seconds without a token before a stream counts as stalled (default: the "
        f"provider's, else {DEFAULT_STALL_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--total-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds a whole request may take (default: the provider's, else no limit)",
    )
    p.add_argument(
        "--retry-budget",
        type=float,
        default=0.0,
        metavar="S",
        help="retry 429/503 answers that carry Retry-After within this many seconds",
    )
    p.add_argument("--csv", default=DEFAULT_CSV, metavar="PATH", help="where to write the rows")
    p.add_argument("--no-store", action="store_true", help="do not record the run in the history")
    add_transport_arg(p)
    p.set_defaults(func=run)


def _pick(flag: float | None, saved: float | None, default: float) -> float:
    """A flag wins over the saved provider's value, which wins over the default."""
    if flag is not None:
        return flag
    return saved if saved else default


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    async with AsyncExitStack() as stack:
        endpoint = await resolve_endpoint(args, stack, catalog)
        if endpoint is None:
            return 2
        missing = [m for m in args.model if not endpoint.serves(m)]
        if missing:
            for model in missing:
                hints = catalog.suggest(model) or sorted(endpoint.models)[:5]
                fail(
                    f"model '{model}' is not served at {endpoint.base_url}. "
                    f"Did you mean: {', '.join(hints)}? (`workbench models` lists them)"
                )
            return 2
        targets = []
        for model in args.model:
            facts = endpoint.model_facts(catalog, model)
            targets.append(
                Target(
                    provider=endpoint.provider,
                    base_url=endpoint.base_url,
                    model=model,
                    attention=facts.attention,
                    prices=facts.prices,
                    context_window=facts.context_window,
                )
            )
        saved = endpoint.saved
        first_token_s = _pick(
            args.first_token_timeout,
            saved and saved.first_token_timeout_s,
            DEFAULT_FIRST_TOKEN_TIMEOUT_S,
        )
        stall_s = _pick(
            args.stall_timeout, saved and saved.stall_timeout_s, DEFAULT_STALL_TIMEOUT_S
        )
        total_s = (
            args.total_timeout
            if args.total_timeout is not None
            else (saved.total_timeout_s if saved else None)
        )
        try:
            plan = RunPlan(
                targets=tuple(targets),
                prompt_lengths=tuple(args.prompt_tokens),
                repeats=args.repeats,
                concurrency=args.concurrency,
                warmup=args.warmup,
                max_tokens=args.max_tokens,
                temperature=args.temperature,
                mode="sequential" if args.sequential else "parallel",
                language=args.language,
                task=args.task,
                needle_depth=args.needle_depth,
                cache_test=args.cache_test,
                first_token_timeout_s=first_token_s,
                stall_timeout_s=stall_s,
                total_timeout_s=total_s,
                retry_budget_s=args.retry_budget,
                kind="sweep" if len(args.prompt_tokens) > 1 else "comparison",
            )
        except ValueError as exc:
            fail(str(exc))
            return 2
        store = None if args.no_store else RunStore()
        if store is not None:
            store.mark_interrupted()
            stack.callback(store.close)
        pool = ClientPool(args.transport)
        stack.push_async_callback(pool.aclose)
        endpoint.register(pool)  # the provider's headers, proxy and TLS for the runner's clients
        calibration = load_calibration()
        builder = PromptBuilder(calibration)
        runner = Runner(pool, sink=store, keys=lambda _t: endpoint.api_key, builder=builder)
        final: RunFinished | None = None
        print(
            f"Run: {len(targets)} model(s) x {len(plan.prompt_lengths)} length(s), "
            f"{plan.total_requests} requests against {endpoint.base_url}",
            file=sys.stderr,
        )
        async for event in runner.run(plan):
            if isinstance(event, Progress):
                eta = f", ETA {event.eta_s:.0f} s" if event.eta_s is not None else ""
                print(
                    f"  {event.done}/{event.total} done, {event.errors} failed{eta}",
                    file=sys.stderr,
                )
            elif isinstance(event, RequestFinished) and not event.result.ok:
                print(f"  {event.target.model}: {event.result.error_message}", file=sys.stderr)
            elif isinstance(event, RunFinished):
                final = event
        assert final is not None
        save_calibration(calibration)
        rows = [r for r in final.results if not r.warmup]
        print(format_summary_table(summarize(rows)))
        path = Path(args.csv)
        written = write_csv(path, rows)
        print(f"\nWrote {written} rows to {path}" + (f" (run {final.run_id})" if store else ""))
        return 0 if all(r.ok for r in rows) else 3
