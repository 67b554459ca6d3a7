"""The stream's limits trip when they should, now that one lazy timer watches them all."""

from __future__ import annotations

from scripted_server import ScriptedServer, chunk

from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat

MESSAGES = [{"role": "user", "content": "hi"}]


async def _stream(script: list, spec: RequestSpec) -> RequestResult:
    async with ScriptedServer(script) as server:
        client = make_client(server.base_url, None)
        try:
            return await stream_chat(client, RequestResult(model="m"), spec)
        finally:
            await client.close()


async def test_a_stall_trips_its_limit_after_the_last_token_not_at_the_first_token_limit() -> None:
    script = [(0, chunk("", role="assistant")), (0.1, chunk("one")), (10, chunk("late"))]
    spec = RequestSpec(messages=MESSAGES, first_token_timeout_s=5, stall_timeout_s=0.3)
    result = await _stream(script, spec)
    assert result.error_class is ErrorClass.STALL and result.text == "one"
    waited_s = (result.t_done - result.event_times[-1]) / 1e9
    assert 0.3 <= waited_s < 0.8, waited_s  # the stall limit, not the 5 s first-token limit


async def test_tokens_that_keep_coming_within_the_stall_limit_are_never_cut() -> None:
    """Each token moves the stall limit on; the timer set for the old one must re-arm."""
    tokens = [(0.15, chunk(f"t{i} ")) for i in range(8)]
    script = [(0, chunk("", role="assistant")), *tokens, (0, chunk(finish="stop")), (0, "[DONE]")]
    spec = RequestSpec(messages=MESSAGES, stall_timeout_s=0.25)
    result = await _stream(script, spec)
    assert result.ok, result.error_message
    assert len(result.event_times) == 8  # 1.2 s in all: many times the stall limit


async def test_no_first_token_trips_the_first_token_limit_on_time() -> None:
    script = [(0, chunk("", role="assistant")), (10, chunk("late"))]
    spec = RequestSpec(messages=MESSAGES, first_token_timeout_s=0.4, stall_timeout_s=0.1)
    result = await _stream(script, spec)
    assert result.error_class is ErrorClass.FIRST_TOKEN_TIMEOUT and not result.text
    waited_s = (result.t_done - result.t_send) / 1e9
    assert 0.4 <= waited_s < 0.9, waited_s
