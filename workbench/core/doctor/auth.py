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
from workbench.core.foundation.i18n import Phrase, joined, marked, phrase
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
    source = f" (key from {d.key_source})" if d.key_source else ""
    judged = next(
        (
            a
            for a in (models, chat)
            if a.status is not None and not a.html and a.status not in (404, 405)
        ),
        None,
    )
    sent = _sent(d)
    version = _wants_version(d, models, chat)
    if version is not None:  # not the key's fault: the stream check names the header
        said = f"{sent}{source}; {version.label(d.url)} → HTTP 400: {version.message}"
        d.add(skipped("auth", f"{said}: the key cannot be judged without the version header"))
        return None
    refusal = refused_by_words(models, chat)
    if refusal is not None:
        d.add(_gateway_refusal(d, refusal, f"{sent}{source}", problems), refusal.url)
        return False
    if judged is None:
        if problems:
            d.add(
                checked(
                    "auth",
                    False,
                    f"{sent}{source}; the server's answer could not be judged",
                    joined(problems),
                    key_fix(problems),
                )
            )
            return None
        d.add(skipped("auth", f"{sent}{source}; no JSON answer to judge the key by"))
        return None
    seen = f"{judged.label(d.url)} → HTTP {judged.status}"
    if judged.status in (401, 403):
        refused = await _refused(d, judged, f"{sent}{source}; {seen}", problems, leftover)
        d.add(refused, judged.url)
        return False
    evidence = f"{sent}{source}; {seen}: not refused"
    if judged.status in (402, 429) or (judged.status or 0) >= 500:
        evidence = f"{sent}{source}; {seen}: cannot tell whether the key is good"
    elif not d.key:
        evidence = f"no key sent{source}; {seen}: the server needs no key"
    if problems:
        d.add(
            checked(
                "auth",
                False,
                evidence + " (checked with the whitespace and quotes removed)",
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


def _sent(d: Doctor) -> str:
    """How the key went: the header, and Anthropic's version header beside it."""
    version = next(
        (v for k, v in d.request_headers().items() if k.lower() == "anthropic-version"), None
    )
    sent = "no key sent" if not d.key else "key sent as a Bearer token"
    if d.key and d.key_header != "Authorization":
        sent = f"key sent in the {d.key_header} header"
    return sent + (f" (with anthropic-version: {version})" if version else "")


async def _refused(
    d: Doctor, judged: Answer, said: str, problems: list[Phrase], leftover: str | None
) -> Check:
    """The auth check when the server answered 401/403: why, from what was sent and said."""
    message = judged.message
    evidence = said + (f": {message}" if message else "")
    if judged.headers.get("www-authenticate"):
        evidence += f"; WWW-Authenticate: {redact_and_cut(judged.headers['www-authenticate'], 80)}"
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


def _gateway_refusal(d: Doctor, answer: Answer, sent: str, problems: list[Phrase]) -> Check:
    """The key refused by a 400/404 that speaks of it, or by a refused model list."""
    evidence = f"{sent}; {answer.label(d.url)} → HTTP {answer.status}"
    evidence += f": {answer.message}" if answer.message else ""
    gateway = gateway_of(d.answers, d.url)
    if gateway:
        evidence += f"; the answers are those of {gateway}"
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
