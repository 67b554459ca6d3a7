"""The one tokenizer-free token estimate, for a server that sends no usage and for sizing a
prompt: a word takes one token per 8 letters begun (so a run of letters with no space still
grows); digits go three to a token; a CJK character (kana included) is 0.75 of a token; any
other mark is one. BPE tokenizers of the GPT-4 class split digits in threes and keep most
short English words whole."""

from __future__ import annotations

import functools
import math
import re

_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Words, digit runs, CJK characters, other marks: compiled at the first estimate, not at
    import (~3 ms; the window's first paint imports this module and estimates nothing)."""
    return (
        re.compile(r"[A-Za-z]+"),
        re.compile(r"\d+"),
        re.compile(f"[{_CJK_RANGES}]"),
        re.compile(f"[^\\sA-Za-z\\d{_CJK_RANGES}]"),
    )


def heuristic_tokens(text: str) -> float:
    """The estimate as a fraction, for ratios measured over a long text."""
    word, digit, cjk, mark = _patterns()
    words = sum(math.ceil(len(w) / 8) for w in word.findall(text))
    digits = sum(math.ceil(len(run) / 3) for run in digit.findall(text))
    return words + digits + 0.75 * len(cjk.findall(text)) + len(mark.findall(text))


def estimate_tokens(text: str) -> int:
    """The estimate as a count of tokens (rounded up: any text is at least one token)."""
    return math.ceil(heuristic_tokens(text))
