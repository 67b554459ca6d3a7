"""`workbench models`: what a server lists, with what the catalog knows about each model."""

from __future__ import annotations

import argparse
import asyncio
from contextlib import AsyncExitStack

from workbench.commands.common import add_target_args, resolve_endpoint
from workbench.core.catalog import load_catalog


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "models",
        help="list a server's models with their attention type",
        description="List the models of --base-url, or of the built-in provider.",
    )
    add_target_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    async with AsyncExitStack() as stack:
        endpoint = await resolve_endpoint(args, stack, catalog)
        if endpoint is None:
            return 2
        if endpoint.models is None:
            print(f"{endpoint.base_url} has no model list (GET /models answered 404)")
            return 0
        print(f"{len(endpoint.models)} model(s) at {endpoint.base_url}")
        for model_id in sorted(endpoint.models):
            info = catalog.get(model_id)
            if info is None:
                print(f"  {model_id}")
                continue
            ctx = f"{info.context_window // 1024}K ctx" if info.context_window else ""
            print(f"  {model_id:<28} {info.attention:<5} {ctx:>9}  {info.display_name}")
    return 0
