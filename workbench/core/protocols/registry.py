"""The protocols the client speaks, by name: the one place a protocol is registered.

`--protocol`, providers.toml's `protocol`, the pane's and the provider form's choices, the
doctor's probes and every request read them from here. A protocol added elsewhere (a test's, a
plugin's) calls `register` before it is named.
"""

from __future__ import annotations

from workbench.core.protocols.anthropic import ANTHROPIC
from workbench.core.protocols.base import ClientProtocol
from workbench.core.protocols.chat import CHAT
from workbench.core.protocols.responses import RESPONSES

_REGISTERED: dict[str, ClientProtocol] = {}


def register(protocol: ClientProtocol) -> ClientProtocol:
    """Add `protocol` under its name (a name taken by another protocol is an error)."""
    held = _REGISTERED.get(protocol.name)
    if held is not None and held is not protocol:
        raise ValueError(f"a protocol named '{protocol.name}' is registered already")
    _REGISTERED[protocol.name] = protocol
    return protocol


def unregister(name: str) -> None:
    """Remove a protocol added for a while (a test's); the built-in ones stay."""
    if name in BUILT_IN:
        raise ValueError(f"'{name}' is built in")
    _REGISTERED.pop(name, None)


def protocol_of(name: str) -> ClientProtocol:
    """The protocol named `name`; a ValueError that lists the known ones otherwise."""
    found = _REGISTERED.get(name)
    if found is None:
        raise ValueError(f"unknown protocol '{name}'; use one of {', '.join(protocol_names())}")
    return found


def protocol_names() -> tuple[str, ...]:
    """The registered protocols' names, in the order the choices list them."""
    return tuple(_REGISTERED)


def protocols() -> tuple[ClientProtocol, ...]:
    return tuple(_REGISTERED.values())


def auth_for(protocol: str, auth: str | None) -> str:
    """How a key is sent: as the provider says, else the protocol's own way."""
    return auth or protocol_of(protocol).auth


BUILT_IN = tuple(register(p).name for p in (CHAT, RESPONSES, ANTHROPIC))
