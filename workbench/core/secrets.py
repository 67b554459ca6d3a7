"""API keys: where they come from, and the one redaction function every output goes through.

A key's text never leaves the process: logs, error messages, CSV, the database and the UI all
pass through `redact`. Keys that the process resolves are registered here so that even a key
with no recognisable shape is masked.
"""

from __future__ import annotations

import os
import re
import threading

_MASK = "***"
_known: set[str] = set()
_lock = threading.Lock()

# Shapes that look like credentials even when we never resolved them ourselves.
_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),  # OpenAI-style and most gateways
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-~+/=]{8,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|token|authorization|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]{6,}"
    ),
    re.compile(r"(?i)([?&](?:api[_-]?key|key|token)=)[^&\s]+"),
]


def register_secret(value: str | None) -> None:
    """Remember a key so `redact` masks it wherever it appears."""
    if value and len(value.strip()) >= 4:
        with _lock:
            _known.add(value)
            _known.add(value.strip())


def redact(text: str | None) -> str:
    """Mask every known key and anything shaped like one."""
    if not text:
        return text or ""
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, _MASK)
    for pattern in _PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + _MASK, text)
        else:
            text = pattern.sub(_MASK, text)
    return text


def key_from_env(var: str) -> str | None:
    """Read a key from an environment variable, registering it for redaction."""
    value = os.environ.get(var)
    if value:
        register_secret(value)
    return value
