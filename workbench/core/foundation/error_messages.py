"""The words of every failure: the cause and the fix of each ErrorClass, and of the gateway
cases that `errors.py` recognises (a protocol's own, a path it lacks, are its module's:
core/protocols/). Kept apart from the logic so translators and reviewers read
them in one place (marked for Qt's lupdate; the UI translates them, the CLI prints English)."""

from __future__ import annotations

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.foundation.results import ErrorClass

FIXES: dict[ErrorClass, tuple[str, str]] = {
    ErrorClass.AUTH: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server rejected the API key (missing, mistyped, expired, or with stray "
            "whitespace)",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check the key (no spaces or quotes around it), that its environment variable is set "
            "in this shell, and that the header is 'Authorization: Bearer <key>'; run `workbench "
            "doctor`",
        ),
    ),
    ErrorClass.NOT_FOUND: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the path does not exist on this server: usually a base URL with a missing or extra "
            "/v1, or a full .../chat/completions URL pasted as the base URL",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "use the base URL the provider documents (try with and without /v1); `workbench "
            "doctor --base-url URL` tries both",
        ),
    ),
    ErrorClass.MODEL_NOT_FOUND: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server does not serve a model with this id",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "pick an id from `workbench models --base-url URL` (ids are usually lower-case with "
            "hyphens)",
        ),
    ),
    ErrorClass.RATE_LIMIT: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the provider is rate-limiting this key (too many requests or tokens per minute)",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "lower the concurrency, wait for Retry-After, or ask the provider for a higher limit",
        ),
    ),
    ErrorClass.QUOTA: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the account has no quota or balance left",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "top up or check the plan in the provider's console",
        ),
    ),
    ErrorClass.SERVER: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server failed while handling the request",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "retry later; if it persists, report it to the provider with the time and model",
        ),
    ),
    ErrorClass.BAD_REQUEST: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server refused the request as sent",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "read the server's message: often the prompt exceeds the model's context window, or "
            "max_tokens is too large",
        ),
    ),
    ErrorClass.OUT_OF_MEMORY: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server has no memory left for this request: its KV cache, beside the model's "
            "weights and the other requests in flight, does not fit on the GPU",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "use a shorter prompt, a lower max_tokens or fewer requests at once, or a deployment "
            "with more memory per device (a higher tensor-parallel degree)",
        ),
    ),
    ErrorClass.HTML: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "an HTML page came back where JSON or a stream was expected: a proxy, gateway login "
            "page, or a web site answered instead of the API",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check the base URL points at the API (not the web site), and the proxy settings",
        ),
    ),
    ErrorClass.CONNECT: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server could not be reached (DNS, TCP, TLS or proxy)",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check the host and port, that the server is running, and HTTP(S)_PROXY / NO_PROXY; a "
            "local server must not go through a global proxy",
        ),
    ),
    ErrorClass.DROPPED: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the connection closed before the stream finished",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "retry; if it repeats, a proxy or load balancer may cut long streams (check its "
            "timeouts)",
        ),
    ),
    ErrorClass.TRUNCATED: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the stream ended without [DONE] and without a finish_reason: the server or a proxy "
            "cut it short, so the answer and its token counts are incomplete",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "retry; if it repeats, check the timeouts of any proxy or load balancer on the way "
            "and the server's logs (the row is kept but never enters the figures)",
        ),
    ),
    ErrorClass.OVERRUN: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server sent more output than max_tokens allows (it ignores max_tokens, or the "
            "stream never ends); the client stopped reading at once",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check that the server or gateway honours max_tokens, and report it to the provider; "
            "such a stream cannot be compared with others",
        ),
    ),
    ErrorClass.OVERSIZED: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server sent a line, an event or a body larger than the client accepts; the "
            "client stopped reading to keep its memory bounded",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check that the base URL is an OpenAI-compatible API and that no proxy rewrites the "
            "stream; report it to the provider",
        ),
    ),
    ErrorClass.PROTOCOL: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server or a proxy broke the HTTP protocol (bad chunked encoding, a header line "
            "too long, too many headers)",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "try without the proxy; if it persists, report it to the provider with the time",
        ),
    ),
    ErrorClass.REDIRECT: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server answered with a redirect; a request is never re-sent to another "
            "address, because that can turn a POST into a GET or send the key elsewhere",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "use the new address (named in the message) as the base URL; `workbench doctor "
            "--base-url URL` checks it",
        ),
    ),
    ErrorClass.INVALID_KEY: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the API key or a custom header contains characters HTTP headers cannot carry (a "
            "line break, or a non-ASCII character such as a full-width space or a curly quote)",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "copy the key again as plain text, with no quotes, spaces or line breaks, and set "
            "it again; nothing was sent",
        ),
    ),
    ErrorClass.MALFORMED: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the server sent a stream event that is not valid JSON or not shaped like a chat "
            "completion chunk",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the endpoint is not fully OpenAI-compatible, or a proxy altered the stream; try "
            "without the proxy or report it to the provider",
        ),
    ),
    ErrorClass.FIRST_TOKEN_TIMEOUT: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "no token arrived within the first-token limit (long prompts take long to prefill)",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "raise the first-token timeout, or use a shorter prompt",
        ),
    ),
    ErrorClass.STALL: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the stream stalled: no token for longer than the stall limit",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "retry; raise the stall timeout if the server is known to pause",
        ),
    ),
    ErrorClass.TOTAL_TIMEOUT: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the request ran past its total time limit",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "raise the total timeout or lower max_tokens",
        ),
    ),
    ErrorClass.EMPTY: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the stream ended without any text",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check the model id and max_tokens; run `workbench doctor` to see the raw answer",
        ),
    ),
    ErrorClass.NO_VISIBLE_TEXT: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the model generated tokens but none of them is visible text: special tokens the "
            "server does not decode, or a character cut in the middle of its UTF-8 bytes",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check the model's chat template and tokenizer on the server (does it stop at or "
            "print its end-of-turn token?); raise max_tokens if finish_reason is length",
        ),
    ),
    ErrorClass.CANCELLED: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the request was cancelled",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "nothing to fix",
        ),
    ),
    ErrorClass.WORKER_LOST: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "the client worker process (or cluster node) that ran this request died before the "
            "request finished",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "check the machine's memory and the worker's logs, then run again; --workers 1 runs "
            "everything in one process",
        ),
    ),
    ErrorClass.INTERNAL: (
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "an unexpected error inside Attention Workbench",
        ),
        QT_TRANSLATE_NOOP(
            "ErrorFix",
            "please report it with the message",
        ),
    ),
}

GATEWAY_AUTH_CAUSE = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "the server refused the key: its answer speaks of the key or of access, though its status is "
    "not 401 (gateways such as a LiteLLM proxy without a database answer a bad key with 400), or "
    "it refused even the model list",
)
GATEWAY_AUTH_FIX = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "check the key for this gateway (the gateway's own key, not the upstream provider's; no "
    "spaces or quotes around it); run `workbench doctor --base-url URL`",
)
GATEWAY_ROUTE_CAUSE = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "the gateway took the request, but the upstream it routes this model to refused it (the "
    "message carries the upstream's words): the gateway's route for this model is broken",
)
GATEWAY_ROUTE_FIX = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "check the gateway's route for this model: the upstream's model id, address and key in the "
    "gateway's configuration, and the upstream's own logs",
)
GATEWAY_COOLDOWN_CAUSE = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "the gateway refused the request itself: its upstream for this model failed a moment ago (an "
    "error or a rate limit), so the gateway sends it nothing until a cooldown ends",
)
GATEWAY_COOLDOWN_FIX = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "find out why the upstream failed: the first request it refused carries the upstream's "
    "words (`workbench bench` prints every failure), and `workbench doctor --model M` shows them "
    "once the cooldown ends; check the gateway's route for this model and its logs",
)
# A 429 that follows a failed calibration request (core/run/calibration_checks.py).
AFTER_CALIBRATION_CAUSE = QT_TRANSLATE_NOOP(
    "ErrorFix",
    "the calibration request failed first; a gateway (LiteLLM, say) that sees a deployment fail "
    "puts it in cooldown and answers 429 'No deployments available' until the cooldown ends, so "
    "this 429 follows that failure and is no sign of too many requests",
)


def cause_and_fix(error_class: ErrorClass | str) -> tuple[str, str]:
    """The cause and the fix of an error class, in English (the UI translates them)."""
    return FIXES[ErrorClass(error_class)]
