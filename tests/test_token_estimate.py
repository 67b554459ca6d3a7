"""One token estimate: prompt sizing and a usage-less stream count tokens the same way."""

from __future__ import annotations

import math

from scripted_server import ScriptedServer, chunk

from workbench.core.foundation.results import RequestResult
from workbench.core.foundation.token_estimate import estimate_tokens
from workbench.core.load.prompts import heuristic_tokens
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat


def test_estimate_counts_words_digits_cjk_and_marks() -> None:
    # "hello" 1, "benchmark" 2 (over 8 letters), "123456" 2, 你好 1.5, "!" 1
    assert heuristic_tokens("hello benchmark 123456 你好!") == 7.5
    assert estimate_tokens("hello benchmark 123456 你好!") == 8
    assert estimate_tokens("") == 0


def test_a_run_of_letters_without_spaces_grows_with_its_length() -> None:
    # a hostile server's 128 KiB "word" must not pass as a couple of tokens
    assert estimate_tokens("z" * 131_072) == 16_384


async def test_usage_less_stream_counts_tokens_as_the_prompt_builder_does() -> None:
    text = "你好世界你好世界 benchmark 2026"
    script = [
        (0, chunk("", role="assistant")),
        (0, chunk(text)),
        (0, chunk("", finish="stop")),
        (0, "[DONE]"),
    ]
    spec = RequestSpec(messages=[{"role": "user", "content": "hi"}], max_tokens=64)
    async with ScriptedServer(script) as server:
        client = make_client(server.base_url, None, "httpx")
        try:
            result = await stream_chat(client, RequestResult(model="m"), spec, lambda _d: None)
        finally:
            await client.close()
    assert result.ok, result.error_message
    assert result.usage_estimated
    assert result.completion_tokens == math.ceil(heuristic_tokens(text)) == 10
