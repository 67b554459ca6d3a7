"""What the local provider's three protocols share, and what each must supply.

A request of any protocol is reduced to one `Job` (chat-shaped messages, an output cap, the
sampling knobs); the server times, generates and logs it once, and the protocol's `Wire` renders
the answer: a streamed `Renderer`, a whole body, or an error. Timing, faults and the emit log never
depend on the protocol; only the bytes do.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from aiohttp import web

from workbench.core.models.catalog import ModelInfo
from workbench.core.protocols.registry import protocol_of
from workbench.local.emitlog import EmitRecord
from workbench.local.faults import ApiError
from workbench.local.textgen import Completion

DEFAULT_MAX_TOKENS = 256
MODEL_CREATED = 1_700_000_000  # fixed, so /models answers are reproducible
OWNED_BY = "workbench-local"
REASONING_FIELD = "reasoning_content"  # the two kinds of token a completion streams
CONTENT_FIELD = "content"


@dataclass(frozen=True)
class Job:
    """One generation, whichever protocol asked for it."""

    messages: list[dict[str, Any]]  # chat-shaped {role, content}: what tokens and text come from
    max_tokens: int
    stream: bool
    usage: bool  # the client asked for usage in the stream (chat asks; the others always carry it)
    temperature: object = 1.0
    seed: object = None
    stop: tuple[str, ...] = ()
    capped: bool = True  # the client set the output cap (Responses: max_output_tokens given)


@dataclass(frozen=True)
class Answer:
    """What a renderer needs about one completion: the model name asked, the job, the text."""

    name: str
    job: Job
    completion: Completion
    record: EmitRecord
    usage: bool  # usage may be told (False under the `no-usage` fault)


class Renderer(ABC):
    """The bytes of one streamed answer, event by event."""

    @abstractmethod
    def opening(self) -> list[bytes]:
        """Sent as soon as the request is accepted, each item one write."""

    @abstractmethod
    def delta(self, field: str, text: str) -> bytes:
        """One text-bearing event: `field` is REASONING_FIELD or CONTENT_FIELD."""

    @abstractmethod
    def malformed(self) -> bytes:
        """An event whose data is not valid JSON (the `malformed` fault)."""

    @abstractmethod
    def failure(self, error: ApiError) -> list[bytes]:
        """A mid-stream error in the protocol's own shape (the `error` fault)."""

    @abstractmethod
    def closing(self) -> list[bytes]:
        """The finish, usage and end events, each item one write."""


class Wire(ABC):
    """One protocol: its route, its key, its request fields, its answers and its error shape.

    The server-side mirror of the client's `ClientProtocol` (core/protocols/): `protocol` is
    the registered protocol's name, and its route is that protocol's path, written once there.
    """

    protocol: ClassVar[str]
    # a header that marks a request on the shared routes (/models) as this protocol's
    marker_header: ClassVar[str | None] = None

    @property
    def path(self) -> str:
        """The route under each prefix (e.g. "/messages"): the client's path for the protocol."""
        return protocol_of(self.protocol).path

    def key_refusal(self, headers: Mapping[str, str], api_key: str) -> ApiError | None:
        """Why the request's key is refused, or None: OpenAI's `Authorization: Bearer`."""
        auth = headers.get("Authorization", "")
        bearer = auth[len("Bearer ") :].strip() if auth.startswith("Bearer ") else None
        if bearer is None:
            return ApiError(
                401,
                "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.",
                code="invalid_api_key",
            )
        if bearer != api_key:
            return ApiError(401, "Incorrect API key provided.", code="invalid_api_key")
        return None

    def model(self, model: ModelInfo) -> dict[str, Any]:
        """One model as `/models/{id}` answers it: OpenAI's shape unless the protocol has one."""
        return {"id": model.id, "object": "model", "created": MODEL_CREATED, "owned_by": OWNED_BY}

    def model_list(self, models: Iterable[ModelInfo]) -> dict[str, Any]:
        """The `/models` answer in the protocol's shape."""
        return {"object": "list", "data": [self.model(m) for m in models]}

    def check_headers(self, headers: Mapping[str, str]) -> ApiError | None:
        """A header the protocol requires and the request lacks; None when all is there."""
        return None

    @abstractmethod
    def new_id(self) -> str:
        """A fresh id for one answer, in the protocol's style."""

    @abstractmethod
    def parse(self, body: dict[str, Any]) -> Job | ApiError:
        """The job a (JSON object) body asks for, or the 400 that says what is wrong."""

    @abstractmethod
    def error(self, error: ApiError) -> web.Response:
        """`error` as an HTTP answer in the protocol's shape."""

    @abstractmethod
    def renderer(self, answer: Answer) -> Renderer:
        """The stream of `answer`."""

    @abstractmethod
    def body(self, answer: Answer) -> dict[str, Any]:
        """The whole non-streamed answer."""


def positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def invalid(message: str, param: str | None = None) -> ApiError:
    """A 400 for a body the server cannot serve."""
    return ApiError(400, message, param=param)
