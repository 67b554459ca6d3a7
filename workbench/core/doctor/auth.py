"""The auth check: the key's own text (whitespace, quotes, a "Bearer " prefix, placeholder
text), a 401/403, a gateway's refusal in words, and the header a server wants the key in."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import httpx2

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import (
    Answer,
    gateway_of,
    refused_by_words,
)
from workbench.core.doctor.checks import Check, Said, checked, skipped
from workbench.core.foundation.error_messages import GATEWAY_AUTH_CAUSE, GATEWAY_AUTH_FIX
from workbench.core.foundation.i18n import Phrase, data, joined, marked, phrase
from workbench.core.foundation.redaction import redact_and_cut

if TYPE_CHECKING:
    from workbench.core.doctor.state import Doctor


_ALT_AUTH_HEADERS = ("Authorization", "x-api-key", "api-key")


async def check_auth(
    d: Doctor, client: httpx2.AsyncClient, models: Answer, chat: Answer
) -> bool | None:
    """True: accepted; False: refused (401/403); None: cannot tell."""
    leftover = next((k for k in d.headers if k.lower() == "authorization"), None)
    problems: list[Phrase] = list(d.key_problems)
    if leftover:
        problems.append(phrase(msg.PROVIDER_EXTRA_HEADERS_SET_HEADER, header=leftover))
    source = [phrase(msg.EV_KEY_FROM, source=d.key_source)] if d.key_source else []
    judged = next(
        (
            a
            for a in (models, chat)
            if a.status is not None and not a.html and a.status not in (404, 405)
        ),
        None,
    )
    sent = [*_sent(d), *source]
    version = _wants_version(d, models, chat)
    if version is not None:  # not the key's fault: the stream check names the header
        said = phrase(
            msg.EV_KEY_NOT_JUDGED_WITHOUT_VERSION,
            request=version.label(d.url),
            message=version.message,
        )
        d.add(skipped("auth", [*sent, said]))
        return None
    refusal = refused_by_words(models, chat)
    if refusal is not None:
        d.add(_gateway_refusal(d, refusal, sent, problems), refusal.url)
        return False
    if judged is None:
        if problems:
            d.add(
                checked(
                    "auth",
                    False,
                    [*sent, phrase(msg.EV_ANSWER_NOT_JUDGED)],
                    joined(problems),
                    key_fix(problems),
                )
            )
            return None
        d.add(skipped("auth", [*sent, phrase(msg.EV_NO_JSON_ANSWER)]))
        return None
    seen = f"{judged.label(d.url)} → HTTP {judged.status}"
    if judged.status in (401, 403):
        refused = await _refused(
            d, judged, [*sent, phrase(msg.EV_SEEN, seen=seen)], problems, leftover
        )
        d.add(refused, judged.url)
        return False
    evidence = [*sent, phrase(msg.EV_NOT_REFUSED, seen=seen)]
    if judged.status in (402, 429) or (judged.status or 0) >= 500:
        evidence = [*sent, phrase(msg.EV_CANNOT_TELL_KEY, seen=seen)]
    elif not d.key:
        evidence = [phrase(msg.EV_NO_KEY_SENT), *source, phrase(msg.EV_NEEDS_NO_KEY, seen=seen)]
    if problems:
        d.add(
            checked(
                "auth",
                False,
                [*evidence, phrase(msg.EV_CHECKED_CLEANED)],
                joined(problems),
                key_fix(problems),
            ),
            judged.url,
        )
        return True
    if judged.status in (402, 429) or (judged.status or 0) >= 500:
        d.add(skipped("auth", evidence), judged.url)
        return None
    d.add(checked("auth", True, evidence), judged.url)
    return True


def _wants_version(d: Doctor, *answers: Answer) -> Answer | None:
    """An answer refusing the request for the protocol's own header (Anthropic's version,
    which we always send: a gateway on the way stripped or rewrote it)."""
    return next(
        (a for a in answers if a.status is not None and d.spoken.refused(a.status, a.body)), None
    )


def _sent(d: Doctor) -> list[Phrase]:
    """How the key went: the header, and Anthropic's version header beside it."""
    version = next(
        (v for k, v in d.request_headers().items() if k.lower() == "anthropic-version"), None
    )
    sent = phrase(msg.EV_NO_KEY_SENT) if not d.key else phrase(msg.EV_KEY_SENT_BEARER)
    if d.key and d.key_header != "Authorization":
        sent = phrase(msg.EV_KEY_SENT_IN_HEADER, header=d.key_header)
    return [sent, *([phrase(msg.EV_WITH_VERSION, version=version)] if version else [])]


async def _refused(
    d: Doctor, judged: Answer, said: list[Phrase], problems: list[Phrase], leftover: str | None
) -> Check:
    """The auth check when the server answered 401/403: why, from what was sent and said."""
    message = judged.message
    evidence = [*said, *([data(f": {message}")] if message else [])]
    if judged.headers.get("www-authenticate"):
        wanted = redact_and_cut(judged.headers["www-authenticate"], 80)
        evidence.append(data(f"; WWW-Authenticate: {wanted}"))
    cause: Said
    fix: Said
    if not d.key:
        cause = [phrase(msg.NO_KEY_SENT_SERVER_WANTS_ONE)]
        if d.key_source:
            cause.append(phrase(msg.KEY_SHOULD_COME_SOURCE, source=d.key_source))
        return checked("auth", False, evidence, cause, phrase(msg.SET_KEY_API_KEY_ENV_VAR))
    other = await _other_header(d)
    if other == "Authorization":
        cause = phrase(msg.SERVER_WANTS_BEARER_NOT_HEADER, header=d.key_header)
        fix = phrase(msg.SET_AUTH_BEARER_PROVIDER)
    elif other is not None and d.key_header != "Authorization":
        cause = phrase(msg.SERVER_WANTS_KEY_HEADER_NOT_SENT, header=other, sent=d.key_header)
        fix = phrase(msg.ADD_HEADER_HEADER_KEY_PROVIDER, header=other)
    elif other is not None:
        cause = phrase(msg.SERVER_WANTS_KEY_HEADER_HEADER_NOT, header=other)
        fix = phrase(msg.ADD_HEADER_HEADER_KEY_PROVIDER, header=other)
    elif leftover:
        cause = problems[-1]
        fix = phrase(msg.REMOVE_HEADER_HEADER_PROVIDER_EXTRA, header=leftover)
    else:
        hinted = re.search(r"\b(x-api-key|api-key|x-goog-api-key)\b", message, re.I)
        rejected = [phrase(msg.KEY_SENT_REJECTED_MISTYPED_COPIED_INCOMPLETELY)]
        # a header named that the key was sent in says nothing new
        if hinted and hinted.group(1).lower() != d.key_header.lower():
            rejected.append(phrase(msg.SERVER_MENTIONS_HEADER_HEADER, header=hinted.group(1)))
        cause = [*joined(problems), Phrase("; "), *rejected] if problems else rejected
        fix = phrase(msg.COPY_KEY_AGAIN_PROVIDER_CONSOLE)
    return checked("auth", False, evidence, cause, fix)


def _gateway_refusal(
    d: Doctor, answer: Answer, sent: list[Phrase], problems: list[Phrase]
) -> Check:
    """The key refused by a 400/404 that speaks of it, or by a refused model list."""
    seen = f"{answer.label(d.url)} → HTTP {answer.status}"
    seen += f": {answer.message}" if answer.message else ""
    evidence = [*sent, phrase(msg.EV_SEEN, seen=seen)]
    gateway = gateway_of(d.answers, d.url)
    if gateway:
        evidence.append(phrase(msg.EV_ANSWERS_OF_GATEWAY, gateway=gateway))
    cause: list[Phrase] = [marked("ErrorFix", GATEWAY_AUTH_CAUSE)]
    if problems:
        cause = [*joined(problems), Phrase("; "), *cause]
    fix = [*key_fix(problems), Phrase("; ")] if problems else []
    return checked("auth", False, evidence, cause, [*fix, marked("ErrorFix", GATEWAY_AUTH_FIX)])


async def _other_header(d: Doctor) -> str | None:
    """The header name under which the server accepts the key, when Bearer is refused."""
    if not d.key or not d.key.isascii():
        return None
    async with d.http_client() as client:
        for name in (h for h in _ALT_AUTH_HEADERS if h.lower() != d.key_header.lower()):
            answer = await d.probe(client, "GET", d.url + "/models", auth=name, record=False)
            if answer.status is not None and answer.status < 300 and not answer.html:
                return name
    return None


def key_fix(problems: Sequence[Phrase]) -> list[Phrase]:
    fixes = []
    text = " ".join(str(p) for p in problems)
    if "whitespace around" in text or "quotes" in text or "Bearer" in text:
        fixes.append(phrase(msg.STORE_BARE_KEY_NO_SPACES_NEWLINE))
    if "inside it" in text:
        fixes.append(phrase(msg.COPY_KEY_AGAIN_WHOLE_PROVIDER))
    if "non-ASCII" in text:
        fixes.append(phrase(msg.REPLACE_PLACEHOLDER_YOUR_REAL_KEY))
    if "replaces the key" in text:
        fixes.append(phrase(msg.REMOVE_AUTHORIZATION_HEADER_PROVIDER_EXTRA))
    return joined(fixes) or [phrase(msg.CHECK_KEY)]
