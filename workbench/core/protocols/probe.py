"""A hint probes before it names another protocol: after a 404/405 on a protocol's path, one
empty POST to each other registered protocol's path at the same base URL (most likely first);
the first that exists and answers in its own shape is the one the row's fix names.

Through the request's own client (its proxy route, headers and key as that protocol sends
them), bounded in time; only a request that already failed for a missing path pays for it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import httpx2

from workbench.core.foundation.errors import Diagnosis, looks_like_html
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.protocols.base import ClientProtocol
from workbench.core.protocols.post import protocol_headers
from workbench.core.protocols.registry import protocols

if TYPE_CHECKING:
    import openai

PROBE_TIMEOUT_S = 5.0  # each probe, in all
PROBE_BODY_CHARS = 16 << 10  # of an error answer's body, what its shape is read from


def missing_path(result: RequestResult) -> bool:
    """Whether the row failed because its protocol's path is not at the base URL."""
    return result.error_class is ErrorClass.NOT_FOUND and result.http_status in (404, 405)


async def answers(client: openai.AsyncOpenAI, protocol: ClientProtocol) -> bool:
    """Whether `protocol`'s path at the client's base URL exists and answers in its shape."""
    import openai

    headers = protocol_headers(client, protocol, protocol.auth)
    path = protocol.request_path(client.base_url)
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            response = await client.post(
                path, cast_to=httpx2.Response, body={}, options={"headers": headers}, stream=True
            )
            await response.aclose()
            return True  # a 2xx even to an empty request: the path is there
    except openai.APIStatusError as exc:
        body = exc.response.text[:PROBE_BODY_CHARS] if exc.response is not None else ""
        kind = exc.response.headers.get("content-type") if exc.response is not None else None
        if exc.status_code in (404, 405) or looks_like_html(kind, body):
            return False
        return protocol.speaks(body)
    except Exception:  # unreachable, too slow, a broken answer: no finding
        return False


async def name_the_protocol(
    client: openai.AsyncOpenAI, result: RequestResult, spoken: ClientProtocol
) -> None:
    """After a missing path, the fix of the first other protocol whose path answers."""
    others = sorted((p for p in protocols() if p is not spoken), key=lambda p: p.probe_rank)
    for other in others:
        if other.found_here is not None and await answers(client, other):
            what, _, rest = (result.error_message or "").partition(". Cause: ")
            cause = rest.partition(". Fix: ")[0] or other.found_here[0]
            status = result.http_status
            found = Diagnosis(ErrorClass.NOT_FOUND, what, cause, other.found_here[1], status)
            result.error_message = found.message
            return
