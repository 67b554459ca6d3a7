"""`workbench bench`'s flags for what each request's prompt says (language, task, needle, cache
test) and how long a request may take (its timeouts, the 429/503 retry budget, the context
check): kept apart from bench.py, which runs the plan."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from workbench.commands.common import float_in
from workbench.core.foundation.results import DEFAULT_FIRST_TOKEN_TIMEOUT_S, DEFAULT_STALL_TIMEOUT_S
from workbench.core.planning.run_plan import MAX_SECONDS


def _seconds() -> Callable[[str], float]:
    return float_in(0, MAX_SECONDS, "a timeout (seconds)", low_open=True)


def add_prompt_args(p: argparse.ArgumentParser) -> None:
    """What the prompt says: its language and task, and whether it repeats (cache test)."""
    p.add_argument(
        "--language", choices=("en", "zh"), default="en", help="language of the prompt text"
    )
    p.add_argument(
        "--task",
        choices=("summary", "needle"),
        default="summary",
        help="summarise the prompt, or find a code hidden in it (--needle-depth)",
    )
    p.add_argument(
        "--needle-depth",
        type=float_in(0, 1, "needle depth"),
        default=0.5,
        help="where the needle sits in the prompt, 0 (start)..1 (end)",
    )
    p.add_argument(
        "--cache-test",
        action="store_true",
        help="send the same prompt every repeat (no nonce): cold vs warm prefix cache",
    )


def add_limit_args(p: argparse.ArgumentParser) -> None:
    """How long a request may take, when a refusal is retried, and the context-window check."""
    p.add_argument(
        "--first-token-timeout",
        type=_seconds(),
        default=None,
        metavar="S",
        help=f"seconds to wait for the first token (default: the provider's, else "
        f"{DEFAULT_FIRST_TOKEN_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--stall-timeout",
        type=_seconds(),
        default=None,
        metavar="S",
        help=f"seconds without a token before a stream counts as stalled (default: the "
        f"provider's, else {DEFAULT_STALL_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--total-timeout",
        type=_seconds(),
        default=None,
        metavar="S",
        help="seconds a whole request may take (default: the provider's, else first-token "
        "limit + stall limit + 1 s per max_tokens)",
    )
    p.add_argument(
        "--retry-budget",
        type=float_in(0, MAX_SECONDS, "the retry budget (seconds)"),
        default=0.0,
        metavar="S",
        help="retry 429/503 answers within this many seconds when they say how long to wait: "
        "Retry-After (seconds or an HTTP date), retry-after-ms, or a gateway's prefixed "
        "*-retry-after / *-retry-after-ms (LiteLLM: llm_provider-retry-after); each attempt is "
        "its own row",
    )
    p.add_argument(
        "--allow-overflow",
        action="store_true",
        help="send prompts over the model's known context window (tokens + --max-tokens) or "
        "a built-in model's KV memory (refused by default) to test the server's own answer",
    )
