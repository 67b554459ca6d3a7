"""Prompts that will not fit a model's context window, or whose KV cache will not fit a
built-in model's deployment anywhere in the plan, found before anything is sent.

A 128K prompt with max_tokens 256 sent to a 131,072-token model fails with HTTP 400 after the
upload; the catalog (or the saved provider) already knew the window, so the run is refused
first with the numbers. Only targets whose window is known are checked.
"""

from __future__ import annotations

from workbench.core.planning.run_plan import RunPlan


def overflows(plan: RunPlan) -> str | None:
    """The refusal, with one line per (model, prompt length) whose prompt + max_tokens exceeds
    the window; None when everything fits."""
    lines = []
    for target in plan.targets:
        window = target.context_window
        if not window:
            continue
        for length in plan.prompt_lengths:
            longest, most = plan.longest(length), plan.max_tokens + plan.max_tokens_spread
            need = longest + most
            if need > window:
                lines.append(
                    f"{target.model}: a {longest:,}-token prompt + max_tokens {most:,} "
                    f"= {need:,} tokens, over its context window of {window:,}"
                )
    if not lines:
        return None
    return (
        "the prompt will not fit the model's context window; nothing was sent:\n  "
        + "\n  ".join(lines)
        + "\nFix: a shorter --prompt-tokens or a lower --max-tokens, or --allow-overflow to "
        "send it anyway and see the server's own answer"
    )


def nothing_fits(plan: RunPlan) -> str | None:
    """The refusal when every cell's KV cache would not fit (core/planning/memory_fit.py, through
    RunPlan.refused): nothing would be sent. Some cells refused: those become rows, the rest run."""
    cells = len(plan.targets) * len(plan.prompt_lengths)
    if not plan.refused or len(plan.refused) < cells:
        return None
    lines = [f"{c.label} at {c.prompt_tokens:,}: {c.reason}" for c in plan.refused]
    return (
        "the KV cache will not fit the deployment; nothing was sent:\n  "
        + "\n  ".join(lines)
        + "\nFix: a shorter --prompt-tokens or a model that fits, or --allow-overflow to send "
        "it anyway and see the server's own answer"
    )
