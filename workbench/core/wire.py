"""Sending a request of any protocol through the app's one transport, and choosing its reader.

Anthropic Messages and OpenAI Responses go through the same `openai.AsyncOpenAI` client as chat
completions, by its generic request path (`client.post(path, cast_to=httpx2.Response,
stream=True)`): the same connection pool, proxy route (clients.py), send stamp (send_stamp.py),
body caps, redirect refusal and status errors. The official `anthropic` SDK does not fit that
way: it brings its own client on plain `httpx`, not the `httpx2` the openai SDK here vendors, so
it would need a second proxy mounting, a second send-stamp trace and second body caps, and its
event objects would cost the per-token CPU that made us parse chat's stream ourselves
(docs/metrics.md). Each protocol's body is parsed here too (stream_anthropic.py,
stream_responses.py), by the same reader as chat (streaming.py).
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx2

from workbench.core.clients import NO_KEY
from workbench.core.results import RequestResult
from workbench.core.run_events import TextDelta
from workbench.core.streaming import RequestSpec, stream_chat

if TYPE_CHECKING:
    import openai

ANTHROPIC_VERSION = "2023-06-01"  # the Messages API version we speak; a provider header overrides


async def stream_request(
    client: openai.AsyncOpenAI,
    result: RequestResult,
    spec: RequestSpec,
    on_text: Callable[[TextDelta], None] | None = None,
) -> RequestResult:
    """One streamed request with the protocol `spec.protocol` names; never raises for I/O."""
    result.protocol = spec.protocol
    if spec.protocol == "anthropic":
        from workbench.core.stream_anthropic import stream_anthropic

        return await stream_anthropic(client, result, spec, on_text)
    if spec.protocol == "responses":
        from workbench.core.stream_responses import stream_responses

        return await stream_responses(client, result, spec, on_text)
    return await stream_chat(client, result, spec, on_text)


def protocol_headers(client: openai.AsyncOpenAI, protocol: str, auth: str) -> dict[str, Any]:
    """The headers a protocol's request adds to the client's own: `anthropic-version` (unless
    the provider's headers set it) and, for `x-api-key` auth, the key there instead of in
    `Authorization` (omitted, which the SDK allows)."""
    import openai

    headers: dict[str, Any] = {}
    given = {name.lower() for name in client.default_headers}
    if protocol == "anthropic" and "anthropic-version" not in given:
        headers["anthropic-version"] = ANTHROPIC_VERSION
    if auth == "x-api-key":
        headers["Authorization"] = openai.Omit()
        key = client.api_key
        if key and key != NO_KEY and "x-api-key" not in given:
            headers["x-api-key"] = key
    return headers


class RawPost:
    """A streamed POST by the SDK's generic path, entered like `with_streaming_response`:
    its value has the unread `http_response`, and leaving closes it."""

    def __init__(
        self, client: openai.AsyncOpenAI, path: str, body: dict[str, Any], headers: dict[str, Any]
    ) -> None:
        self.client = client
        self.path = path
        self.body = body
        self.headers = headers
        self.http_response: httpx2.Response | None = None

    async def __aenter__(self) -> RawPost:
        self.http_response = await self.client.post(
            self.path,
            cast_to=httpx2.Response,
            body=self.body,
            options={"headers": self.headers},
            stream=True,
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.http_response is not None:
            await self.http_response.aclose()


def split_system(messages: list[dict[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """(the system prompt, the other messages): both protocols take the system prompt apart
    (Anthropic's `system`, Responses' `instructions`), never as a message role."""
    system = [str(m.get("content", "")) for m in messages if m.get("role") == "system"]
    rest = [m for m in messages if m.get("role") != "system"]
    return ("\n\n".join(system) if system else None), rest
