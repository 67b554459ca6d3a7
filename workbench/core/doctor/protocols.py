"""What the doctor needs to know of each wire protocol: its request path, the header its key goes
in, its name in words; and, when the chosen protocol's path is not there, which other protocol
the base URL speaks (one cheap probe per other protocol, only after a 404/405)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import Answer, route
from workbench.core.doctor.checks import Check, checked
from workbench.core.i18n import phrase

if TYPE_CHECKING:
    import httpx2

    from workbench.core.doctor.state import Doctor

# the request path each protocol posts to, after the base URL
PATHS = {"chat": "/chat/completions", "responses": "/responses", "anthropic": "/messages"}
NAMES = {
    "chat": "the OpenAI chat protocol (chat completions)",
    "responses": "OpenAI Responses",
    "anthropic": "Anthropic Messages",
}
# the others to try when the chosen one's path is not there, most likely first
_OTHERS = {
    "chat": ("anthropic", "responses"),
    "responses": ("chat", "anthropic"),
    "anthropic": ("chat", "responses"),
}


def speaks(protocol: str, answer: Answer) -> bool:
    """Whether a probe of `protocol`'s path says the server speaks it: an answer in that
    protocol's shape (Anthropic's error object, or OpenAI's), or a 2xx, on a path that exists."""
    if answer.status is None or answer.html or route(answer) not in ("yes", "gated"):
        return False
    if answer.status < 300:  # JSON, or a stream that an empty request got anyway
        return True
    if protocol == "anthropic":
        return answer.anthropic_shaped
    return not answer.anthropic_shaped and answer.json() is not None


@dataclass(frozen=True)
class OtherProtocol:
    protocol: str
    answer: Answer


async def other_protocol(d: Doctor, client: httpx2.AsyncClient, url: str) -> OtherProtocol | None:
    """The first other protocol whose path at `url` answers in its shape; None when none does.
    One POST with an empty body per protocol, bounded like every probe."""
    for other in _OTHERS[d.protocol]:
        path = url + PATHS[other]
        answer = await d.probe(client, "POST", path, payload={}, protocol=other, record=False)
        if speaks(other, answer):
            d.answers.append(answer)  # only the finding's answer joins those the checks read
            return OtherProtocol(other, answer)
    return None


def wrong_protocol_check(d: Doctor, tried: list[Answer], found: OtherProtocol) -> Check:
    """models_path's failure when the chosen protocol's path is missing and another answers."""
    evidence = (
        "; ".join(f"{a.method} {a.url} → {a.outcome()}" for a in tried)
        + f"; {found.answer.method} {found.answer.url} → {found.answer.outcome()}"
        + (f": {found.answer.message}" if found.answer.message else "")
    )
    cause = phrase(
        msg.URL_SPEAKS_OTHER_NOT_CHOSEN,
        other=NAMES[found.protocol],
        chosen=NAMES[d.protocol],
        path=PATHS[d.protocol],
        other_path=PATHS[found.protocol],
    )
    fix = phrase(msg.USE_PROTOCOL_OTHER, protocol=found.protocol)
    return checked("models_path", False, evidence, cause, fix)
