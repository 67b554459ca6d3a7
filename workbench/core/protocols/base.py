"""What a wire protocol is to the client: the `ClientProtocol` each protocol module fills in.

The client-side mirror of `local/wire.py`'s `Wire`: one subclass per protocol (chat.py,
anthropic.py, responses.py), registered in registry.py. A protocol holds its name and label, its
request path and base-URL convention, how its key and headers are sent, its body and stream
reader (`send`), its table of error types to HTTP statuses, and the hints its refusals carry.
Everything that sends, measures, checks or shows a protocol reads it from here, so adding one is
one module plus one registration (docs/architecture.md, "Adding a protocol").

This module imports nothing of the app: the layers below the protocols (errors, streaming)
name the type, the registry above them holds the instances.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import openai

    from workbench.core.foundation.results import RequestResult
    from workbench.core.planning.run_events import TextDelta
    from workbench.core.transport.streaming import RequestSpec

Hint = tuple[str, str]  # (cause, fix), each marked QT_TRANSLATE_NOOP("ErrorFix", ...)


class ClientProtocol(ABC):
    """One wire protocol as the client speaks it."""

    name: ClassVar[str]  # the word in providers.toml, --protocol, CSV and JSON
    label: ClassVar[str]  # QT_TRANSLATE_NOOP("Protocol", ...): its name in words
    path: ClassVar[str]  # the request's path under the API root, e.g. "/messages"
    auth: ClassVar[str] = "bearer"  # where the key goes unless the provider says: or x-api-key
    # an error event's type or code → the HTTP status of the same error (protocol_errors.py)
    status: ClassVar[Mapping[str, int]] = {}
    models_query: ClassVar[Mapping[str, object]] = {}  # the model list's query (its pages)
    probe_rank: ClassVar[int] = 9  # the other protocols are probed in this order
    # the fix when a probe finds this protocol's path answering where another's is missing
    # (probe.py): "try --protocol NAME"; None: never named by a probe
    found_here: ClassVar[Hint | None] = None
    # the doctor's cause and fix when the model list answers 200 in another shape, each marked
    # QT_TRANSLATE_NOOP("Doctor", ...); None: the OpenAI list's words (doctor/messages.py)
    unlisted: ClassVar[Hint | None] = None

    def api_root(self, base_url: str) -> str:
        """The URL the protocol's paths and model list hang off, for a base URL as the user
        holds it (without a trailing slash). Most protocols use it as it is."""
        return base_url

    def headers(self, given: Collection[str]) -> dict[str, str]:
        """The protocol's own headers (a version header), left out where `given` (the
        provider's header names, lower case) sets them; the key is not one of them."""
        return {}

    @abstractmethod
    def body(self, model: str, spec: RequestSpec) -> dict[str, Any]:
        """The JSON body of one streamed request."""

    @abstractmethod
    async def send(
        self,
        client: openai.AsyncOpenAI,
        result: RequestResult,
        spec: RequestSpec,
        on_text: Callable[[TextDelta], None] | None = None,
    ) -> RequestResult:
        """Send one streamed request and read its stream into `result`; never raises for I/O."""

    def speaks(self, body: str) -> bool:
        """Whether an error answer's body is in this protocol's shape (the doctor's probe of
        its path): OpenAI's protocols answer JSON that is not Anthropic's error object."""
        data = json_of(body)
        return data is not None and not anthropic_shaped(data)

    def missing_path(self, body: str) -> Hint | None:
        """The cause and fix of a 404/405 on the protocol's path, when the answer says more
        than "not found" (errors.protocol_status); None leaves the plain 404's words."""
        return None

    def refused(self, status: int, body: str) -> Hint | None:
        """The cause and fix of another refusal the protocol explains (a version header)."""
        return None

    def hints(self) -> tuple[Hint, ...]:
        """Every hint the protocol may give, for the doctor to recognise in a row's error."""
        return ()

    def request_path(self, base_url: object) -> str:
        """The request's path relative to a client's base URL, with the convention's prefix."""
        return self._below(base_url) + self.path

    def models_path(self, base_url: object) -> str:
        """The model list's path relative to a client's base URL."""
        return self._below(base_url) + "/models"

    def _below(self, base_url: object) -> str:
        base = str(base_url).rstrip("/")
        root = self.api_root(base).rstrip("/")
        return root[len(base) :] if root.startswith(base) else ""


def json_of(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def anthropic_shaped(data: Any) -> bool:
    """Anthropic's error object, `{"type": "error", "error": {...}}`: the one error shape that
    tells a protocol apart by itself (the others are OpenAI's `{"error": {...}}`)."""
    return isinstance(data, dict) and data.get("type") == "error" and "error" in data


def key_header(auth: str) -> str:
    """The header a key goes in for an auth scheme (providers.AuthScheme)."""
    return "x-api-key" if auth == "x-api-key" else "Authorization"


def key_headers(auth: str, key: str) -> dict[str, str]:
    """The key as `auth` sends it: `Authorization: Bearer <key>`, or `x-api-key: <key>`."""
    name = key_header(auth)
    return {name: f"Bearer {key}" if name == "Authorization" else key}
