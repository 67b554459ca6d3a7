"""When the chosen protocol's path is not there, which other protocol the base URL speaks (one
cheap probe per other registered protocol, only after a 404/405). Each protocol's path, key
header, label and error shape are its ClientProtocol's (core/protocols/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import Answer, route
from workbench.core.doctor.checks import Check, checked
from workbench.core.foundation.i18n import data, marked, phrase, together
from workbench.core.protocols.registry import protocol_of, protocols

if TYPE_CHECKING:
    import httpx2

    from workbench.core.doctor.state import Doctor


def speaks(protocol: str, answer: Answer) -> bool:
    """Whether a probe of `protocol`'s path says the server speaks it: an answer in that
    protocol's shape (ClientProtocol.speaks), or a 2xx, on a path that exists."""
    if answer.status is None or answer.html or route(answer) not in ("yes", "gated"):
        return False
    if answer.status < 300:  # JSON, or a stream that an empty request got anyway
        return True
    return protocol_of(protocol).speaks(answer.body)


@dataclass(frozen=True)
class OtherProtocol:
    protocol: str
    answer: Answer


async def other_protocol(d: Doctor, client: httpx2.AsyncClient, url: str) -> OtherProtocol | None:
    """The first other protocol whose path at `url` answers in its shape; None when none does.
    One POST with an empty body per protocol, bounded like every probe."""
    others = sorted((p for p in protocols() if p.name != d.protocol), key=lambda p: p.probe_rank)
    for other in others:
        path = other.api_root(url) + other.path
        answer = await d.probe(client, "POST", path, payload={}, protocol=other.name, record=False)
        if speaks(other.name, answer):
            d.answers.append(answer)  # only the finding's answer joins those the checks read
            return OtherProtocol(other.name, answer)
    return None


def wrong_protocol_check(d: Doctor, tried: list[Answer], found: OtherProtocol) -> Check:
    """models_path's failure when the chosen protocol's path is missing and another answers."""
    evidence = [together([*(a.seen() for a in tried), found.answer.seen()])]
    if found.answer.message:
        evidence.append(data(f": {found.answer.message}"))
    cause = phrase(
        msg.URL_SPEAKS_OTHER_NOT_CHOSEN,
        other=marked("Protocol", protocol_of(found.protocol).label),
        chosen=marked("Protocol", d.spoken.label),
        path=d.spoken.path,
        other_path=protocol_of(found.protocol).path,
    )
    fix = phrase(msg.USE_PROTOCOL_OTHER, protocol=found.protocol)
    return checked("models_path", False, evidence, cause, fix)
