"""A trace's prompt: `input_tokens` words, its leading 512-word blocks written by its hash ids.

A block's words are drawn from a seeded generator keyed by its hash id alone, so requests
whose leading hash ids are equal send byte-identical prefixes (what a prefix cache can reuse);
the words past the hash ids are keyed by the request, so nothing else is shared. Each word is
a short common English word: one token for the built-in provider's tokenizer and, with its
space, one token in GPT-class BPE vocabularies, so `input_tokens` words are about that many
tokens anywhere.
"""

from __future__ import annotations

import functools
import random

from workbench.core.datasets.model import BLOCK_TOKENS, DatasetRequest

WORDS = (
    "the of and to in is was for on are with as at be by this had not but from or have an "
    "they which one you were all we her she there would their will when who him been has more "
    "if no out do so can what up said about other into than its time only could new them man "
    "some these then two first may any like now my such make over our even most me state after "
    "also made many did must before back see way where get much go well your know long "
    "down should year just three good each those people very us how own"
).split()


@functools.lru_cache(maxsize=4096)
def block(hash_id: int) -> tuple[str, ...]:
    """The 512 words every request with this hash id at this place shares."""
    rng = random.Random(f"block:{hash_id}")
    return tuple(rng.choices(WORDS, k=BLOCK_TOKENS))


def trace_text(request: DatasetRequest, index: int) -> str:
    """The prompt of trace request `index`: its blocks, then words of its own."""
    size = request.input_tokens or 1
    words: list[str] = []
    for hash_id in request.hash_ids:
        if len(words) >= size:
            break
        words += block(hash_id)
    if len(words) < size:
        # one draw of k words: a word at a time (rng.choice) took up to 10 ms for a 16K
        # prompt, built on the loop between two sends (benchmarks/trace_fidelity.py)
        words += random.Random(f"request:{index}").choices(WORDS, k=size - len(words))
    return " ".join(words[:size])
