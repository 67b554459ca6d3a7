"""Sending a request of any registered protocol, and the headers and model list each asks with.

The protocols themselves live in core/protocols/ (one module each, registered in registry.py);
this is where a request names its protocol by the word a provider or a flag gave.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from workbench.core.foundation.results import RequestResult
from workbench.core.planning.run_events import TextDelta
from workbench.core.protocols import post
from workbench.core.protocols.probe import missing_path, name_the_protocol
from workbench.core.protocols.registry import protocol_of
from workbench.core.transport.streaming import RequestSpec

if TYPE_CHECKING:
    import openai
    from openai.pagination import AsyncPage
    from openai.types import Model


async def stream_request(
    client: openai.AsyncOpenAI,
    result: RequestResult,
    spec: RequestSpec,
    on_text: Callable[[TextDelta], None] | None = None,
) -> RequestResult:
    """One streamed request with the protocol `spec.protocol` names; never raises for I/O. A
    row whose protocol's path is missing gets the fix a probe finds (protocols/probe.py)."""
    result.protocol = spec.protocol
    spoken = protocol_of(spec.protocol)
    await spoken.send(client, result, spec, on_text)
    if missing_path(result):
        await name_the_protocol(client, result, spoken)
    return result


def protocol_headers(client: openai.AsyncOpenAI, protocol: str, auth: str) -> dict[str, Any]:
    """The headers a request in `protocol` adds to the client's own (post.protocol_headers)."""
    return post.protocol_headers(client, protocol_of(protocol), auth)


async def model_page(
    client: openai.AsyncOpenAI,
    protocol: str,
    auth: str,
    query: dict[str, object] | None = None,
) -> AsyncPage[Model]:
    """One page of the model list at the protocol's path (its base-URL convention), asked with
    its headers and its query (Anthropic's pages)."""
    from openai.pagination import AsyncPage
    from openai.types import Model

    chosen = protocol_of(protocol)
    options: Any = {
        "headers": post.protocol_headers(client, chosen, auth),
        "params": {**chosen.models_query, **(query or {})},
    }
    path = chosen.models_path(client.base_url)
    return await client.get_api_list(path, model=Model, page=AsyncPage[Model], options=options)
