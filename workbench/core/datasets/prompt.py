"""A dataset request as the runner sends it: a `BuiltPrompt` of the file's messages, or of a
trace's generated text (core/datasets/text.py)."""

from __future__ import annotations

from workbench.core.datasets.model import Dataset
from workbench.core.datasets.text import trace_text
from workbench.core.foundation.token_estimate import heuristic_tokens
from workbench.core.load.prompts import (
    DEFAULT_CHARS_PER_TOKEN,
    DEFAULT_OVERHEAD_TOKENS,
    BuiltPrompt,
)


def dataset_prompt(dataset: Dataset, index: int) -> BuiltPrompt:
    """Request `index` of a run on `dataset` (the file's row index % its length)."""
    request = dataset.at(index)
    if request.messages:
        messages = [{"role": role, "content": content} for role, content in request.messages]
        estimate = sum(heuristic_tokens(c) for _, c in request.messages) + DEFAULT_OVERHEAD_TOKENS
    else:
        messages = [{"role": "user", "content": trace_text(request, index % len(dataset.requests))}]
        estimate = float(request.input_tokens or 1)
    chars = sum(len(m["content"]) for m in messages)
    return BuiltPrompt(
        messages=messages,
        text=messages[-1]["content"],
        target_tokens=request.input_tokens or round(estimate),
        estimated_tokens=round(estimate),
        chars=chars,
        nonce=None,
        needle_answer=None,
        task_label=dataset.kind,
        chars_per_token=DEFAULT_CHARS_PER_TOKEN["en"],
    )
