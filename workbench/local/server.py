"""The built-in provider: a real HTTP server on loopback (aiohttp.web) speaking the protocols of
its registry (wires.py), each `POST` at its protocol's path under /v1:

- OpenAI chat completions (wire_chat.py);
- OpenAI Responses (wire_responses.py; the event set of openai-python 2.x/3.x,
  `sequence_number` on every event);
- Anthropic Messages, API version `2023-06-01` (wire_anthropic.py).

Simulated models come from the catalog; their timing (TTFT, per-token interval, KV refusals)
comes from the attention cost model, one schedule for every protocol. See docs/local-provider.md.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web

from workbench.core.models.catalog import Catalog, ModelInfo, load_catalog
from workbench.core.system.wake import sleep_until
from workbench.local.batching import ModelPacing, Pacer
from workbench.local.costmodel import SimSettings, SimTiming
from workbench.local.emitlog import EmitLog, EmitRecord
from workbench.local.faults import (
    FAULT_HEADER,
    MIDSTREAM_ERROR,
    TOKENS_BEFORE_FAULT,
    TOKENS_PER_PACK,
    ApiError,
    UnknownFault,
    error_response,
    parse_faults,
    split_model,
    status_fault,
)
from workbench.local.headers_read import HeadersRead
from workbench.local.request_body import (
    DEFAULT_TOTAL_BODY_BYTES,
    MAX_BODY_BYTES,
    BodyBudget,
    read_json,
)
from workbench.local.textgen import (
    Completion,
    generate,
    is_mostly_chinese,
    last_user_text,
    needle_answer,
    prompt_text,
    seed_for,
)
from workbench.local.tokenizer import prompt_token_parts
from workbench.local.wire import (
    CONTENT_FIELD,
    REASONING_FIELD,
    Answer,
    Job,
    Renderer,
    Wire,
    invalid,
)
from workbench.local.wires import wire_for, wires

REASONING_TOKENS = 40  # at most; never more than half of max_tokens
HEADERS_READ_NS = web.RequestKey[int | None]("headers_read_ns")  # None: not stamped
_SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}


class LocalServer:
    """An OpenAI-compatible streaming server for the catalog's simulated models.

    Use `async with LocalServer(...) as server:` or `await start()` / `await stop()`.
    `server.emit_log.get(completion_id)` tells when each chunk was written.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        allow_no_v1: bool = True,
        settings: SimSettings | None = None,
        catalog: Catalog | None = None,
        stall_seconds: float = 3600.0,
        route_prefixes: tuple[str, ...] | None = None,
        max_body_total: int = DEFAULT_TOTAL_BODY_BYTES,
    ) -> None:
        self.host = host
        self.body_budget = BodyBudget(max_body_total)
        self.api_key = api_key
        self.allow_no_v1 = allow_no_v1
        # e.g. ("/api",): the routes live under /api only, like a gateway whose base URL has no
        # /v1; None: /v1, plus the bare root when allow_no_v1
        if route_prefixes is not None and not route_prefixes:
            raise ValueError("route_prefixes needs at least one prefix, e.g. ('/api',)")
        self.route_prefixes = route_prefixes
        self.settings = settings if settings is not None else SimSettings()
        self.stall_seconds = stall_seconds
        self.emit_log = EmitLog()
        self._catalog: Catalog = catalog if catalog is not None else load_catalog()
        self._models: dict[str, ModelInfo] = {m.id: m for m in self._catalog.simulated()}
        self._timings: dict[str, ModelPacing] = {}
        self._requested_port = port
        self._port: int | None = None
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None
        self.headers_read = HeadersRead()
        self._handlers: set[asyncio.Task[Any]] = set()
        self._salt = itertools.count()

    # lifecycle

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("LocalServer is not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}{self._prefixes()[0]}"

    def _prefixes(self) -> list[str]:
        if self.route_prefixes is not None:
            return [p.rstrip("/") for p in self.route_prefixes]
        return ["/v1", ""] if self.allow_no_v1 else ["/v1"]

    @property
    def models(self) -> list[ModelInfo]:
        return list(self._models.values())

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=MAX_BODY_BYTES)
        for prefix in self._prefixes():
            app.router.add_get(f"{prefix}/models", self._list_models)
            app.router.add_get(f"{prefix}/models/{{model}}", self._get_model)
            for wire in wires():
                app.router.add_post(f"{prefix}{wire.path}", functools.partial(self._post, wire))
            app.router.add_get(f"{prefix}/_emit_log/{{completion_id}}", self._get_emit_record)
            app.router.add_get(f"{prefix}/_emit_log/_steps/{{model}}", self._get_steps)
            app.router.add_get(f"{prefix}/_emit_log/_arrivals/{{model}}", self._get_arrivals)
        # handler_cancellation: a client that hangs up cancels its handler (a stall ends at once)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        assert self._runner.server is not None
        # aiohttp's server, each connection stamped as its requests are read (headers_read.py);
        # a deep accept queue: 256+ clients connecting at once must not wait for SYN retries
        self._listener = await asyncio.get_running_loop().create_server(
            self.headers_read.wrap(self._runner.server),
            self.host,
            self._requested_port,
            backlog=1024,
        )
        self._port = self._listener.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and end open streams at once (they are cut, not finished)."""
        if self._runner is None:
            return
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.wait(list(self._handlers), timeout=2.0)
        for timing in self._timings.values():
            await timing.batcher.close()
        if self._listener is not None:
            self._listener.close()  # no new connections; those open are shut by cleanup()
            self._listener = None
        await self._runner.cleanup()
        self._runner = None

    async def __aenter__(self) -> LocalServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # plumbing

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        # every request, in the order its connection's requests were read
        request[HEADERS_READ_NS] = self.headers_read.take(request.transport)
        wire = _wire_of(request)
        if self.api_key is not None:
            refusal = wire.key_refusal(request.headers, self.api_key)
            if refusal is not None:
                return wire.error(refusal)
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            return await handler(request)
        except web.HTTPNotFound:
            return wire.error(
                ApiError(
                    404,
                    f"Unknown path {request.path}; this server serves {self._prefixes()[0]}/...",
                    code="not_found",
                )
            )
        except web.HTTPMethodNotAllowed:
            return wire.error(
                ApiError(405, f"Method {request.method} not allowed on {request.path}.")
            )
        finally:
            if task is not None:
                self._handlers.discard(task)

    def _timing(self, model: ModelInfo) -> ModelPacing:
        timing = self._timings.get(model.id)
        if timing is None:
            timing = self._timings[model.id] = ModelPacing(
                SimTiming(model, self.settings), self.emit_log.add_step
            )
        return timing

    def _model_not_found(self, name: str) -> ApiError:
        close = [m for m in self._catalog.suggest(name, n=10) if m in self._models][:3]
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        available = "" if close else f" Available models: {', '.join(self._models)}."
        return ApiError(
            404,
            f"The model `{name}` does not exist.{hint}{available}",
            code="model_not_found",
            param="model",
        )

    # routes

    # Both model routes answer in a protocol's own shape when its marker header comes (wires.py).

    async def _list_models(self, request: web.Request) -> web.StreamResponse:
        wire = _wire_of(request)
        faults = _header_faults(request, wire)
        if isinstance(faults, web.Response):
            return faults
        return web.json_response(wire.model_list(self._models.values()))

    async def _get_model(self, request: web.Request) -> web.StreamResponse:
        wire = _wire_of(request)
        faults = _header_faults(request, wire)
        if isinstance(faults, web.Response):
            return faults
        model = self._models.get(request.match_info["model"])
        if model is None:
            return wire.error(self._model_not_found(request.match_info["model"]))
        return web.json_response(wire.model(model))

    async def _get_emit_record(self, request: web.Request) -> web.StreamResponse:
        record = self.emit_log.get(request.match_info["completion_id"])
        if record is None:
            return error_response(404, "No such completion in the emit log.", code="not_found")
        return web.json_response(record.to_json())

    async def _get_steps(self, request: web.Request) -> web.StreamResponse:
        """The model's batch steps still in the log (the last 10,000 of all models)."""
        steps = self.emit_log.steps_of(request.match_info["model"])
        return web.json_response({"steps": [s.to_json() for s in steps]})

    async def _get_arrivals(self, request: web.Request) -> web.StreamResponse:
        """When the model's requests still in the log arrived (the last 10,000 of all models)."""
        arrivals = self.emit_log.arrivals_of(request.match_info["model"])
        return web.json_response({"t_headers_ns": arrivals})

    async def _post(self, wire: Wire, request: web.Request) -> web.StreamResponse:
        return await self._generate(request, wire)

    async def _job(
        self, request: web.Request, wire: Wire
    ) -> tuple[str, ModelInfo, frozenset[str], Job] | web.StreamResponse:
        """The request's model name, model, faults and job; or the answer that refuses it."""
        problem = wire.check_headers(request.headers)
        if problem is not None:
            return wire.error(problem)
        body = await read_json(request, self.body_budget)
        if isinstance(body, ApiError):
            return wire.error(body)
        if not isinstance(body, dict):
            return wire.error(invalid("The request body must be a JSON object."))
        name = body.get("model")
        if not isinstance(name, str) or not name:
            return wire.error(invalid("You must provide a model parameter.", "model"))
        base, suffix = split_model(name)
        try:
            faults = parse_faults(request.headers.get(FAULT_HEADER), suffix)
        except UnknownFault as exc:
            return wire.error(ApiError(400, str(exc), code="unknown_fault"))
        refusal = status_fault(faults)
        if refusal is not None:
            return wire.error(refusal) if isinstance(refusal, ApiError) else refusal
        model = self._models.get(base)
        if model is None:
            return wire.error(self._model_not_found(base))
        job = wire.parse(body)
        if isinstance(job, ApiError):
            return wire.error(job)
        return name, model, faults, job

    async def _generate(self, request: web.Request, wire: Wire) -> web.StreamResponse:
        """One completion in `wire`'s protocol: the same timing, text and emit log for all."""
        t_received_ns = time.perf_counter_ns()
        t_headers_ns = request[HEADERS_READ_NS]
        parsed = await self._job(request, wire)
        if isinstance(parsed, web.StreamResponse):
            return parsed
        name, model, faults, job = parsed
        prompt_tokens = 0
        for part in prompt_token_parts(job.messages):  # a 1M-token prompt: other streams run
            prompt_tokens += part
            await asyncio.sleep(0)
        timing = self._timing(model)
        reason = timing.model.check(prompt_tokens, job.max_tokens)
        if reason is not None:
            code = (
                "context_length_exceeded"
                if prompt_tokens + job.max_tokens > model.context_window
                else "kv_cache_exhausted"
            )
            return wire.error(ApiError(400, reason, code=code, param="messages"))

        completion = self._complete_text(model, job, faults)
        record = EmitRecord(
            completion_id=wire.new_id(),
            model=model.id,
            t_received_ns=t_received_ns,
            t_headers_ns=t_received_ns if t_headers_ns is None else t_headers_ns,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(completion.reasoning) + len(completion.content),
            reasoning_tokens=len(completion.reasoning),
            protocol=wire.protocol,
        )
        self.emit_log.add(record)
        answer = Answer(name, job, completion, record, usage="no-usage" not in faults)
        pacer = timing.pacer(record, job.max_tokens)  # queued in the model's batch
        try:
            if job.stream:
                return await self._stream(request, wire.renderer(answer), answer, pacer, faults)
            return await self._respond(request, wire, answer, pacer, faults)
        finally:
            pacer.close()

    def _complete_text(self, model: ModelInfo, job: Job, faults: frozenset[str]) -> Completion:
        prompt = prompt_text(job.messages)
        temperature, seed = job.temperature, job.seed
        return generate(
            seed=seed_for(
                model.id,
                prompt,
                float(temperature) if isinstance(temperature, int | float) else 1.0,
                seed if isinstance(seed, int) else None,
                self.settings.seed * 1_000_003 + next(self._salt),
            ),
            chinese=is_mostly_chinese(prompt),
            max_tokens=job.max_tokens,
            reasoning_tokens=(
                min(REASONING_TOKENS, job.max_tokens // 2) if "reasoning" in faults else 0
            ),
            answer=needle_answer(prompt, last_user_text(job.messages)),
            stop=job.stop,
        )

    async def _stream(
        self,
        request: web.Request,
        renderer: Renderer,
        answer: Answer,
        pacer: Pacer,
        faults: frozenset[str],
    ) -> web.StreamResponse:
        """Paced by the one schedule: each event is written when its last token is due."""
        response = web.StreamResponse(headers=_SSE_HEADERS)
        record = answer.record
        try:
            await response.prepare(request)
            for event in renderer.opening():
                await response.write(event)
            sent = 0
            shift = 0.0  # a stall pushes the rest of the schedule back
            for field, text, n_tokens in _events(answer.completion, "pack" in faults):
                target = await pacer.take(n_tokens)
                await sleep_until(target + shift)
                now_ns = time.perf_counter_ns()
                record.chunk_emit_ns.append(now_ns)
                if field == CONTENT_FIELD and record.t_first_content_ns is None:
                    record.t_first_content_ns = now_ns
                await response.write(renderer.delta(field, text))
                sent += 1
                if sent == TOKENS_BEFORE_FAULT:
                    if "drop" in faults:
                        _drop(request)
                        return response
                    if "error" in faults:
                        for event in renderer.failure(MIDSTREAM_ERROR):
                            await response.write(event)
                        await response.write_eof()
                        return response
                    if "malformed" in faults:
                        await response.write(renderer.malformed())
                    if "stall" in faults:
                        began = time.perf_counter()
                        await asyncio.sleep(self.stall_seconds)
                        shift += time.perf_counter() - began
            record.finish_reason = answer.completion.finish_reason
            for event in renderer.closing():
                await response.write(event)
            await response.write_eof()
        except ConnectionResetError:
            pass  # the client hung up mid-stream: nothing to tell anyone
        return response

    async def _respond(
        self,
        request: web.Request,
        wire: Wire,
        answer: Answer,
        pacer: Pacer,
        faults: frozenset[str],
    ) -> web.StreamResponse:
        record = answer.record
        target = await pacer.take(max(1, record.completion_tokens))  # at least the prefill
        if "stall" in faults:
            target += self.stall_seconds
        await sleep_until(target)
        if "drop" in faults:
            _drop(request)
            return web.Response(status=200)
        if "error" in faults:
            return wire.error(MIDSTREAM_ERROR)
        record.finish_reason = answer.completion.finish_reason
        text = json.dumps(wire.body(answer), ensure_ascii=False)
        if "malformed" in faults:
            text = text[: len(text) // 2]
        now_ns = time.perf_counter_ns()
        record.chunk_emit_ns.append(now_ns)
        record.t_first_content_ns = now_ns
        return web.Response(text=text, content_type="application/json")


def _events(completion: Completion, pack: bool) -> Iterator[tuple[str, str, int]]:
    """(delta field, text, tokens in it): one token per event, or TOKENS_PER_PACK when packing."""
    size = TOKENS_PER_PACK if pack else 1
    for field, tokens in (
        (REASONING_FIELD, completion.reasoning),
        (CONTENT_FIELD, completion.content),
    ):
        for i in range(0, len(tokens), size):
            group = tokens[i : i + size]
            yield field, "".join(group), len(group)


def _drop(request: web.Request) -> None:
    """Close the TCP connection mid-body, without the chunked terminator."""
    if request.transport is not None:
        request.transport.close()


def _header_faults(request: web.Request, wire: Wire) -> web.Response | None:
    """Status faults asked for by header on the non-completion routes (e.g. 429 on /models)."""
    try:
        fault = status_fault(parse_faults(request.headers.get(FAULT_HEADER), []))
    except UnknownFault as exc:
        return wire.error(ApiError(400, str(exc), code="unknown_fault"))
    return wire.error(fault) if isinstance(fault, ApiError) else fault


def _wire_of(request: web.Request) -> Wire:
    return wire_for(request.path, request.headers)


async def serve_forever(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    api_key: str | None = None,
    allow_no_v1: bool = True,
    settings: SimSettings | None = None,
    stall_seconds: float = 3600.0,
    max_body_total: int = DEFAULT_TOTAL_BODY_BYTES,
    stop_event: asyncio.Event | None = None,
    announce: Callable[[str], None] = print,
) -> None:
    """Run the server until SIGINT/SIGTERM (or `stop_event`), announcing its URL and models."""
    stop = stop_event if stop_event is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (NotImplementedError, RuntimeError):  # Windows, or not the main thread
            pass
    try:
        async with LocalServer(
            host=host,
            port=port,
            api_key=api_key,
            allow_no_v1=allow_no_v1,
            settings=settings,
            stall_seconds=stall_seconds,
            max_body_total=max_body_total,
        ) as server:
            announce(f"Local provider listening at {server.base_url}")
            for model in server.models:
                announce(f"  {model.id}  ({model.attention}, {model.context_window} tokens)")
            await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


__all__ = ["EmitLog", "EmitRecord", "LocalServer", "serve_forever"]
