"""The stream check: a short streamed request in the chosen protocol through the app's own
client: TTFT, usage (and whether a gateway made it up), a role-only first chunk, reasoning, a
gateway's broken route."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.checks import Check, Said, checked, skipped
from workbench.core.foundation import failure_words
from workbench.core.foundation.errors import (
    GATEWAY_COOLDOWN_WORDS,
    diagnosis,
)
from workbench.core.foundation.i18n import Phrase, data, marked, phrase, together
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.protocols.registry import protocols
from workbench.core.transport.stream_values import LENGTH_REASONS

if TYPE_CHECKING:
    import openai

    from workbench.core.doctor.state import Doctor


# Several tokens, not one: usage that counts fewer tokens than arrived (made up by a gateway)
# shows only when more than one token comes.
_PROBE_PROMPT = [{"role": "user", "content": "Count from one to ten in words."}]
_PROBE_TOKENS = 16
# Words with which a gateway's error names the upstream behind it (LiteLLM: "litellm.
# NotFoundError: OpenAIException - Error code: 404 ...", "No deployments available")
_UPSTREAM_WORDS = re.compile(
    r"upstream|litellm\.|exception|deployment|provider|api_base|error code: \d{3}|channel|渠道",
    re.IGNORECASE,
)


async def check_stream(d: Doctor, client: openai.AsyncOpenAI, ids: list[str] | None) -> None:
    model = d.model
    picked: list[Phrase] = []
    # an unlisted id is asked anyway: some servers list only the models they have loaded
    if not model:
        if not ids:
            d.add(skipped("stream", phrase(msg.SKIP_NO_MODEL_TO_ASK), applies=False))
            return
        model, picked = ids[0], [phrase(msg.EV_FIRST_LISTED)]
    from workbench.core.protocols.wire import stream_request
    from workbench.core.transport.streaming import RequestSpec

    spec = RequestSpec(
        messages=_PROBE_PROMPT,
        max_tokens=_PROBE_TOKENS,
        temperature=0.0,
        first_token_timeout_s=d.timeout_s,
        stall_timeout_s=d.timeout_s,
        total_timeout_s=d.timeout_s * 2,
        protocol=d.protocol,
        auth=d.auth,
    )
    result = RequestResult(model=model, base_url=d.url)
    await stream_request(client, result, spec)
    d.stream_result = result
    url = d.url + d.spoken.path
    head = together([phrase(msg.EV_STREAM_MODEL, model=model), *picked], "")
    if result.error_class is not None:
        d.add(_failed(d, result, result.error_class, ids, head), url)
        return
    if ids is not None and model not in ids:
        d.add(
            checked(
                "model",
                True,
                phrase(
                    msg.EV_UNLISTED_BUT_SERVED,
                    model=model,
                    count=len(ids),
                    listed=", ".join(ids[:8]) + (" …" if len(ids) > 8 else ""),
                ),
            ),
            url,
        )
    send = result.t_send or 0
    ttft = ((result.t_first_token or send) - send) / 1e6
    role_only = (
        result.t_first_chunk is not None
        and result.t_first_token is not None
        and result.t_first_chunk < result.t_first_token
    )
    reason = result.finish_reason or "none"
    finish = [data(reason)]
    if reason in LENGTH_REASONS:  # each protocol's word for it: length, max_tokens, ...
        finish.append(phrase(msg.EV_LENGTH_EXPECTED, tokens=_PROBE_TOKENS))
    # chat's first chunk may be role-only; the others open with an event that has no text
    first = msg.EV_FIRST_CHUNK_ROLE_ONLY if d.protocol == "chat" else msg.EV_FIRST_EVENT_BEFORE_TEXT
    evidence = phrase(
        msg.EV_STREAM_ANSWERED,
        head=head,
        status=str(result.http_status),
        ttft=f"{ttft:.0f}",
        first=phrase(first),
        role_only=_yes_no(role_only),
        usage=_usage(result),
        reasoning=_yes_no(bool(result.reasoning_text)),
        finish=together(finish, ""),
    )
    d.add(checked("stream", True, evidence), url)


def _yes_no(yes: bool) -> Phrase:
    return phrase(msg.YES if yes else msg.NO)


def _broken_route(
    d: Doctor, result: RequestResult, ids: list[str] | None
) -> tuple[list[Phrase], Said] | None:
    """Cause and fix when a listed model's request fails with a 404, with a 5xx whose
    words name an upstream, or with LiteLLM's 429 for an upstream it has put in cooldown
    after a failure: the gateway's route to its upstream is broken."""
    status = result.http_status or 0
    message = (result.error_message or "").split(". Cause:")[0]
    if ids is None or result.model not in ids:
        return None
    upstream_failed = status >= 500 and _UPSTREAM_WORDS.search(message)
    if status != 404 and not upstream_failed and not GATEWAY_COOLDOWN_WORDS.search(message):
        return None
    words = re.sub(r"^HTTP \d+: ", "", message)
    cause = [
        phrase(
            msg.GATEWAY_LISTS_MODEL_BUT_UPSTREAM_REFUSES,
            status=str(status),
            words=words,
        )
    ]
    fix = phrase(msg.CHECK_GATEWAY_ROUTE_MODEL_UPSTREAM)
    return cause, fix


def _failed(
    d: Doctor, result: RequestResult, error: ErrorClass, ids: list[str] | None, head: Phrase
) -> Check:
    """The stream check when the request failed (`error`, the client's class), in the doctor's
    words."""
    what = (result.error_message or "").split(". Cause:")[0]
    said = diagnosis(error, "")
    cause = [marked("ErrorFix", said.cause)]
    if result.error_class is ErrorClass.EMPTY:
        cause.append(phrase(msg.NO_CHOICES_TEXT_CAME_BACK_READING))
    fix: Said = marked("ErrorFix", said.fix)
    if result.error_class is ErrorClass.NO_VISIBLE_TEXT:
        cause, fix = _no_visible_text(result)
    if result.error_class is ErrorClass.FIRST_TOKEN_TIMEOUT:
        cause.append(
            phrase(
                msg.EVEN_1_TOKEN_TOOK_OVER_SECONDS,
                seconds=f"{d.timeout_s:g}",
            )
        )
    said_protocol = _protocol_said(result)
    if said_protocol is not None:
        cause, fix = said_protocol
    upstream = _broken_route(d, result, ids)
    if upstream is not None:
        cause, fix = upstream
    said_what = failure_words.said_what(what)
    evidence = [phrase(msg.EV_STREAM_FAILED, head=head, what=said_what), *_sent_version(d, result)]
    return checked("stream", False, evidence, cause, fix)


def _protocol_said(result: RequestResult) -> tuple[list[Phrase], Said] | None:
    """The protocol's own cause and fix, when the client classified the failure so (errors.
    protocol_status): a path of another protocol, a refused anthropic-version."""
    message = result.error_message or ""
    hints = [hint for protocol in protocols() for hint in protocol.hints()]
    cause = next((c for c, _ in hints if f"Cause: {c}" in message), None)
    fix = next((f for _, f in hints if f"Fix: {f}" in message), None)  # a probe's, perhaps
    if cause is None or fix is None:
        return None
    return [marked("ErrorFix", cause)], marked("ErrorFix", fix)


def _sent_version(d: Doctor, result: RequestResult) -> list[Phrase]:
    """A 400 about anthropic-version: the version we sent, so that a gateway that strips or
    rewrites the header shows as the cause (we always send it)."""
    if result.http_status != 400 or "anthropic-version" not in (result.error_message or ""):
        return []
    sent = next((v for k, v in d.request_headers().items() if k.lower() == "anthropic-version"), "")
    return [phrase(msg.EV_WE_SENT_VERSION, version=sent)] if sent else []


def _usage(result: RequestResult) -> Phrase:
    """The stream check's word on usage: absent, made up by the gateway, or present."""
    prompt, completion = result.prompt_tokens, result.completion_tokens
    if result.usage_estimated or completion is None:
        return phrase(msg.EV_USAGE_ABSENT)
    if result.usage_suspect:
        events = len(result.event_times)
        return phrase(msg.EV_USAGE_MADE_UP, prompt=prompt, completion=completion, events=events)
    return phrase(msg.EV_USAGE_PRESENT, prompt=prompt, completion=completion)


def _no_visible_text(result: RequestResult) -> tuple[list[Phrase], Said]:
    """Cause and fix when tokens came but none was visible text."""
    cause = [
        phrase(
            msg.SERVER_GENERATED_TOKENS_COMPLETION_TOKENS_TOKENS,
            tokens=str(result.completion_tokens),
            finish=str(result.finish_reason),
        )
    ]
    fix = phrase(msg.RAISE_MAX_TOKENS_FINISH_REASON_LENGTH)
    return cause, fix
