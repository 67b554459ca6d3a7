"""The decode span ends at the last token, not the last text (docs/metrics.md, "t_last_token").

Each script is played by a real SSE server on 127.0.0.1 through the openai SDK; the expected
decode speed is computed from the server's own emit times, on the client's clock.
"""

from __future__ import annotations

from typing import Any

from scripted_server import ScriptedServer, Step, chunk

from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import RequestResult
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat

SPEC = RequestSpec(messages=[{"role": "user", "content": "hi"}], max_tokens=64)


async def _measure(script: list[Step]) -> tuple[RequestResult, list[int]]:
    async with ScriptedServer(script) as server:
        client = make_client(server.base_url, None, "httpx")
        try:
            result = await stream_chat(client, RequestResult(model="m"), SPEC)
        finally:
            await client.close()
        return result, server.emit_ns


def _usage(completion: int) -> dict[str, Any]:
    return {"prompt_tokens": 10, "completion_tokens": completion, "total_tokens": 10 + completion}


def _tps(tokens: int, start_ns: int, end_ns: int) -> float:
    return tokens / ((end_ns - start_ns) / 1e9)


async def test_trailing_textless_tokens_extend_the_decode_span() -> None:
    # 20 text tokens, then 20 tokens with empty content (special tokens), then the finish chunk
    script: list[Step] = [(0, chunk("", role="assistant")), (0.05, chunk("w0 "))]
    script += [(0.02, chunk(f"w{i} ")) for i in range(1, 20)]
    script += [(0.02, chunk("")) for _ in range(20)]
    script += [(0.02, chunk(finish="length")), (0, chunk(usage=_usage(40))), (0, "[DONE]")]
    result, emit = await _measure(script)
    assert result.ok and result.completion_tokens == 40
    # emit[1] is the first text, emit[41] the finish chunk: 39 tokens after the first
    truth = _tps(39, emit[1], emit[41])
    measured = derive(result).decode_tps
    assert measured is not None
    assert abs(measured - truth) / truth < 0.1, (measured, truth)  # the text-only span: ~2x


async def test_usage_chunk_ends_the_span_when_no_chunk_has_a_finish_reason() -> None:
    script: list[Step] = [(0.05, chunk("w0 "))]
    script += [(0.02, chunk(f"w{i} ")) for i in range(1, 10)]
    script += [(0.02, chunk("")) for _ in range(10)]
    script += [(0.02, chunk(usage=_usage(20))), (0, "[DONE]")]
    result, emit = await _measure(script)
    assert result.ok and result.finish_reason is None
    truth = _tps(19, emit[0], emit[20])
    measured = derive(result).decode_tps
    assert measured is not None
    assert abs(measured - truth) / truth < 0.1, (measured, truth)


async def test_packed_chunks_leave_the_first_events_tokens_out_of_decode() -> None:
    # 16 events of 4 tokens each: the first event's 4 tokens arrive at TTFT, 60 follow
    script: list[Step] = [(0.05, chunk("a b c d "))]
    script += [(0.05, chunk("a b c d ")) for _ in range(15)]
    script += [(0, chunk(finish="stop")), (0, chunk(usage=_usage(64))), (0, "[DONE]")]
    result, emit = await _measure(script)
    assert result.ok and result.completion_tokens == 64
    truth = _tps(60, emit[0], emit[15])
    measured = derive(result).decode_tps
    assert measured is not None
    # counting 63 tokens in the span would overstate it by 5 %
    assert abs(measured - truth) / truth < 0.025, (measured, truth)


async def test_trailing_tokens_sent_without_events_are_not_taken_for_packed_ones() -> None:
    # transformers serve sends no event at all for a special token: 8 words, then 24 tokens in
    # silence, then the finish chunk. 32 tokens over 8 events is no sign of 4 tokens per event
    script: list[Step] = [(0.05, chunk("w0 "))]
    script += [(0.02, chunk(f"w{i} ")) for i in range(1, 8)]
    script += [(0.02 * 24, chunk(finish="length")), (0, chunk(usage=_usage(32))), (0, "[DONE]")]
    result, emit = await _measure(script)
    assert result.ok and result.completion_tokens == 32 and len(result.event_times) == 8
    truth = _tps(31, emit[0], emit[8])
    measured = derive(result).decode_tps
    assert measured is not None
    assert abs(measured - truth) / truth < 0.03, (measured, truth)  # 4 per event: 28/31


async def test_usage_below_the_text_events_is_suspect_and_decode_uses_the_events() -> None:
    # 20 text events, one token each, but the usage (made up by a gateway) says 12
    script: list[Step] = [(0.05, chunk("w0 "))]
    script += [(0.02, chunk(f"w{i} ")) for i in range(1, 20)]
    script += [(0, chunk(finish="stop")), (0, chunk(usage=_usage(12))), (0, "[DONE]")]
    result, emit = await _measure(script)
    assert result.ok and result.usage_suspect and not result.usage_estimated
    assert result.completion_tokens == 12  # what the server reported is kept
    truth = _tps(19, emit[0], emit[20])
    measured = derive(result).decode_tps
    assert measured is not None
    assert abs(measured - truth) / truth < 0.1, (measured, truth)  # 11 tokens would say ~0.6x


async def test_believable_usage_is_not_suspect() -> None:
    script: list[Step] = [(0, chunk("a b ")), (0.01, chunk("c d ", finish="stop"))]
    script += [(0, chunk(usage=_usage(4))), (0, "[DONE]")]
    result, _ = await _measure(script)
    assert result.ok and not result.usage_suspect
