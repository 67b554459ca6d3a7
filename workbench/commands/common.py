"""What several subcommands share: target flags, the built-in provider, error output."""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from workbench.core.access.keys import key_from_env
from workbench.core.access.providers import Protocol, Provider
from workbench.core.foundation.errors import classify_exception, list_refusal
from workbench.core.foundation.redaction import install_log_redaction, redact
from workbench.core.foundation.results import Target
from workbench.core.foundation.terminal import printable_lines
from workbench.core.models.catalog import Catalog
from workbench.core.protocols.base_url import normalize_base_url
from workbench.core.protocols.registry import auth_for, protocol_names, protocol_of
from workbench.core.protocols.wire import model_page
from workbench.core.run.plan import (
    LOCAL_PROVIDER,
    ModelFacts,
    catalog_id,
    model_facts,
    resolve_target,
)
from workbench.core.transport.clients import (
    ClientOptions,
    ClientPool,
    ProxyUnsupported,
    make_client,
)
from workbench.core.transport.provider_connection import ProviderUnusable, connect

if TYPE_CHECKING:
    import openai

install_log_redaction()  # every CLI log line goes through `redact`


def fail(message: str) -> None:
    # redacted, and what a server or a config said is shown, never obeyed by the terminal
    print(f"error: {printable_lines(redact(message))}", file=sys.stderr)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
_UNITS = {"": 1, "k": 1024, "m": 1024 * 1024}


def parse_int_list(text: str, low: int = 1, high: int | None = None) -> list[int]:
    """'1K,4K,32768' -> [1024, 4096, 32768]; K = 1024, M = 1048576 (token counts, binary).

    Every value must be a whole number of tokens within low..high (1.5K is 1536; 1.5 is not).
    """
    values = []
    bounds = f"{low:,}..{high:,}" if high is not None else f"at least {low:,}"
    for part in text.split(","):
        match = _SIZE.match(part)
        if not match:
            raise argparse.ArgumentTypeError(
                f"'{part}' is not a token count; use numbers like 4096, 32K or 1M "
                f"({bounds}; K = 1024, M = 1048576)"
            )
        number = Decimal(match.group(1)) * _UNITS[match.group(2).lower()]
        if number != number.to_integral_value():
            raise argparse.ArgumentTypeError(
                f"'{part.strip()}' is {number} tokens, not a whole number; use e.g. 4096 or 4K"
            )
        value = int(number)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"'{part.strip()}' is {value:,} tokens; it must be {bounds} (e.g. 1K, 32K, 1M)"
            )
        values.append(value)
    return values


def int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number within low..high; the error names `what` and the range."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be a whole number {low:,}..{high:,}, got {text!r}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be {low}..{high}, got {value}")
        return value

    return parse


def float_in(
    low: float, high: float, what: str, *, low_open: bool = False
) -> Callable[[str], float]:
    """An argparse type: a finite number within low..high (above low when `low_open`)."""
    bounds = f"above {low:g} and at most {high:g}" if low_open else f"from {low:g} to {high:g}"

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            value = math.nan
        above_low = value > low if low_open else value >= low
        if not (math.isfinite(value) and above_low and value <= high):
            raise argparse.ArgumentTypeError(f"{what} must be a number {bounds}, got {text!r}")
        return value

    return parse


def add_target_args(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--base-url", metavar="URL", help="an OpenAI-compatible endpoint, e.g. https://host/v1"
    )
    where.add_argument(
        "--provider",
        metavar="NAME",
        help="a saved provider (`workbench providers list`): its URL, key, headers, proxy, "
        "TLS, timeouts and models",
    )
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable that holds the API key for --base-url "
        "(with --provider: use it instead of the saved key reference)",
    )
    add_protocol_arg(p)
    local = p.add_argument_group(
        "built-in local provider (when neither --base-url nor --provider is given)"
    )
    add_simulation_args(local)


def add_protocol_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--protocol",
        choices=protocol_names(),
        default=None,
        help="the wire protocol: chat (POST /chat/completions), responses (OpenAI Responses, "
        "POST /responses) or anthropic (Anthropic Messages, POST /messages, key as x-api-key). "
        "Default: the saved provider's protocol, else chat. Example: --base-url "
        "http://127.0.0.1:4000/v1 --protocol anthropic --model claude-sonnet-4-5",
    )


def gpu_profile(text: str) -> str:
    """An argparse type: a GPU profile the cost model knows (the error lists them)."""
    from kernels_bridge.analytic import get_profile

    try:
        return get_profile(text).key
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_simulation_args(group: argparse._ActionsContainer) -> None:
    """--time-scale, --gpu, --tp, --jitter: how the built-in provider simulates its models."""
    from workbench.local.costmodel import MAX_JITTER, MAX_TENSOR_PARALLEL, MAX_TIME_SCALE

    group.add_argument(
        "--time-scale",
        type=float_in(0, MAX_TIME_SCALE, "the time scale"),
        default=1.0,
        help=f"multiply the simulated delays, 0..{MAX_TIME_SCALE:g} "
        "(0.1 = ten times faster; ratios hold)",
    )
    group.add_argument(
        "--gpu",
        type=gpu_profile,
        default=None,
        help="GPU profile for the simulated models: H100, H200, H800, A100, RTX4090",
    )
    group.add_argument(
        "--tp",
        type=int_in(1, MAX_TENSOR_PARALLEL, "the tensor-parallel degree"),
        default=None,
        metavar="T",
        help=f"tensor-parallel degree for the 70B twins, 1..{MAX_TENSOR_PARALLEL}",
    )
    group.add_argument(
        "--jitter",
        type=float_in(0, MAX_JITTER, "jitter"),
        default=0.0,
        help=f"relative random spread of simulated token times, 0..{MAX_JITTER:g} (seeded)",
    )


def add_transport_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--transport",
        choices=("aiohttp", "httpx"),
        default="aiohttp",
        help="HTTP client under the openai SDK (see benchmarks/results)",
    )


@dataclass
class Endpoint:
    provider: str
    base_url: str
    api_key: str | None
    models: set[str] | None  # None when the server has no model list
    options: ClientOptions = field(default_factory=ClientOptions)
    saved: Provider | None = None  # the saved provider behind --provider
    protocol: Protocol = "chat"  # --protocol, else the saved provider's

    def register(self, pool: ClientPool) -> None:
        """Make the runner's `pool.get(base_url, key)` use this endpoint's headers/proxy/TLS."""
        pool.configure(self.base_url, self.options)

    def model_facts(self, catalog: Catalog, model: str) -> ModelFacts:
        """Attention, prices and context window: the saved provider's entry over the catalog."""
        return model_facts(catalog, model, self.saved, self.provider)

    def target(self, catalog: Catalog, model: str, route: str | None = None) -> Target:
        """A Target on this endpoint, with its facts and the saved provider's limits."""
        return resolve_target(
            catalog, self.provider, self.base_url, model, self.saved, route, self.protocol
        )

    def serves(self, model: str) -> bool:
        if self.models is None:
            return True  # nothing to check against; the request will say
        return catalog_id(self.provider, model) in self.models  # e.g. sim-70b-gqa+429


async def start_local_provider(args: argparse.Namespace, stack: AsyncExitStack) -> str:
    """Start the built-in provider in-process for this command; it stops with the stack."""
    from workbench.local.costmodel import SimSettings
    from workbench.local.server import LocalServer

    settings = SimSettings(
        gpu=args.gpu, tensor_parallel=args.tp, time_scale=args.time_scale, jitter=args.jitter
    )
    server = LocalServer(settings=settings)
    await server.start()
    stack.push_async_callback(server.stop)
    return server.base_url


MODEL_LIST_TIMEOUT_S = 60.0


MAX_MODEL_PAGES = 20  # of Anthropic's paged list, 1,000 models each


async def list_models(
    base_url: str,
    api_key: str | None,
    options: ClientOptions | None = None,
    protocol: str = "chat",
    auth: str | None = None,
) -> set[str] | None:
    """The ids a server lists under /models, asked with the protocol's headers (Anthropic's
    x-api-key and anthropic-version); raises for connection and auth failures."""
    import openai

    opts = options or ClientOptions()
    client = make_client(
        base_url,
        api_key,
        connect_timeout_s=opts.connect_timeout_s,
        headers=dict(opts.headers),
        proxy=opts.proxy,
        verify_tls=opts.verify_tls,
    )
    try:
        # a list that trickles in must not hang the command before any request is sent
        async with asyncio.timeout(MODEL_LIST_TIMEOUT_S):
            return await _model_ids(client, protocol, auth_for(protocol, auth))
    except openai.NotFoundError:
        return None
    except TimeoutError:
        raise TimeoutError(
            f"the model list took longer than {MODEL_LIST_TIMEOUT_S:g} s to arrive"
        ) from None
    finally:
        await client.close()


async def _model_ids(client: openai.AsyncOpenAI, protocol: str, auth: str) -> set[str]:
    """Every id of the list; Anthropic's comes in pages (`has_more`, `after_id`)."""
    ids: set[str] = set()
    query: dict[str, object] = {}
    for _ in range(MAX_MODEL_PAGES):
        page = await model_page(client, protocol, auth, query)
        ids |= {m.id for m in page.data}
        last = getattr(page, "last_id", None)
        if not (getattr(page, "has_more", False) is True and isinstance(last, str)):
            break
        query = {"after_id": last}  # Anthropic's next page
    return ids


def load_saved_provider(name: str) -> Provider | None:
    """The saved provider `name`, printing the store's warning; None after printing why not."""
    from workbench.core.saved.provider_store import (
        ProviderConfigError,
        get_provider,
        load_providers,
    )

    found = load_providers()
    if found.warning:  # quotes the hand-editable file: no control characters reach the terminal
        print(f"warning: {printable_lines(redact(found.warning))}", file=sys.stderr)
    try:
        return get_provider(name)
    except ProviderConfigError as exc:
        fail(str(exc))
        return None


async def resolve_endpoint(
    args: argparse.Namespace, stack: AsyncExitStack, catalog: Catalog
) -> Endpoint | None:
    """Where to send requests: --provider, --base-url, or the built-in provider.

    None after printing why not (the caller exits 2).
    """
    if getattr(args, "provider", None):
        return await _saved_endpoint(args)
    if getattr(args, "base_url", None):
        try:
            normalized = normalize_base_url(args.base_url)
        except ValueError as exc:
            fail(str(exc))
            return None
        base_url = normalized.url
        for note in normalized.notes:
            print(f"note: base URL {base_url}: {note}", file=sys.stderr)
        api_key = None
        if args.api_key_env:
            api_key = key_from_env(args.api_key_env)
            if not api_key:
                fail(
                    f"environment variable {args.api_key_env} is empty or not set; "
                    f"export it in this shell first"
                )
                return None
        protocol: Protocol = getattr(args, "protocol", None) or "chat"
        models = await _server_models(base_url, api_key, ClientOptions(), protocol, None)
        if models is False:
            return None
        host = re.sub(r"^https?://", "", base_url).split("/")[0]
        return Endpoint(host, base_url, api_key, models, protocol=protocol)
    base_url = await start_local_provider(args, stack)
    return Endpoint(LOCAL_PROVIDER, base_url, None, {m.id for m in catalog.simulated()})


async def _server_models(
    base_url: str,
    api_key: str | None,
    options: ClientOptions,
    protocol: str = "chat",
    auth: str | None = None,
) -> set[str] | Literal[False] | None:
    """The server's model ids, None for no list, False after printing the classified failure."""
    try:
        return await list_models(base_url, api_key, options, protocol, auth)
    except ProxyUnsupported as exc:
        fail(str(exc))
        return False
    except TimeoutError as exc:
        fail(
            f"{base_url}: {exc}: the server answers, but too slowly (a stalled server, or a "
            "gateway waiting on its upstream); check its load and try again"
        )
        return False
    except Exception as exc:  # report the classified cause, not a traceback
        diag = list_refusal(classify_exception(exc, "", False, protocol_of(protocol)))
        fail(f"{base_url}: {diag.message}")
        return False


async def _saved_endpoint(args: argparse.Namespace) -> Endpoint | None:
    provider = load_saved_provider(args.provider)
    if provider is None:
        return None
    for warning in provider.warnings():
        print(f"warning: {printable_lines(redact(warning))}", file=sys.stderr)
    api_key = None
    if getattr(args, "api_key_env", None):
        api_key = key_from_env(args.api_key_env)
        if not api_key:
            fail(
                f"environment variable {args.api_key_env} is empty or not set; "
                f"export it in this shell first"
            )
            return None
    try:
        connection = connect(provider, api_key)
    except ProviderUnusable as exc:
        fail(str(exc))
        return None
    api_key, options = connection.api_key, connection.options
    protocol: Protocol = getattr(args, "protocol", None) or provider.protocol
    models = await _server_models(provider.base_url, api_key, options, protocol, provider.auth)
    if models is False:
        return None
    return Endpoint(provider.name, provider.base_url, api_key, models, options, provider, protocol)
