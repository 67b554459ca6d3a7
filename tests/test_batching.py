"""serve-local under load: continuous batching with a KV-memory budget (docs/local-provider.md,
"Batching"). A real `workbench serve-local` process, the openai SDK as the client; the expected
figures come from the cost model (`SimTiming.batch_step_s`) and the memory rule
(`core/memory_fit.kv_budget`, `kv_per_sequence`), read here, never restated."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import statistics
import time
from typing import Any

import aiohttp
import openai

from workbench.core.foundation.results import RequestResult
from workbench.core.models.catalog import ModelInfo, load_catalog
from workbench.core.planning.memory_fit import kv_budget, kv_per_sequence
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.costmodel import SimSettings, SimTiming
from workbench.local.process import ServerProcess
from workbench.local.server import LocalServer
from workbench.local.tokenizer import count_prompt_tokens, count_tokens


def prompt_of(tokens: int) -> list[dict[str, str]]:
    """A user message of about `tokens` prompt tokens (the provider's own tokenizer)."""
    sentence = "Every decoded token reads the whole KV cache of every layer once. "
    text = sentence * (tokens // count_tokens(sentence))
    return [{"role": "user", "content": text}]


async def stream(
    client: openai.AsyncOpenAI, model: str, messages: list[dict[str, str]], max_tokens: int
) -> dict[str, Any]:
    """One streamed completion through the app's own client (the openai SDK sends it; the
    SSE is read with plain json, fast enough for 16 streams): send time, each text event's
    arrival (perf_counter seconds), the completion id."""
    sent = time.perf_counter()
    result = await stream_chat(
        client, RequestResult(model=model), RequestSpec(messages=messages, max_tokens=max_tokens)
    )
    assert result.ok, result.error_message
    return {"sent": sent, "times": [t / 1e9 for t in result.event_times], "id": result.response_id}


def median_gap(times: list[float]) -> float:
    return statistics.median(b - a for a, b in itertools.pairwise(times))


def catalog_model(model_id: str) -> ModelInfo:
    model = load_catalog().get(model_id)
    assert model is not None
    return model


async def server_json(base_url: str, path: str) -> Any:
    async with aiohttp.ClientSession() as http, http.get(f"{base_url}/_emit_log/{path}") as r:
        assert r.status == 200, await r.text()
        return await r.json()


async def test_decode_slows_with_batch_size_as_the_roofline_says() -> None:
    """One request alone steps at the single-sequence interval; eight together share every
    step, whose time grows by each sequence's KV read: per-request tok/s drops by the ratio
    the cost model gives (sim-70b-mha at 4K: 18.4 ms alone, 26.2 ms in a batch of 8). Eight
    and 64 tokens (a median of 63 gaps): sixteen and 128 took 9 s of the serial tier, most of
    it the batch's sixteen 4K prefills, for no more proof."""
    scale, length, out, batch = 0.5, 4096, 64, 8
    model_id = "sim-70b-mha"
    messages = prompt_of(length)
    prompt = count_prompt_tokens(messages)
    timing = SimTiming(load_catalog().get(model_id), SimSettings(time_scale=scale))
    mid = prompt + out // 2
    alone_s, batch_s = timing.batch_step_s([mid], 1), timing.batch_step_s([mid] * batch, 1)
    server = ServerProcess(time_scale=scale)
    client = make_client(await server.start(), None)
    try:
        await stream(client, model_id, [{"role": "user", "content": "Hi."}], 4)  # warm-up
        one = await stream(client, model_id, messages, out)
        many = await asyncio.gather(
            *(stream(client, model_id, messages, out) for _ in range(batch))
        )
    finally:
        await client.close()
        await server.stop()
    assert len(one["times"]) == out and all(len(r["times"]) == out for r in many)
    alone = median_gap(one["times"])
    together = statistics.median(median_gap(r["times"]) for r in many)
    assert math.isclose(alone, alone_s, rel_tol=0.1), (alone, alone_s)
    assert math.isclose(together, batch_s, rel_tol=0.1), (together, batch_s)
    assert math.isclose(together / alone, batch_s / alone_s, rel_tol=0.12)


async def test_a_request_beyond_the_kv_budget_queues_and_the_budget_holds() -> None:
    """sim-70b-mha at 32K: N requests' KV caches fit the replica's memory beside its weights,
    the (N+1)th waits until one of them ends (its TTFT includes the wait), and no step of the
    server ever holds more KV cache than the budget."""
    scale, length, out = 0.02, 32_768, 400
    catalog = load_catalog()
    model = catalog.get("sim-70b-mha")
    messages = prompt_of(length)
    prompt = count_prompt_tokens(messages)
    timing = SimTiming(model, SimSettings(time_scale=scale))
    budget = kv_budget(model, timing.deployment)
    fits = int(budget // kv_per_sequence(model, timing.deployment, prompt + out))
    assert 2 <= fits < 256  # MHA's cache is the limit here, not --max-num-seqs
    server = ServerProcess(time_scale=scale)
    base_url = await server.start()
    client = make_client(base_url, None)
    try:
        first = [asyncio.create_task(stream(client, model.id, messages, out)) for _ in range(fits)]
        async with asyncio.timeout(60):  # all N admitted: each has its first token
            while not all(t.done() for t in first):
                steps = (await server_json(base_url, f"_steps/{model.id}"))["steps"]
                if steps and steps[-1]["batch"] == fits and steps[-1]["prefill_tokens"] == 0:
                    break
                await asyncio.sleep(0.005)
        last = await stream(client, model.id, messages, out)
        done = await asyncio.gather(*first)
        steps = (await server_json(base_url, f"_steps/{model.id}"))["steps"]
        record = await server_json(base_url, last["id"])
    finally:
        await client.close()
        await server.stop()
    assert max(s["batch"] for s in steps) == fits
    assert max(s["kv_used_bytes"] for s in steps) <= budget
    assert {s["kv_budget_bytes"] for s in steps} == {budget}
    assert any(s["waiting"] == 1 and s["batch"] == fits for s in steps)
    first_end = min(r["times"][-1] for r in done)
    ttft = last["times"][0] - last["sent"]
    # it waited for the first of the N to end, then had its own prefill
    assert ttft >= (first_end - last["sent"]) + 0.8 * timing.ttft_s(prompt), (ttft, first_end)
    assert record["t_admitted_ns"] - record["t_received_ns"] > 0


async def test_mla_admits_more_32k_requests_than_gqa_and_mha_by_their_kv_bytes() -> None:
    """At 32K on the twins' 8×H200 (TP 2 × PP 4) the batch each twin holds at once is its KV
    budget over one request's cache, capped at --max-num-seqs: MHA ~10, GQA ~87, MLA ~156.
    All requests are sent at once; the long output keeps the first ones running until the
    last has arrived."""
    scale, length, out = 0.002, 32_768, 1024
    catalog = load_catalog()
    messages = prompt_of(length)
    prompt = count_prompt_tokens(messages)
    expected: dict[str, int] = {}
    per_token: dict[str, float] = {}
    for kind in ("mha", "gqa", "mla"):
        model = catalog.get(f"sim-70b-{kind}")
        deployment = SimTiming(model, SimSettings()).deployment
        one = kv_per_sequence(model, deployment, prompt + out)
        expected[model.id] = min(256, int(kv_budget(model, deployment) // one))
        per_token[model.id] = one / (prompt + out)
    server = ServerProcess(time_scale=scale)
    base_url = await server.start()
    client = openai.AsyncOpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=600)

    async def one(model_id: str) -> None:
        await client.chat.completions.create(
            model=model_id,
            messages=messages,
            max_tokens=out,  # type: ignore[arg-type]
        )

    held: dict[str, int] = {}
    try:
        await asyncio.gather(*(one(m) for m, n in expected.items() for _ in range(n + 2)))
        for model_id in expected:
            steps = (await server_json(base_url, f"_steps/{model_id}"))["steps"]
            assert any(s["waiting"] >= 1 for s in steps), f"{model_id}: nothing ever queued"
            held[model_id] = max(s["batch"] for s in steps)
    finally:
        await client.close()
        await server.stop()
    assert held == expected
    mha, gqa, mla = (f"sim-70b-{k}" for k in ("mha", "gqa", "mla"))
    assert held[mla] > held[gqa] > held[mha]
    for small, large in ((mla, gqa), (gqa, mha)):
        ratio = per_token[large] / per_token[small]
        assert math.isclose(held[small] / held[large], ratio, rel_tol=1.5 / held[large])


async def test_max_num_seqs_caps_the_batch_and_no_batching_times_each_alone() -> None:
    """`serve-local --max-num-seqs 2`: of three requests sent together, two run and the third
    waits for one of them; with `--no-batching` nothing waits and no step is logged."""
    model = "sim-70b-gqa"
    messages = [{"role": "user", "content": "Explain GQA."}]
    for options, cap in ((("--max-num-seqs", "2"), 2), (("--no-batching",), None)):
        server = ServerProcess(time_scale=0.05, extra=options)
        base_url = await server.start()
        client = make_client(base_url, None)
        try:
            done = await asyncio.gather(*(stream(client, model, messages, 64) for _ in range(3)))
            steps = (await server_json(base_url, f"_steps/{model}"))["steps"]
            records = [await server_json(base_url, r["id"]) for r in done]
        finally:
            await client.close()
            await server.stop()
        if cap is None:
            assert steps == [] and all(r["t_admitted_ns"] is None for r in records)
            continue
        assert max(s["batch"] for s in steps) == cap
        assert any(s["waiting"] == 1 for s in steps)
        late = max(records, key=lambda r: r["t_admitted_ns"])
        others_end = [r["chunk_emit_ns"][-1] for r in records if r is not late]
        # admitted at the end of the step that ended the first of the two, whose last token
        # was written right after that end
        assert 0 <= min(others_end) - late["t_admitted_ns"] < 50e6
        assert late["t_admitted_ns"] > late["t_received_ns"]


async def test_a_client_that_hangs_up_gives_its_place_back() -> None:
    """With room for one sequence, a queued request whose client leaves is dropped from the
    queue, a running one whose client leaves frees the batch, and the next request is served
    at once, as if alone."""
    model = "sim-70b-gqa"
    messages = [{"role": "user", "content": "Explain GQA."}]
    settings = SimSettings(time_scale=0.05, max_num_seqs=1)
    async with LocalServer(settings=settings) as server:
        client = make_client(server.base_url, None)
        batcher = server._timing(catalog_model(model)).batcher
        try:
            running = asyncio.create_task(stream(client, model, messages, 5000))
            async with asyncio.timeout(30):
                while not batcher.running:
                    await asyncio.sleep(0.005)
            queued = asyncio.create_task(stream(client, model, messages, 8))
            async with asyncio.timeout(30):
                while not batcher.waiting:
                    await asyncio.sleep(0.005)
            queued.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await queued
            async with asyncio.timeout(30):
                while batcher.waiting:
                    await asyncio.sleep(0.005)
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            async with asyncio.timeout(30):
                while batcher.running:
                    await asyncio.sleep(0.005)
            assert batcher.kv_used == 0
            after = await stream(client, model, messages, 8)
        finally:
            await client.close()
        record = server.emit_log.get(after["id"])
    assert record is not None and record.queued_ns < 5e6  # admitted on arrival
