"""The network baseline of one target: the client-to-server overhead that prefill speed subtracts.

Measured on the chat path the requests themselves take (docs/metrics.md, "Network baseline"):
a minimal streamed request with `max_tokens=1`, timed from sending to the first SSE event, the
median of a few. A gateway's own work on a chat request (auth, routing, opening the upstream
stream) is part of that path and missing from a `GET /models`, which under-corrects. Only when
the chat path cannot be used (the request fails before any event) does the baseline fall back to
`GET /models` round trips; the method used is recorded with every row. A provider that speaks
another protocol (Anthropic Messages, OpenAI Responses) is timed on its own request path the
same way, and the method names that protocol.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.protocols.wire import model_page, stream_request
from workbench.core.transport.clients import BASELINE_TIMEOUT_S, network_baseline_ms
from workbench.core.transport.streaming import RequestSpec

if TYPE_CHECKING:
    import openai

# "models", or the protocol whose request path was timed (a registered protocol's name)
BaselineMethod = str
BASELINE_SAMPLES = 3
# The shortest prompt every chat template accepts; one output token keeps it off the bill.
BASELINE_MESSAGES: tuple[dict[str, str], ...] = ({"role": "user", "content": "Hi"},)
# A sample that hit a limit says nothing about the path's overhead (an endless stream, say).
_TIMEOUTS = (ErrorClass.FIRST_TOKEN_TIMEOUT, ErrorClass.STALL, ErrorClass.TOTAL_TIMEOUT)


@dataclass(frozen=True)
class Baseline:
    """A target's baseline in ms and how it was measured; both None when nothing answered."""

    ms: float | None = None
    method: BaselineMethod | None = None


async def chat_first_event_ms(
    client: openai.AsyncOpenAI,
    model: str,
    timeout_s: float = BASELINE_TIMEOUT_S,
    protocol: str = "chat",
    auth: str = "bearer",
) -> float | None:
    """Send one minimal streamed request; ms from sending to its first SSE event, or None when
    no event came (refused, unreachable, not a stream) or the request ran into `timeout_s`."""
    spec = RequestSpec(
        messages=[dict(m) for m in BASELINE_MESSAGES],
        max_tokens=1,
        first_token_timeout_s=timeout_s,
        stall_timeout_s=timeout_s,
        total_timeout_s=timeout_s,
        protocol=protocol,
        auth=auth,
    )
    result = await stream_request(client, RequestResult(model=model), spec)
    if result.t_send is None or result.t_first_chunk is None or result.http_status != 200:
        return None
    if result.error_class in _TIMEOUTS:
        return None
    return (result.t_first_chunk - result.t_send) / 1e6


async def measure_baseline(
    client: openai.AsyncOpenAI,
    model: str,
    samples: int = BASELINE_SAMPLES,
    protocol: str = "chat",
    auth: str = "bearer",
) -> Baseline:
    """The chat-path baseline of (client's base URL, model); `GET /models` when the chat path
    cannot be used; an empty Baseline when neither answers. The first failed sample ends the
    chat path's attempt, so a refusing server costs at most one `timeout_s` there; one that
    answers each sample just inside it costs `samples + 1` of them (4 x 10 s by default)."""
    times: list[float] = []
    # the first request opens the pooled connection (and wakes a lazy gateway), which the
    # measured requests then reuse: it is sent, but not timed
    for _ in range(samples + 1):
        ms = await chat_first_event_ms(client, model, protocol=protocol, auth=auth)
        if ms is None:
            break
        times.append(ms)
    if len(times) == samples + 1:
        return Baseline(statistics.median(times[1:]), protocol)
    # the list asked as the protocol asks, at its path
    models_ms = await network_baseline_ms(
        client, samples, list_once=lambda: model_page(client, protocol, auth)
    )
    return Baseline(models_ms, "models") if models_ms is not None else Baseline()
