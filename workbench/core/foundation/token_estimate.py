"""The one tokenizer-free token estimate, for a server that sends no usage and for sizing a
prompt: a word takes one token per 8 letters begun (so a run of letters with no space still
grows); digits go three to a token; a CJK character (kana included) is 0.75 of a token; any
other mark is one. BPE tokenizers of the GPT-4 class split digits in threes and keep most
short English words whole."""

from __future__ import annotations

import math
import re

_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(r"[A-Za-z]+")
_DIGITS = re.compile(r"\d+")
_CJK = re.compile(f"[{_CJK_RANGES}]")
_MARK = re.compile(f"[^\\sA-Za-z\\d{_CJK_RANGES}]")


def heuristic_tokens(text: str) -> float:
    """The estimate as a fraction, for ratios measured over a long text."""
    words = sum(math.ceil(len(word) / 8) for word in _WORD.findall(text))
    digits = sum(math.ceil(len(run) / 3) for run in _DIGITS.findall(text))
    return words + digits + 0.75 * len(_CJK.findall(text)) + len(_MARK.findall(text))


def estimate_tokens(text: str) -> int:
    """The estimate as a count of tokens (rounded up: any text is at least one token)."""
    return math.ceil(heuristic_tokens(text))
