"""Tokens without visible text are their own failure, with advice about the tokenizer, not the
model id; a stream with no tokens at all stays `empty_response`."""

from __future__ import annotations

import pytest
from scripted_server import ScriptedServer, Step, chunk

from workbench.core.foundation.error_messages import cause_and_fix
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat

SPEC = RequestSpec(messages=[{"role": "user", "content": "hi"}], max_tokens=32)


async def _run(script: list[Step]) -> RequestResult:
    async with ScriptedServer(script) as server:
        client = make_client(server.base_url, None, "httpx")
        try:
            return await stream_chat(client, RequestResult(model="m"), SPEC)
        finally:
            await client.close()


def _usage(completion: int) -> dict[str, int]:
    return {"prompt_tokens": 5, "completion_tokens": completion, "total_tokens": 5 + completion}


@pytest.mark.parametrize(
    ("finish", "completion"), [("length", 32), ("stop", 7), ("length", 0)], ids=str
)
async def test_tokens_without_visible_text_are_no_visible_text(
    finish: str, completion: int
) -> None:
    script: list[Step] = [(0, chunk("", role="assistant"))]
    script += [(0, chunk("")) for _ in range(4)]  # special tokens the server does not decode
    script += [(0, chunk(finish=finish)), (0, chunk(usage=_usage(completion))), (0, "[DONE]")]
    result = await _run(script)
    assert result.error_class is ErrorClass.NO_VISIBLE_TEXT
    assert f"completion_tokens={completion}" in (result.error_message or "")
    cause, fix = cause_and_fix(result.error_class)
    assert "special tokens" in cause and "UTF-8" in cause
    assert "chat template" in fix and "max_tokens" in fix and "model id" not in fix


async def test_a_stream_with_no_tokens_at_all_stays_empty_response() -> None:
    script: list[Step] = [(0, chunk("", role="assistant")), (0, chunk(finish="stop"))]
    script += [(0, chunk(usage=_usage(0))), (0, "[DONE]")]
    result = await _run(script)
    assert result.error_class is ErrorClass.EMPTY
