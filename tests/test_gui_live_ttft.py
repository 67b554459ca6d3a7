"""The pane's live TTFT counts from the send stamp, as the final figure does (issue 14).

A request that was due while the client's loop was busy leaves later than its `RequestStarted`;
that wait is `dispatch_ms`, never TTFT, in the live figure as in the recorded one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from tests.support.gui_driver import run_for, until
from tests.support.scripted_server import ScriptedServer, chunk
from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import RequestResult
from workbench.core.planning.run_events import (
    RequestFinished,
    RequestStarted,
    RunEvent,
    RunFinished,
    TextDelta,
)
from workbench.core.planning.run_plan import RunPlan
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.ui.panes_model import PaneState

HELD_S = 0.4  # the loop is held this long between the request's start and its send
USAGE = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
SCRIPT = [
    (0, chunk(role="assistant")),
    (0.05, chunk("Hello")),
    (1.5, chunk(" world")),  # the pane is looked at in this gap, while the request streams
    (0, chunk(finish="stop")),
    (0, chunk(usage=USAGE)),
    (0, "[DONE]"),
]


def _ms(figure: str) -> float:
    assert figure.endswith(" ms"), figure
    return float(figure.removesuffix(" ms").replace(",", ""))


def test_live_ttft_counts_from_the_send_not_from_a_held_dispatch(window, loop) -> None:
    session, widget = window.session, window.pane_set.widgets[0]
    seen: dict[str, str] = {}
    result_box: list[RequestResult] = []

    async def events(server: ScriptedServer) -> AsyncIterator[RunEvent]:
        target = replace(session.panes[0].target, base_url=server.base_url)
        client = make_client(server.base_url, None)
        result = RequestResult(model=target.model, base_url=server.base_url)
        result_box.append(result)
        deltas: asyncio.Queue[TextDelta] = asyncio.Queue()
        result.t_intended = time.perf_counter_ns()
        yield RequestStarted(result.request_id, target, 0, 0, False, result.t_intended)
        time.sleep(HELD_S)  # a busy loop: the request is due, its bytes are not yet written
        spec = RequestSpec([{"role": "user", "content": "hi"}], max_tokens=8)
        task = asyncio.ensure_future(stream_chat(client, result, spec, deltas.put_nowait))
        yield await asyncio.wait_for(deltas.get(), 10)  # "Hello"
        # the pane repaints on its frame timer: read the live figure as a user would
        await until(lambda: widget.figures.text("ttft") != "–", timeout=10)
        seen["live"] = widget.figures.text("ttft")
        seen["state"] = session.panes[0].state
        await asyncio.wait_for(task, 10)
        await client.close()
        while not deltas.empty():
            yield deltas.get_nowait()
        yield RequestFinished(result, derive(result), target)
        yield RunFinished("live-ttft", "finished", (result,))

    async def scenario() -> None:
        async with ScriptedServer(SCRIPT) as server:
            plan = RunPlan(targets=(session.panes[0].target,), prompt_lengths=(128,))
            await session._consume(events(server), plan)

    run_for(loop, scenario(), timeout=30)
    (result,) = result_box
    assert result.ok, result.error_message
    metrics = derive(result)
    assert seen["state"] is PaneState.STREAMING  # read while the request was still streaming
    # the wait before the send is dispatch_ms, and the live TTFT leaves it out
    assert metrics.dispatch_ms is not None and metrics.dispatch_ms >= HELD_S * 1000
    assert _ms(seen["live"]) == pytest.approx(metrics.ttft_ms, abs=1.0)
    assert _ms(seen["live"]) < HELD_S * 1000 / 2
    # once finished (the run's last frame repainted it), the pane shows derive()'s figure
    assert _ms(widget.figures.text("ttft")) == pytest.approx(metrics.ttft_ms, abs=1.0)
