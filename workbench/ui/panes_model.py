"""What one pane shows, as plain data the widgets read on each frame (no Qt here).

Runner events land here as they arrive; widgets repaint from these models on a coalescing
timer, never once per token (as Friture's real-time plots do, tlecomte/friture).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from workbench.core.access.providers import Protocol
from workbench.core.foundation.metrics import RequestMetrics, derive
from workbench.core.foundation.results import RequestResult, Target
from workbench.core.protocols.registry import protocol_names


def split_pane_key(key: str) -> tuple[str, str, Protocol | None]:
    """(provider, model, protocol) of a pane's key, 'provider|model' or 'provider|model|protocol';
    None when the key names no protocol: the provider's own."""
    provider, _, rest = key.partition("|")
    model, sep, last = rest.rpartition("|")
    protocol = next((p for p in protocol_names() if p == last), None)
    return (provider, model, protocol) if sep and protocol else (provider, rest, None)


def pane_key(provider_model: str, protocol: str | None = None) -> str:
    """A pane's key from the picker's 'provider|model' and the protocol chosen for the pane."""
    return f"{provider_model}|{protocol}" if protocol else provider_model


def pane_title(target: Target) -> str:
    """The model's name as charts and colours know this pane: with its protocol when not chat,
    so one model through two protocols draws two curves in two colours."""
    return target.model if target.protocol == "chat" else f"{target.model} via {target.protocol}"


class PaneState(StrEnum):
    IDLE = "idle"
    WAITING = "waiting"  # request sent, no token yet (prefill)
    STREAMING = "streaming"
    DONE = "done"
    ERROR = "error"
    STOPPED = "stopped"
    REFUSED = "refused"  # not sent: the pane said its prompt will not fit


@dataclass
class PaneModel:
    """One pane: a target, the live text, live figures, and the cumulative-token curve."""

    target: Target | None = None
    state: PaneState = PaneState.IDLE
    text_parts: list[str] = field(default_factory=list)
    reasoning_chars: int = 0
    events: int = 0
    t_send_ns: int | None = None
    t_first_ns: int | None = None
    t_last_ns: int | None = None
    result: RequestResult | None = None
    error: str | None = None
    curve_t: list[float] = field(default_factory=list)  # seconds since send
    curve_tokens: list[float] = field(default_factory=list)
    text_version: int = 0  # bumps when text changed since the last paint
    request_id: str | None = None
    _derived: tuple[RequestResult, RequestMetrics] | None = field(default=None, repr=False)

    @property
    def metrics(self) -> RequestMetrics | None:
        """The finished request's figures, derived once per result: panes and bars read them on
        every frame, and deriving walks every inter-token gap (~1 ms for 2,000 tokens)."""
        if self.result is None:
            return None
        if self._derived is None or self._derived[0] is not self.result:
            self._derived = (self.result, derive(self.result))
        return self._derived[1]

    def refuse(self, why: str) -> None:
        """Run all did not send this pane's prompt (over its context window): say why."""
        self.reset()
        self.state, self.error = PaneState.REFUSED, why

    def reset(self, request_id: str | None = None, t_send_ns: int | None = None) -> None:
        self.state = PaneState.WAITING if request_id else PaneState.IDLE
        self.text_parts.clear()
        self.reasoning_chars = 0
        self.events = 0
        self.t_send_ns = t_send_ns
        self.t_first_ns = self.t_last_ns = None
        self.result = None
        self.error = None
        self.curve_t.clear()
        self.curve_tokens.clear()
        self.text_version += 1
        self.request_id = request_id

    def add_text(self, text: str, reasoning: bool, t_ns: int, t_send_ns: int | None = None) -> None:
        """`t_send_ns`: the send stamp, when the request's bytes left; the start the pane was
        reset with is when the request was due, which a busy client may have sent much later
        (dispatch_ms), and that wait is no part of TTFT."""
        if self.t_first_ns is None:
            self.t_first_ns = t_ns
            self.state = PaneState.STREAMING
            if t_send_ns is not None:
                self.t_send_ns = t_send_ns
        self.t_last_ns = t_ns
        self.events += 1
        if reasoning:
            self.reasoning_chars += len(text)
        else:
            self.text_parts.append(text)
        self.text_version += 1
        if self.t_send_ns is not None:
            self.curve_t.append((t_ns - self.t_send_ns) / 1e9)
            self.curve_tokens.append(float(self.events))

    def finish(self, result: RequestResult) -> None:
        self.result = result
        if result.ok:
            self.state = PaneState.DONE
        elif result.error_class == "cancelled":
            self.state = PaneState.STOPPED
        else:
            self.state = PaneState.ERROR
            self.error = result.error_message
        # usage gives the true token count: rescale the curve (a chunk may carry several tokens)
        if result.completion_tokens and self.events and self.curve_tokens:
            scale = result.completion_tokens / self.events
            self.curve_tokens = [v * scale for v in self.curve_tokens]
        self.text_version += 1

    @property
    def error_class(self) -> str | None:
        return self.result.error_class if self.result is not None else None

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def tokens(self) -> int:
        if self.result is not None and self.result.completion_tokens is not None:
            return self.result.completion_tokens
        return self.events

    def ttft_ms(self) -> float | None:
        if self.metrics is not None:
            return self.metrics.ttft_ms
        if self.t_send_ns is None or self.t_first_ns is None:
            return None
        return (self.t_first_ns - self.t_send_ns) / 1e6

    def decode_tps(self) -> float | None:
        if self.metrics is not None:
            return self.metrics.decode_tps
        if self.t_first_ns is None or self.t_last_ns is None or self.events < 2:
            return None
        span = (self.t_last_ns - self.t_first_ns) / 1e9
        return (self.events - 1) / span if span > 0 else None

    def elapsed_s(self) -> float | None:
        """Seconds since the request was sent; once finished, its recorded duration (a replay
        shows the original, measured on the recording's own clock)."""
        if self.result is not None:
            if self.result.t_send is None:
                return None
            end = self.result.t_done or self.result.t_last_token or self.result.t_send
            return (end - self.result.t_send) / 1e9
        if self.t_send_ns is None:
            return None
        return (time.perf_counter_ns() - self.t_send_ns) / 1e9

    def cost_usd(self) -> float | None:
        if self.metrics is not None:
            return self.metrics.cost_usd
        return None
