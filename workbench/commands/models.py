"""`workbench models`: what a server lists, with what the catalog knows about each model."""

from __future__ import annotations

import argparse
import asyncio
from contextlib import AsyncExitStack
from typing import Any

from workbench.commands.common import Endpoint, add_target_args, resolve_endpoint
from workbench.core.foundation.redaction import redact, redact_values
from workbench.core.foundation.terminal import json_text, printable
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.models.catalog import Catalog, load_catalog


def _out(line: str) -> None:
    """A line with model ids a server chose: redacted, and no control or bidi characters."""
    print(printable(redact(line)))


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "models",
        help="list a server's models with their attention type",
        description="List the models of --base-url, of a saved --provider, or of the built-in "
        "provider. A saved provider's model entries override the catalog's facts.",
    )
    add_target_args(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print the models as JSON: {base_url, listed, models: [{id, attention, "
        "context_window, display_name, saved, on_server}]}",
    )
    p.set_defaults(func=run)


def _document(endpoint: Endpoint, catalog: Catalog, saved_ids: list[str]) -> dict[str, Any]:
    listed = endpoint.models is not None
    ids = sorted(endpoint.models or ()) + [m for m in saved_ids if m not in (endpoint.models or ())]
    models = []
    for model_id in ids:
        facts = endpoint.model_facts(catalog, model_id)
        models.append(
            {
                "id": model_id,
                "attention": facts.attention,
                "context_window": facts.context_window,
                "display_name": facts.display_name,
                "saved": model_id in saved_ids,
                "on_server": model_id in endpoint.models if endpoint.models is not None else None,
            }
        )
    return {"base_url": endpoint.base_url, "listed": listed, "models": models}


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    async with AsyncExitStack() as stack:
        endpoint = await resolve_endpoint(args, stack, catalog)
        if endpoint is None:
            return 2
        saved_ids = [m.id for m in endpoint.saved.models] if endpoint.saved else []
        if args.json:
            print(json_text(redact_values(_document(endpoint, catalog, saved_ids))))
            return 0
        if endpoint.models is None:
            _out(f"{endpoint.base_url} has no model list (GET /models answered 404)")
            if not saved_ids:
                return 0
            _out(f"{len(saved_ids)} model(s) saved for provider '{endpoint.provider}'")
            listed = saved_ids
        else:
            _out(f"{len(endpoint.models)} model(s) at {endpoint.base_url}")
            listed = sorted(endpoint.models)
        for model_id in listed:
            facts = endpoint.model_facts(catalog, model_id)
            shown = printable(model_id)  # escaped before padding, so the columns line up
            if facts.attention is None and facts.context_window is None:
                _out(f"  {shown}")
                continue
            ctx = f"{tokens_label(facts.context_window)} ctx" if facts.context_window else ""
            attention = facts.attention or "?"
            _out(f"  {shown:<28} {attention:<5} {ctx:>9}  {facts.display_name or ''}".rstrip())
        if endpoint.models is not None:
            missing = [m for m in saved_ids if m not in endpoint.models]
            for model_id in missing:
                _out(
                    f"  warning: saved model '{model_id}' is not in the server's list "
                    f"(`workbench doctor {endpoint.provider} --model {model_id}`)"
                )
    return 0
