"""OpenAI chat completions (`POST {base_url}/chat/completions`): sent through the SDK's own
`chat.completions` path and read by streaming.StreamReader (streaming.stream_chat)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.protocols.base import ClientProtocol, Hint, anthropic_shaped, json_of

if TYPE_CHECKING:  # the stream's modules load with the first request, not with the window
    import openai

    from workbench.core.foundation.results import RequestResult
    from workbench.core.planning.run_events import TextDelta
    from workbench.core.transport.streaming import RequestSpec

# an Anthropic-shaped 404 on /chat/completions: the URL speaks the other protocol
SPEAKS_ANTHROPIC: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "this base URL answers in the Anthropic Messages API's shape and has no "
        "/chat/completions: it speaks the Anthropic protocol, not chat completions",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        'try --protocol anthropic (or protocol = "anthropic" for the provider)',
    ),
)


FOUND_CHAT: Hint = (
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "this base URL answers POST .../chat/completions in OpenAI's shape: it speaks chat "
        "completions",
    ),
    QT_TRANSLATE_NOOP(
        "ErrorFix",
        "POST .../chat/completions answers at this base URL: use --protocol chat (or protocol = "
        '"chat" for the provider)',
    ),
)


class ChatProtocol(ClientProtocol):
    name = "chat"
    label = QT_TRANSLATE_NOOP("Protocol", "OpenAI chat completions")
    path = "/chat/completions"
    probe_rank = 0
    found_here = FOUND_CHAT

    def body(self, model: str, spec: RequestSpec) -> dict[str, Any]:
        """The body the SDK sends (stream_chat builds it through the SDK)."""
        return {
            "model": model,
            "messages": spec.messages,
            "max_tokens": spec.max_tokens,
            "temperature": spec.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
            **spec.extra_body,
        }

    async def send(
        self,
        client: openai.AsyncOpenAI,
        result: RequestResult,
        spec: RequestSpec,
        on_text: Callable[[TextDelta], None] | None = None,
    ) -> RequestResult:
        from workbench.core.transport.streaming import stream_chat

        return await stream_chat(client, result, spec, on_text, self)

    def missing_path(self, body: str) -> Hint | None:
        # only an answer in Anthropic's shape says which protocol the URL speaks
        return SPEAKS_ANTHROPIC if anthropic_shaped(json_of(body)) else None

    def hints(self) -> tuple[Hint, ...]:
        return (SPEAKS_ANTHROPIC, FOUND_CHAT)


CHAT = ChatProtocol()
