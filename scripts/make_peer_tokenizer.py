"""Write a tiny word-level tokenizer as a Hugging Face folder, trained on the shipped corpus.

guidellm and AIPerf need a tokenizer to build prompts of a given length; this one loads offline,
so neither tool reaches the network. Run it with a Python that has `tokenizers` and
`transformers` (guidellm's venv has both):

    .venv-peers/guidellm/bin/python scripts/make_peer_tokenizer.py OUT_DIR

Used by scripts/make_peer_fixtures.sh and benchmarks/arrival_peers.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

CORPUS = Path(__file__).resolve().parent.parent / "resources" / "corpus" / "en.txt"


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: make_peer_tokenizer.py OUT_DIR", file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    special = ["[UNK]", "[BOS]", "[EOS]"]
    tok.train([str(CORPUS)], trainers.WordLevelTrainer(special_tokens=special))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        bos_token="[BOS]",
        eos_token="[EOS]",
        model_max_length=131072,
    )
    fast.save_pretrained(out)
    json.loads((out / "tokenizer_config.json").read_text())  # a complete HF folder
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
