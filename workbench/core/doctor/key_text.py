"""The doctor's two pure functions of a key: what is wrong with its text, and whether HTTP
can carry it at all (the header it goes in is the protocol registry's key_header). A leaf: the
doctor's state and its checks both use them, and they use neither."""

from __future__ import annotations

import re

from workbench.core.doctor import messages as msg
from workbench.core.foundation.errors import UnsendableHeader
from workbench.core.foundation.i18n import Phrase, phrase
from workbench.core.transport.clients import check_headers


def key_problems(raw: str | None) -> tuple[str | None, list[Phrase]]:
    """(the key to send, what is wrong with its text). The key text itself is never returned
    inside the problems."""
    if raw is None or raw == "":
        return None, []
    problems: list[Phrase] = []
    key = raw.strip()
    if key != raw:
        where: list[Phrase] = []
        lead, trail = raw[: len(raw) - len(raw.lstrip())], raw[len(raw.rstrip()) :]
        if "\n" in lead or "\r" in lead:
            where.append(phrase(msg.LEADING_NEWLINE))
        elif lead:
            where.append(phrase(msg.LEADING_SPACES))
        if "\n" in trail or "\r" in trail:
            where.append(phrase(msg.TRAILING_NEWLINE))
        elif trail:
            where.append(phrase(msg.TRAILING_SPACES))
        both = (
            phrase(msg.FIRST_SECOND, first=where[0], second=where[1])
            if len(where) == 2
            else where[0]
        )
        problems.append(
            phrase(
                msg.KEY_HAS_WHERE_WHITESPACE_AROUND_COPY,
                where=both,
            )
        )
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        key = key[1:-1].strip()
        problems.append(phrase(msg.KEY_WRAPPED_QUOTES_BECAME_PART))
    if key.lower().startswith("bearer "):
        key = key[7:].strip()
        problems.append(phrase(msg.KEY_STARTS_BEARER_CLIENT_ADDS_WORD))
    if re.search(r"\s", key):
        problems.append(phrase(msg.KEY_HAS_SPACES_INSIDE_INCOMPLETE_JOINED))
    if not key.isascii():
        problems.append(phrase(msg.KEY_HAS_NON_ASCII_CHARACTERS_PROBABLY))
    return key or None, problems


def sendable(key: str) -> bool:
    """Whether a key can go into a header at all (the auth check names what is wrong)."""
    try:
        check_headers(key)
    except UnsendableHeader:
        return False
    return True
