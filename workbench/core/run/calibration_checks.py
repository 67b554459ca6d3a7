"""What a calibration request is, and what its outcome says about the other requests of its
cell: whether a prompt count is too far from the calibrated estimate to be real, and how a
failure that follows a failed calibration names it (docs/metrics.md, docs/gateways.md)."""

from __future__ import annotations

from workbench.core.foundation.error_messages import AFTER_CALIBRATION_CAUSE, cause_and_fix
from workbench.core.foundation.errors import Diagnosis, diagnosis
from workbench.core.foundation.redaction import redact
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.load.prompts import BuiltPrompt

# A calibration request needs a prompt long enough to average the text's density, not the
# full length: prefill of a long prompt costs time and money for a few tokens of output.
CALIBRATION_MAX_TOKENS = 8192
# A calibration request asks for a few output tokens, not one: one token cannot show usage that
# counts fewer tokens than arrived, so its usage could not be checked before it is learned from.
# Never more than the run's own max_tokens, but at least two.
CALIBRATION_OUTPUT_TOKENS = 16


def calibration_length(prompt_lengths: tuple[int, ...]) -> int:
    """The calibration prompt's size: the run's longest prompt, up to CALIBRATION_MAX_TOKENS.

    One calibration serves every length of the run, and a ratio learned from a short prompt
    misses long ones (from 128 tokens, prompts of 32K came out 7-20 % short), so a sweep from
    128 tokens to 128K calibrates at 8K, not at its first length."""
    return min(max(prompt_lengths), CALIBRATION_MAX_TOKENS)


def calibration_output_tokens(max_tokens: int) -> int:
    """max_tokens of a calibration request in a run whose requests ask for `max_tokens`."""
    return max(2, min(CALIBRATION_OUTPUT_TOKENS, max_tokens))


# A prompt count further than 5 % (and 32 tokens) from a calibrated estimate is made up, or
# counted by another tokenizer. Measured on the built-in provider (en/zh, summary/needle, 128 to
# 128K tokens), a calibration from a prompt of 1,024 tokens or more missed longer prompts by at
# most 1.8 %, and shorter ones by at most 19 tokens; one from a 128-token prompt missed long
# prompts by up to 20 %, so a prompt longer than any the calibration saw (under 1,024) is not
# judged.
PROMPT_COUNT_TOLERANCE = 0.05
PROMPT_COUNT_SLACK_TOKENS = 32
COVERING_PROMPT_TOKENS = 1024


def prompt_count_far(result: RequestResult, prompt: BuiltPrompt, longest: int) -> bool:
    """Whether the server's prompt count is too far from a calibrated estimate to be real.
    Not judged: a prompt built without a calibration (a default ratio), or one longer than any
    the calibration saw while that was under COVERING_PROMPT_TOKENS. `longest`: the longest
    prompt the calibration observed, in the server's tokens."""
    if not prompt.calibrated or result.usage_estimated or not result.prompt_tokens:
        return False
    estimate = prompt.estimated_tokens
    if longest < min(COVERING_PROMPT_TOKENS, estimate):
        return False
    slack = max(PROMPT_COUNT_TOLERANCE * estimate, PROMPT_COUNT_SLACK_TOKENS)
    return abs(result.prompt_tokens - estimate) > slack


def name_failed_calibration(result: RequestResult, calibration: RequestResult) -> None:
    """A request sent after its cell's calibration request failed, and failing too, says so:
    its own failure (a gateway's cooldown 429, say) follows from that one."""
    if calibration.error_class is None or result.error_class is None or result.t_send is None:
        return
    if result.error_class is ErrorClass.CANCELLED:
        return
    if result.error_class is calibration.error_class and result.http_status == (
        calibration.http_status
    ):
        return  # the same refusal again (a plain rate limit): the one failure needs no history
    result.error_message = after_calibration(
        result.error_class,
        result.error_message or "",
        calibration.error_class,
        calibration.error_message or "",
    )


def words_of(message: str | None) -> str:
    """What a row's error message says happened, without our cause and fix."""
    return (message or "").split(". Cause: ")[0]


def after_calibration(
    error_class: ErrorClass, message: str, calibration_class: ErrorClass, calibration_message: str
) -> str:
    """A failed request's message once its cell's calibration request has failed: it names that
    failure, and a 429 gets the calibration's fix instead of "lower the concurrency"."""
    what, _, rest = message.partition(". Cause: ")
    note = (
        f"{what.rstrip('. ')}, after the calibration request failed: {calibration_class.value}: "
        f"{words_of(calibration_message)}"
    )
    if error_class is not ErrorClass.RATE_LIMIT:
        return redact(f"{note}. Cause: {rest}" if rest else note)
    fix = cause_and_fix(calibration_class)[1]
    return redact(f"{note}. Cause: {AFTER_CALIBRATION_CAUSE}. Fix: {fix}")


def not_sent(calibration_class: ErrorClass, calibration_message: str, phase: str) -> Diagnosis:
    """The row of a request the runner did not send, because its cell's calibration request
    failed in a way no repeat can fix."""
    what = (
        f"not sent ({phase}): the calibration request failed with {calibration_class.value}, "
        f"which repeating the request cannot fix: {words_of(calibration_message)}"
    )
    # the calibration's own cause and fix, which may be sharper than its class's (a gateway's
    # broken route is model_not_found whose fix is the route, not the id)
    _, _, said = calibration_message.partition(". Cause: ")
    cause, found, fix = said.rpartition(". Fix: ")
    if found and cause and fix:
        return Diagnosis(calibration_class, what, cause, fix)
    return diagnosis(calibration_class, what)
