"""Run by LiteLLM's own venv (tests/test_local_protocols_litellm.py): LiteLLM's Python SDK as a
third-party parser of serve-local's Anthropic Messages and OpenAI Responses wires.

    .venv-litellm/bin/python tests/support/litellm_protocol_client.py ROOT_URL

prints one JSON line per case: what LiteLLM made of the answer (text, usage, finish, error).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import litellm

MODEL = "sim-70b-gqa"
USER = [{"role": "user", "content": "Explain why long prompts slow decoding down."}]


def usage_of(usage: Any) -> dict[str, Any]:
    details = getattr(usage, "completion_tokens_details", None)
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "reasoning_tokens": getattr(details, "reasoning_tokens", None),
    }


async def anthropic_stream(root: str, model: str) -> dict[str, Any]:
    stream = await litellm.acompletion(
        model=f"anthropic/{model}",
        api_base=root,
        api_key="unused",
        messages=USER,
        max_tokens=12,
        stream=True,
        stream_options={"include_usage": True},
    )
    text, finish, usage = "", None, None
    try:
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                text += chunk.choices[0].delta.content
            if chunk.choices and chunk.choices[0].finish_reason:
                finish = chunk.choices[0].finish_reason
            if getattr(chunk, "usage", None):
                usage = usage_of(chunk.usage)
    except Exception as exc:  # what a client of LiteLLM sees of a mid-stream error
        return {"text": text, "error": f"{type(exc).__name__}: {exc}"}
    return {"text": text, "finish": finish, "usage": usage}


async def anthropic_whole(root: str) -> dict[str, Any]:
    answer = await litellm.acompletion(
        model=f"anthropic/{MODEL}+reasoning",
        api_base=root,
        api_key="unused",
        messages=USER,
        max_tokens=16,
    )
    message = answer.choices[0].message
    return {
        "text": message.content,
        "reasoning": getattr(message, "reasoning_content", None),
        "finish": answer.choices[0].finish_reason,
        "usage": usage_of(answer.usage),
    }


async def responses_stream(root: str) -> dict[str, Any]:
    stream = await litellm.aresponses(
        model=f"openai/{MODEL}",
        api_base=f"{root}/v1",
        api_key="unused",
        input=USER[0]["content"],
        max_output_tokens=20,  # OpenAI's minimum is 16: LiteLLM raises a smaller cap
        stream=True,
    )
    text, last = "", None
    async for event in stream:
        # LiteLLM's event types are an Enum of the wire's names
        if getattr(event.type, "value", event.type) == "response.output_text.delta":
            text += event.delta
        last = event
    assert last is not None
    usage = last.response.usage
    return {
        "text": text,
        "id": last.response.id,
        "status": last.response.status,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }


async def main(root: str) -> None:
    cases = {
        "anthropic_stream": anthropic_stream(root, MODEL),
        "anthropic_error": anthropic_stream(root, f"{MODEL}+error"),
        "anthropic_whole": anthropic_whole(root),
        "responses_stream": responses_stream(root),
    }
    for name, case in cases.items():
        print(json.dumps({"case": name, **await asyncio.wait_for(case, 60)}), flush=True)


if __name__ == "__main__":
    litellm.suppress_debug_info = True
    asyncio.run(main(sys.argv[1]))
