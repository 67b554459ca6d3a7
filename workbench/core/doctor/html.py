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
from workbench.core.foundation.i18n import Phrase, data, marked, phrase, together
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
            d.add(skipped("html", phrase(msg.SKIP_NO_HTTP_ANSWER_TO_LOOK_AT)))
        else:
            total = len(seen) + (1 if result is not None else 0)
            d.add(checked("html", True, phrase(msg.EV_NO_HTML_PAGE, count=total)))
        return
    parts: list[Phrase] = []
    for a in distinct(pages):
        title = html_title(a.body)
        kind = data(a.content_type) if a.content_type else phrase(msg.EV_NO_CONTENT_TYPE)
        page = [
            phrase(
                msg.EV_HTML_PAGE, request=f"{a.method} {a.url}", status=a.status, content_type=kind
            )
        ]
        if title:
            page.append(phrase(msg.EV_HTML_TITLE, title=title))
        page.append(phrase(msg.EV_HTML_STARTS, start=first_bytes(a.body, 60)))
        if a.headers.get("server"):
            page.append(phrase(msg.EV_HTML_SERVER, server=a.headers["server"]))
        parts.append(together(page, ""))
    if len(pages) > len(distinct(pages)):
        parts.append(phrase(msg.EV_HTML_ANSWERS_IN_ALL, count=len(pages)))
    if stream_html and result is not None:
        words = (result.error_message or "").split(". Cause:")[0]
        parts.append(phrase(msg.EV_STREAMED_REQUEST, message=words))
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
    d.add(checked("html", False, together(parts), cause, fix))
