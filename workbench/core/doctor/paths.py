"""The HTTP part of a run: which base path answers (/v1 added or removed), then auth, model,
stream and baseline on the path that answers."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import (
    Answer,
    alternative,
    route,
    verdict,
)
from workbench.core.doctor.auth import check_auth
from workbench.core.doctor.baseline import check_baseline
from workbench.core.doctor.checks import checked, skipped
from workbench.core.doctor.model import check_model
from workbench.core.doctor.protocols import other_protocol, wrong_protocol_check
from workbench.core.doctor.stream import check_stream
from workbench.core.foundation.errors import (
    UnsendableHeader,
    diagnosis,
)
from workbench.core.foundation.i18n import data, marked, phrase, together
from workbench.core.foundation.results import ErrorClass

if TYPE_CHECKING:
    import httpx2

    from workbench.core.doctor.state import Doctor


async def check_http(d: Doctor) -> None:
    # the protocol's convention first: an Anthropic base URL without /v1 gets it, as its SDK's
    base = d.url = d.spoken.api_root(d.url)
    alt, change = alternative(base)
    try:
        client = d.http_client()
    except (ImportError, ValueError) as exc:  # e.g. a socks:// proxy without its package
        d.add(
            checked(
                "models_path",
                False,
                phrase(msg.EV_NO_HTTP_CLIENT, error=exc),
                phrase(msg.PROXY_URL_CANNOT_USED_CLIENT),
                phrase(msg.USE_HTTP_PROXY_SET_PROVIDER),
            )
        )
        d.skip_rest(phrase(msg.SKIP_NO_HTTP_CLIENT))
        return
    path = d.spoken.path
    query = "&".join(f"{k}={v}" for k, v in d.spoken.models_query.items())
    models = "/models" + (f"?{query}" if query else "")  # its pages
    async with client:
        probes = await asyncio.gather(
            d.probe(client, "GET", base + models),
            d.probe(client, "POST", base + path, payload={}),
            d.probe(client, "GET", alt + models),
            d.probe(client, "POST", alt + path, payload={}),
        )
        at_base, at_alt = list(probes[:2]), list(probes[2:])
        if not await _speaks_chosen(d, client, (base, at_base), (alt, at_alt)):
            return
        answered = check_models_path(d, base, alt, change, at_base, at_alt)
        d.add(d.checks["models_path"], d.url + path)  # it tested the protocol's path
        if not answered:
            return
        models_answer, chat_answer = at_base if d.url == base else at_alt
        auth_ok = await check_auth(d, client, models_answer, chat_answer)
    if auth_ok is False:
        d.skip_rest(phrase(msg.SKIP_KEY_REFUSED))
        return
    ids = check_model(d, models_answer, auth_ok)
    try:
        sdk = d.sdk_client()
    except UnsendableHeader as exc:  # the auth check has said what is wrong with the key
        said = diagnosis(ErrorClass.INVALID_KEY, str(exc))
        cause, fix = marked("ErrorFix", said.cause), marked("ErrorFix", said.fix)
        d.add(checked("stream", False, data(exc), cause, fix))
        d.skip_rest(phrase(msg.SKIP_NO_CLIENT))
        return
    except ValueError as exc:  # ProxyUnsupported: a SOCKS proxy without socksio
        d.add(
            checked(
                "stream",
                False,
                phrase(msg.EV_NO_CLIENT, error=exc),
                phrase(msg.PROXY_CANNOT_USED),
                phrase(msg.USE_HTTP_PROXY),
            )
        )
        d.skip_rest(phrase(msg.SKIP_NO_CLIENT))
        return
    try:
        await check_stream(d, sdk, ids)
        await check_baseline(d, sdk, models_answer)
    finally:
        await sdk.close()


async def _speaks_chosen(
    d: Doctor,
    client: httpx2.AsyncClient,
    base: tuple[str, list[Answer]],
    alt: tuple[str, list[Answer]],
) -> bool:
    """False (models_path failed, the rest skipped) when the chosen protocol's path is missing
    at the base URL and its /v1 variant while another protocol's path answers there."""
    posts = [base[1][1], alt[1][1]]
    if any(route(a) != "no" for a in posts):
        return True
    # where the list answered, if anywhere: the API's root, whatever its protocol
    root = next((url for url, (models, _) in (base, alt) if route(models) == "yes"), base[0])
    found = await other_protocol(d, client, root)
    if found is None:
        return True
    for answer in posts:  # their 404 pages are the protocol's, not a proxy's
        answer.explained = True
    d.add(wrong_protocol_check(d, posts, found), posts[0].url)
    d.skip_rest(phrase(msg.SKIP_NOT_PROTOCOL, protocol=d.protocol))
    return False


def check_models_path(
    d: Doctor, base: str, alt: str, change: str, at_base: list[Answer], at_alt: list[Answer]
) -> bool:
    evidence = phrase(
        msg.EV_PATHS_V1_ADDED if change == "added" else msg.EV_PATHS_V1_REMOVED,
        base=base,
        at_base=together([a.seen(base) for a in at_base], ", "),
        alt=alt,
        at_alt=together([a.seen(alt) for a in at_alt], ", "),
    )
    b, a = verdict(at_base), verdict(at_alt)
    if all(x.status is None for x in at_base + at_alt):
        first = at_base[0]
        d.add(
            checked(
                "models_path",
                False,
                evidence,
                phrase(
                    msg.SERVER_ACCEPTED_CONNECTION_BUT_GAVE_NO,
                    error=first.error,
                ),
                phrase(msg.CHECK_URL_SCHEME_PORT_ARE_API),
            )
        )
        d.skip_rest(phrase(msg.SKIP_NO_HTTP_ANSWER))
        return False
    if b == "yes":
        d.add(checked("models_path", True, evidence))
        return True
    if a == "yes" or (a == "gated" and b == "no"):
        if change == "added":
            what = phrase(msg.BASE_URL_LACKS_V1_SERVER)
        else:
            what = phrase(msg.BASE_URL_HAS_EXTRA_V1_SERVER)
        answers = phrase(
            msg.ALT_PROBABLY_ANSWERS_BASE_DOES_NOT
            if a == "gated"
            else msg.ALT_ANSWERS_BASE_DOES_NOT,
            alt=alt,
            base=base,
        )
        cause = phrase(
            msg.WHAT_ANSWERS_404_WRONG_V1,
            what=what,
            answers=answers,
        )
        fix = phrase(msg.BASE_URL_SHOULD_URL, url=alt)
        d.add(checked("models_path", False, evidence, cause, fix))
        d.url = alt  # the checks below use the URL that answers
        return True
    if b == "no" and a in ("no", "unknown"):
        html = any(x.html for x in at_base + at_alt)
        d.add(
            checked(
                "models_path",
                False,
                evidence,
                phrase(
                    msg.NEITHER_BASE_URL_NOR_V1_VARIANT_HTML
                    if html
                    else msg.NEITHER_BASE_URL_NOR_V1_VARIANT
                ),
                phrase(msg.USE_API_BASE_URL_PROVIDER),
            )
        )
        d.skip_rest(phrase(msg.SKIP_NO_API_PATH))
        return False
    statuses = together([x.outcome_said() for x in at_base], ", ")
    which = phrase(msg.SKIP_WHICH_PATH, statuses=statuses, evidence=evidence)
    d.add(skipped("models_path", which))
    return True
