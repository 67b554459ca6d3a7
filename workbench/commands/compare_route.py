"""`workbench bench --compare-route DIRECT_URL GATEWAY_URL`: one model, direct and via a gateway.

The two routes are two targets of one run. They reach one upstream, so they never run at once:
at each concurrency level (`--concurrency 1,8,32`) the direct route runs, then the gateway, so
drift over the run hits both alike. Flags are checked before anything starts (exit 2 names the
cause and the fix); the comparison itself is `workbench/core/history/route_compare.py`.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import AsyncExitStack
from pathlib import Path

from workbench.commands.common import Endpoint, fail, int_in, resolve_endpoint
from workbench.core.foundation.results import Target
from workbench.core.history.route_compare import LevelComparison, RouteName
from workbench.core.models.catalog import Catalog
from workbench.core.planning.run_plan import MAX_CONCURRENCY
from workbench.core.protocols.base_url import normalize_base_url


def concurrency_levels(text: str) -> list[int]:
    """--concurrency: one level, or (with --compare-route) a list like 1,8,32."""
    parse = int_in(1, MAX_CONCURRENCY, "concurrency")
    levels = [parse(part) for part in text.split(",")]
    if len(set(levels)) != len(levels):
        raise argparse.ArgumentTypeError(f"concurrency levels repeat in {text!r}; list each once")
    return levels


def add_compare_args(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("gateway overhead (direct vs gateway)")
    group.add_argument(
        "--compare-route",
        nargs=2,
        metavar=("DIRECT_URL", "GATEWAY_URL"),
        help="measure --model direct and through a gateway as two targets of one run; print "
        "the gateway's added TTFT and its change of decode tok/s and e2e per concurrency level",
    )
    group.add_argument(
        "--gateway-model",
        metavar="ID",
        help="the model's id at the gateway, when it differs (an alias); default: --model",
    )
    group.add_argument(
        "--gateway-key-env",
        metavar="VAR",
        help="environment variable holding the gateway's key (--api-key-env is the direct one)",
    )
    group.add_argument(
        "--chart",
        metavar="PATH.png",
        help="with --compare-route: write a chart of the added TTFT (median, p90) per level",
    )


def check_compare_args(args: argparse.Namespace) -> str | None:
    """The first flag that does not fit the route comparison, with its fix; None when fine."""
    if len(args.concurrency) > 1 and not args.compare_route:
        return (
            "argument --concurrency: a list of levels runs only with --compare-route; "
            "give one number, e.g. --concurrency 8"
        )
    if not args.compare_route:
        for flag, value in (
            ("--gateway-model", args.gateway_model),
            ("--gateway-key-env", args.gateway_key_env),
            ("--chart", args.chart),
        ):
            if value is not None:
                return f"{flag} belongs to a route comparison; add --compare-route DIRECT GATEWAY"
        return None
    if args.base_url or args.provider:
        return (
            "--compare-route takes its two URLs itself; drop --base-url/--provider "
            "(keys: --api-key-env for the direct route, --gateway-key-env for the gateway)"
        )
    if len(args.model) != 1:
        return (
            "--compare-route measures one model on two routes; give --model once "
            "(and --gateway-model when the gateway calls it differently)"
        )
    if len(args.prompt_tokens) != 1:
        return "--compare-route runs one prompt length; give one --prompt-tokens value"
    if args.simultaneous:
        return (
            "--compare-route never runs the two routes at once: they share one upstream, so "
            "each would measure the other's load; drop --simultaneous"
        )
    return _check_urls(args.compare_route) or _check_chart(args.chart)


def _check_urls(urls: list[str]) -> str | None:
    normalized = []
    for name, url in zip(("DIRECT_URL", "GATEWAY_URL"), urls, strict=True):
        try:
            normalized.append(normalize_base_url(url).url)
        except ValueError as exc:
            return f"--compare-route {name}: {exc}"
    if normalized[0] == normalized[1]:
        return (
            f"--compare-route: both routes are {normalized[0]}; give the upstream's own URL "
            "first and the gateway's second"
        )
    return None


def _check_chart(chart: str | None) -> str | None:
    if chart is None:
        return None
    path = Path(chart).expanduser()
    if path.suffix.lower() != ".png":
        return f"--chart {chart}: the chart is written as PNG; give a path ending in .png"
    folder = path.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        return f"--chart {chart}: the folder {folder} is missing or not writable; pick another"
    if path.is_dir():
        return f"--chart {chart} is a folder; give a file name inside it, e.g. {path / 'c.png'}"
    return None


async def route_endpoints(
    args: argparse.Namespace, stack: AsyncExitStack, catalog: Catalog
) -> dict[RouteName, Endpoint] | None:
    """Each route's endpoint (URL, key, model list); None after saying which one failed."""
    endpoints: dict[RouteName, Endpoint] = {}
    routes: tuple[tuple[RouteName, str, str | None], ...] = (
        ("direct", args.compare_route[0], args.api_key_env),
        ("gateway", args.compare_route[1], args.gateway_key_env),
    )
    for route, url, key_env in routes:
        one = argparse.Namespace(provider=None, base_url=url, api_key_env=key_env)
        endpoint = await resolve_endpoint(one, stack, catalog)
        if endpoint is None:
            print(f"  (that was the {route} route, {url})", file=sys.stderr)
            return None
        endpoint.provider = f"{route} {endpoint.provider}"  # two rows in every summary
        endpoints[route] = endpoint
    return endpoints


def route_model(args: argparse.Namespace, route: RouteName) -> str:
    model: str = args.model[0]
    return (args.gateway_model or model) if route == "gateway" else model


def route_target(endpoint: Endpoint, model: str, route: RouteName, catalog: Catalog) -> Target:
    return endpoint.target(catalog, model, route)


def write_chart(levels: list[LevelComparison], chart: str, model: str) -> None:
    """Draw the chart with Qt (offscreen without a display); says so when it cannot. The run's
    exit code stands: its rows are complete in the CSV and the history either way."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from workbench.ui.route_chart import write_route_chart
    except ImportError as exc:
        fail(f"Qt cannot load ({exc}), so no chart was drawn; the table and the CSV are complete")
        return
    try:
        write_route_chart(levels, Path(chart).expanduser(), model)
    except OSError as exc:
        fail(f"the chart {chart} could not be written ({exc.strerror or exc}); pick another path")
        return
    print(f"Wrote the chart to {chart}")
