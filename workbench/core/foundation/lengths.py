"""Length distributions: `--prompt-tokens 4K±1K` and `--max-tokens 256±64`.

A spread of ±s around a length L gives each measured request a size drawn uniformly from the
whole numbers L − s .. L + s (vLLM's random dataset draws its lengths the same way, from a range
ratio). The draw is a pure function of (L, s, the request's index, prompt or output), so every
model, every worker and every rerun sends request i the same sizes, and a row's real prompt
size is in its `prompt_tokens`; the cell keeps L as `prompt_tokens_target`. Calibration
requests keep L itself.
"""

from __future__ import annotations

import random
import re

SPREAD_MARKS = ("±", "+-")  # 4K±1K, or 4K+-1K where ± is hard to type
_SPLIT = re.compile(r"\s*(?:±|\+-)\s*")


def split_spread(text: str) -> tuple[str, str | None]:
    """'4K±1K' -> ('4K', '1K'); '4K' -> ('4K', None). ValueError for two marks."""
    parts = _SPLIT.split(text.strip())
    if len(parts) == 1:
        return parts[0], None
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise ValueError(f"'{text}': write LENGTH±SPREAD, e.g. 4K±1K (or 4K+-1K)")
    return parts[0], parts[1]


def draw(length: int, spread: int, index: int, what: str) -> int:
    """Request `index`'s size: uniform in length ± spread; `length` when there is no spread
    or for a calibration request (index < 0)."""
    if spread <= 0 or index < 0:
        return length
    rng = random.Random(f"{what}:{length}:{spread}:{index}")
    return rng.randint(length - spread, length + spread)
