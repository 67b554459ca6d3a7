"""The rate-limit check: a 429, 402 or quota answer anywhere, with the wait it asks for."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import (
    distinct,
)
from workbench.core.doctor.checks import checked, skipped
from workbench.core.foundation.errors import (
    diagnosis,
)
from workbench.core.foundation.i18n import Phrase, data, marked, phrase, together
from workbench.core.foundation.results import ErrorClass

if TYPE_CHECKING:
    from workbench.core.doctor.state import Doctor


_QUOTA_WORDS = re.compile(r"quota|insufficient|balance|credit|余额|额度", re.IGNORECASE)


def check_rate_limit(d: Doctor) -> None:
    seen = d.answers_seen()
    limited = [
        a
        for a in seen
        if a.status in (402, 429)
        or ((a.status or 0) >= 400 and not a.html and _QUOTA_WORDS.search(a.message or ""))
    ]
    result = d.stream_result
    stream_limited = result is not None and result.error_class in (
        ErrorClass.RATE_LIMIT,
        ErrorClass.QUOTA,
    )
    total = len(seen) + (1 if result is not None else 0)
    if not limited and not stream_limited:
        if total == 0:
            d.add(skipped("rate_limit", phrase(msg.SKIP_NO_HTTP_ANSWER_TO_LOOK_AT)))
        else:
            d.add(checked("rate_limit", True, phrase(msg.EV_NO_RATE_LIMIT, count=total)))
        return
    parts: list[Phrase] = []
    retry: float | None = None
    quota = False
    for a in distinct(limited):
        text = f"{a.label(d.url)} → HTTP {a.status}: {a.message}"
        if a.retry_after is not None:
            text += f"; {a.retry_after}"
            if a.retry_after_s is not None and retry is None:
                retry = a.retry_after_s
        parts.append(data(text))
        quota = quota or a.status == 402 or bool(_QUOTA_WORDS.search(a.message or ""))
    if len(limited) > len(distinct(limited)):
        parts.append(phrase(msg.EV_ANSWERS_LIKE_THIS, count=len(limited)))
    if stream_limited and result is not None:
        words = (result.error_message or "").split(". Cause:")[0]
        streamed = [phrase(msg.EV_STREAMED_REQUEST, message=words)]
        if result.retry_after_s is not None:
            streamed.append(phrase(msg.EV_RETRY_AFTER_SECONDS, seconds=f"{result.retry_after_s:g}"))
            retry = result.retry_after_s if retry is None else retry
        parts.append(together(streamed, ""))
        quota = quota or result.error_class is ErrorClass.QUOTA
    if retry is None:
        parts.append(phrase(msg.EV_NO_RETRY_AFTER))
    said = diagnosis(ErrorClass.QUOTA if quota else ErrorClass.RATE_LIMIT, "")
    fix: list[Phrase] = [marked("ErrorFix", said.fix)]
    if retry is not None and not quota:
        wait = phrase(
            msg.WAIT_SECONDS_RETRY_AFTER_THEN,
            seconds=f"{retry:g}",
        )
        fix.insert(0, wait)
    cause = marked("ErrorFix", said.cause)
    d.add(checked("rate_limit", False, together(parts), cause, fix))
