"""The protocol choices of the pane and the provider form, from the client's protocol registry:
each protocol's translated label with the request it sends."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from workbench.core.protocols.base import ClientProtocol
from workbench.core.protocols.registry import protocols


def protocol_text(protocol: ClientProtocol) -> str:
    """'Anthropic Messages (POST /messages)' in the UI's language; the path is never
    translated."""
    label = QCoreApplication.translate("Protocol", protocol.label)
    text = QCoreApplication.translate("Protocol", "%1 (POST %2)")
    return text.replace("%1", label).replace("%2", protocol.path)


def protocol_texts() -> dict[str, str]:
    """Every registered protocol's text by its name, in the choices' order."""
    return {p.name: protocol_text(p) for p in protocols()}
