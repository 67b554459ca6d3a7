"""Tiny random-weight models for a real `transformers serve`, made here: no download.

Runs under the transformers venv (`.venv-transformers`, made by scripts/test.sh), never under the
project's own, which has no transformers:

    python tiny_transformers.py make OUT_DIR CORPUS_FILE   # one directory per model
    python tiny_transformers.py count MODEL_DIR < requests.json

`make` trains a byte-level BPE tokenizer on the corpus (so any text tokenizes, and the prompts
that workbench builds take real token counts) and saves, with it, four models:

- `tiny-llama-gqa` (grouped-query attention) and `tiny-deepseek-mla` (DeepSeek-V3, multi-head
  latent attention, a mixture of experts): random weights, random text;
- `tiny-llama-fading` and `tiny-llama-silent`: "chain" Llamas whose next token depends only on the
  current one, so their output is known: after the prompt, FADING_WORDS words, then `<|pad|>` (a
  special token, which the server does not decode into text) for ever; the silent one gives
  `<|pad|>` from the start.

`count` prints, for each chat request body read from stdin (a JSON list), the prompt tokens that
the chat template gives with the same tokenizer.
"""

from __future__ import annotations

import json
import sys
from itertools import pairwise
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (
    AutoTokenizer,
    DeepseekV3Config,
    DeepseekV3ForCausalLM,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerFast,
)

VOCAB = 1024
CONTEXT = 8192  # 4K prompts plus their output
SPECIALS = ["<|pad|>", "<|begin|>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
SMALL = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2}
FADING_WORDS = 16  # visible words of the fading model before its textless tokens
COMMON = {"vocab_size": VOCAB, "max_position_embeddings": CONTEXT, "pad_token_id": 0}
COMMON |= {"bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False}


def tokenizer(corpus: str) -> PreTrainedTokenizerFast:
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator([corpus], trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=bpe, pad_token="<|pad|>", bos_token="<|begin|>", eos_token="<|end|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.model_max_length = CONTEXT
    return fast


def llama_gqa() -> LlamaForCausalLM:
    config = LlamaConfig(**SMALL, **COMMON, num_attention_heads=4, num_key_value_heads=2)
    return LlamaForCausalLM(config)


def deepseek_mla() -> DeepseekV3ForCausalLM:
    config = DeepseekV3Config(
        **SMALL,
        **COMMON,
        num_attention_heads=4,
        num_key_value_heads=4,
        q_lora_rank=32,
        kv_lora_rank=32,
        qk_rope_head_dim=8,
        qk_nope_head_dim=16,
        v_head_dim=16,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_shared_experts=1,
        moe_intermediate_size=32,
        first_k_dense_replace=1,
        n_group=1,
        topk_group=1,
    )
    return DeepseekV3ForCausalLM(config)


def chain(tok: PreTrainedTokenizerFast, words: list[str]) -> list[int]:
    """The ids a chain model gives: the template's last prompt token, the words, then <|pad|>."""
    prompt = tok.apply_chat_template(
        [{"role": "user", "content": "hi"}], add_generation_prompt=True
    )
    return [prompt["input_ids"][-1], *tok.convert_tokens_to_ids(words), 0]


def chain_llama(ids: list[int]) -> LlamaForCausalLM:
    """A Llama whose next token after ids[i] is ids[i + 1], and after the last one itself."""
    model = llama_gqa()
    with torch.no_grad():
        for layer in model.model.layers:  # every block adds 0: the state is the token's embedding
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        embedding = model.model.embed_tokens.weight
        normed = embedding * torch.rsqrt(embedding.pow(2).mean(-1, keepdim=True) + 1e-6)
        head = model.lm_head.weight
        head.zero_()
        # a logit is the dot product of two normed vectors: 64 for the row set from the current
        # token itself, about ±8 (random 64-d vectors) for any other
        for current, following in [*pairwise(ids), (ids[-1], ids[-1])]:
            head[following] += normed[current]
    return model


def check_chain(model: LlamaForCausalLM, tok: PreTrainedTokenizerFast, ids: list[int]) -> None:
    prompt = tok.apply_chat_template(
        [{"role": "user", "content": "hi"}], add_generation_prompt=True, return_tensors="pt"
    )
    out = model.generate(**prompt, max_new_tokens=len(ids) + 2, do_sample=False)
    got = out[0, prompt["input_ids"].shape[-1] :].tolist()
    want = ids[1:] + [ids[-1]] * 3
    if got != want[: len(got)]:
        sys.exit(f"the chain model does not follow its chain: {got} != {want}")


def make(out_dir: Path, corpus: str) -> None:
    torch.manual_seed(0)
    tok = tokenizer(corpus)
    words = [w for w in tok.convert_ids_to_tokens(range(len(SPECIALS), VOCAB)) if w[1:].isalpha()]
    words = [w for w in words if w.startswith("\u0120") and len(w) > 3][:FADING_WORDS]
    fading, silent = chain(tok, words), chain(tok, [])
    models = {"tiny-llama-gqa": llama_gqa(), "tiny-deepseek-mla": deepseek_mla()}
    models |= {"tiny-llama-fading": chain_llama(fading), "tiny-llama-silent": chain_llama(silent)}
    check_chain(models["tiny-llama-fading"], tok, fading)
    check_chain(models["tiny-llama-silent"], tok, silent)
    for name, model in models.items():
        model.generation_config.do_sample = False
        model.save_pretrained(out_dir / name)
        tok.save_pretrained(out_dir / name)
    print(json.dumps({"fading_text": tok.decode(fading[1:-1])}))


def count(model_dir: Path, bodies: list[dict[str, object]]) -> list[int]:
    tok = AutoTokenizer.from_pretrained(model_dir)
    return [
        len(tok.apply_chat_template(b["messages"], add_generation_prompt=True)["input_ids"])
        for b in bodies
    ]


def main(argv: list[str]) -> None:
    if argv[:1] == ["make"] and len(argv) == 3:
        make(Path(argv[1]), Path(argv[2]).read_text(encoding="utf-8"))
    elif argv[:1] == ["count"] and len(argv) == 2:
        print(json.dumps(count(Path(argv[1]), json.load(sys.stdin))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
