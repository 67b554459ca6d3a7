"""Sending a protocol's request through the app's one transport (`PostedProtocol`).

Anthropic Messages and OpenAI Responses go through the same `openai.AsyncOpenAI` client as chat
completions, by its generic request path (`client.post(path, cast_to=httpx2.Response,
stream=True)`): the same connection pool, proxy route (clients.py), send stamp (send_stamp.py),
body caps, redirect refusal and status errors. The official `anthropic` SDK does not fit that
way: it brings its own client on plain `httpx`, not the `httpx2` the openai SDK here vendors, so
it would need a second proxy mounting, a second send-stamp trace and second body caps, and its
event objects would cost the per-token CPU that made us parse chat's stream ourselves
(docs/metrics.md). Each protocol's body is read by a subclass of streaming.StreamReader.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from workbench.core.access.keys import NO_KEY
from workbench.core.protocols.base import ClientProtocol, key_headers

if TYPE_CHECKING:  # the transport loads with the first request, not with the window
    import httpx2
    import openai

    from workbench.core.foundation.results import RequestResult
    from workbench.core.planning.run_events import TextDelta
    from workbench.core.transport.streaming import RequestSpec, StreamReader


def protocol_headers(
    client: openai.AsyncOpenAI, protocol: ClientProtocol, auth: str
) -> dict[str, Any]:
    """The headers a protocol's request adds to the client's own: the protocol's (unless the
    provider's headers set them) and, for `x-api-key` auth, the key there instead of in
    `Authorization` (omitted, which the SDK allows)."""
    import openai

    given = {name.lower() for name in client.default_headers}
    headers: dict[str, Any] = dict(protocol.headers(given))
    if auth == "x-api-key":
        headers["Authorization"] = openai.Omit()
        key = client.api_key
        if key and key != NO_KEY and "x-api-key" not in given:
            headers.update(key_headers(auth, key))
    return headers


class PostedProtocol(ClientProtocol):
    """A protocol sent as a raw streamed POST of its own body and read by its own reader."""

    def prepare(self, spec: RequestSpec) -> RequestSpec:
        """The spec as the protocol sends it (a least output cap, say)."""
        return spec

    @abstractmethod
    def reader(
        self, result: RequestResult, spec: RequestSpec, on_text: Callable[[TextDelta], None] | None
    ) -> StreamReader:
        """The reader of one answer's stream."""

    async def send(
        self,
        client: openai.AsyncOpenAI,
        result: RequestResult,
        spec: RequestSpec,
        on_text: Callable[[TextDelta], None] | None = None,
    ) -> RequestResult:
        from workbench.core.transport.streaming import exchange, stamp_start

        stamp_start(result)
        spec = self.prepare(spec)
        headers = {**protocol_headers(client, self, spec.auth), **spec.extra_headers}
        path = self.request_path(client.base_url)
        post = RawPost(client, path, self.body(result.model, spec), headers)
        return await exchange(post, result, spec, self.reader(result, spec, on_text), self)


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
        import httpx2

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
    """(the system prompt, the other messages): Anthropic's `system` and Responses'
    `instructions` take the system prompt apart, never as a message role."""
    system = [str(m.get("content", "")) for m in messages if m.get("role") == "system"]
    rest = [m for m in messages if m.get("role") != "system"]
    return ("\n\n".join(system) if system else None), rest
