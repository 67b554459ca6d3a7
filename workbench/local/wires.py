"""The protocols the built-in provider serves: the server side's registry, the mirror of the
client's (core/protocols/registry.py). The server mounts each registered `Wire` at its
protocol's path, and tells a request's protocol by that path; adding a protocol to the built-in
provider is one `Wire` module plus one `register_wire` (docs/architecture.md, "Adding a
protocol").
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.local.wire import Wire
from workbench.local.wire_anthropic import AnthropicWire
from workbench.local.wire_chat import ChatWire
from workbench.local.wire_responses import ResponsesWire

_REGISTERED: dict[str, Wire] = {}


def register_wire(wire: Wire) -> Wire:
    """Serve `wire` from the next server started (its protocol registered on the client side
    first: the route is that protocol's path)."""
    held = _REGISTERED.get(wire.protocol)
    if held is not None and held is not wire:
        raise ValueError(f"a wire for '{wire.protocol}' is registered already")
    wire.path  # noqa: B018 - raises ValueError naming the known protocols for an unknown one
    _REGISTERED[wire.protocol] = wire
    return wire


def unregister_wire(protocol: str) -> None:
    """Remove a wire added for a while (a test's); the built-in ones stay."""
    if protocol in BUILT_IN:
        raise ValueError(f"'{protocol}' is built in")
    _REGISTERED.pop(protocol, None)


def wires() -> tuple[Wire, ...]:
    return tuple(_REGISTERED.values())


def wire_for(path: str, headers: Mapping[str, str]) -> Wire:
    """The protocol a request speaks: by its path, else by a marker header on the shared routes
    (/models), else chat."""
    path = path.rstrip("/")
    served = wires()
    for wire in served:
        if path.endswith(wire.path):
            return wire
    for wire in served:
        if wire.marker_header is not None and wire.marker_header in headers:
            return wire
    return _REGISTERED["chat"]


BUILT_IN = tuple(register_wire(w).protocol for w in (ChatWire(), ResponsesWire(), AnthropicWire()))
