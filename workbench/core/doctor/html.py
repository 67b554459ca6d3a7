"""The HTML check: a web page where JSON was expected (a proxy login page, the web site)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import (
    distinct,
    first_bytes,
    html_title,
)
from workbench.core.doctor.checks import Said, checked, skipped
from workbench.core.foundation.errors import (
    diagnosis,
)
from workbench.core.foundation.i18n import marked, phrase
from workbench.core.foundation.results import ErrorClass

if TYPE_CHECKING:
    from workbench.core.doctor.state import Doctor


def check_html(d: Doctor) -> None:
    seen = d.answers_seen()
    pages = [a for a in seen if a.html and not a.explained]
    result = d.stream_result
    stream_html = result is not None and result.error_class is ErrorClass.HTML
    if not pages and not stream_html:
        if not seen and result is None:
            d.add(skipped("html", "no HTTP answer to look at"))
        else:
            total = len(seen) + (1 if result is not None else 0)
            d.add(checked("html", True, f"no HTML page in {total} answer(s)"))
        return
    parts = []
    for a in distinct(pages):
        title = html_title(a.body)
        parts.append(
            f"{a.method} {a.url} → HTTP {a.status} {a.content_type or 'no content-type'}"
            + (f", title '{title}'" if title else "")
            + f", starts '{first_bytes(a.body, 60)}'"
            + (f", server {a.headers['server']}" if a.headers.get("server") else "")
        )
    if len(pages) > len(distinct(pages)):
        parts.append(f"{len(pages)} HTML answers in all")
    if stream_html and result is not None:
        parts.append(f"streamed request → {(result.error_message or '').split('. Cause:')[0]}")
    said = diagnosis(ErrorClass.HTML, "")
    statuses = {a.status for a in pages}
    cause: Said
    if 407 in statuses:
        cause = phrase(msg.PROXY_WANTS_LOGIN_HTTP_407_ANSWERED)
    elif statuses and statuses <= {200}:
        cause = phrase(msg.WEB_PAGE_ANSWERED_HTTP_200_BASE)
    else:
        codes = ", ".join(str(s) for s in sorted(s for s in statuses if s is not None))
        cause = [
            marked("ErrorFix", said.cause),
            phrase(
                msg.HERE_PROXY_GATEWAY_ANSWERED_HTTP_CODES,
                codes=codes or "?",
            ),
        ]
    fix = marked("ErrorFix", said.fix)
    d.add(checked("html", False, "; ".join(parts), cause, fix))
