"""Readable, seeded prose about attention for the simulated models, one token per piece.

The text is cut into pieces by the local tokenizer, so the number of pieces streamed is exactly
count_tokens(streamed text) == usage.completion_tokens.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.local.tokenizer import content_text, count_tokens, pieces

_EN_SUBJECTS = (
    "The KV cache",
    "Grouped-query attention",
    "Multi-head latent attention",
    "Each decoded token",
    "A long prompt",
    "The prefill phase",
    "The decode loop",
    "Sparse attention",
    "Tensor parallelism",
    "A paged cache",
    "The attention kernel",
    "Flash decoding",
)
_EN_VERBS = (
    "reads",
    "shrinks",
    "dominates",
    "streams",
    "shares",
    "compresses",
    "splits",
    "revisits",
    "bounds",
    "trades",
)
_EN_OBJECTS = (
    "the whole cache of every layer",
    "memory bandwidth at long context",
    "the keys and values of past tokens",
    "a low-rank latent instead of full heads",
    "the time to first token",
    "the bytes moved per step",
    "only the blocks that matter",
    "the work across devices",
    "one shared key and value head",
    "arithmetic intensity",
)
_EN_TAILS = (
    "so throughput falls as the context grows.",
    "which is why decode is memory-bound.",
    "and the GPU waits on HBM rather than on math.",
    "so fewer bytes cross the memory bus per token.",
    "while the weights stay the same size.",
    "and latency follows the cache length almost linearly.",
    "which matters most beyond thirty thousand tokens.",
    "so a batch of requests shares the cost of the weights.",
)
_ZH_SUBJECTS = (
    "KV 缓存",
    "分组查询注意力",
    "多头潜在注意力",
    "每个解码出的词元",
    "长提示词",
    "预填充阶段",
    "稀疏注意力",
    "张量并行",
)
_ZH_VERBS = ("需要读取", "压缩了", "主导了", "分摊了", "共享了", "拆分了")
_ZH_OBJECTS = (
    "每一层的全部缓存",
    "长上下文下的显存带宽",
    "过去词元的键和值",
    "首个词元的等待时间",
    "每一步搬运的字节数",
    "多个设备上的计算",
)
_ZH_TAILS = (
    "所以上下文越长，吞吐越低。",
    "因此解码受限于显存带宽。",
    "这正是注意力变体想要节省的开销。",
    "而模型权重的大小保持不变。",
)

_REASONING_EN = (
    "Let me think about what the question asks.",
    "The prompt is long, so the answer should focus on the key idea.",
    "I should mention the cache and the cost of each decode step.",
    "A short, clear answer is best here.",
)
_REASONING_ZH = (
    "先想一想问题问的是什么。",
    "提示词很长，回答应抓住要点。",
    "需要提到缓存和每步解码的开销。",
)

# The needle hook (documented in docs/local-provider.md): a question line in the last user
# message and a fact line anywhere in the prompt.
_QUESTION_RE = re.compile(r"^\s*Question:\s*What is the secret code\b([^?\n]*)\?", re.MULTILINE)
_FACT_RE = re.compile(r"The secret code\b([^\n]*?) is ([^\s,;]+?)[.,;]?(?=\s|$)", re.MULTILINE)
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER_RE = re.compile(r"[A-Za-z]+")
_SAMPLE_CHARS = 20_000


@dataclass(frozen=True)
class Completion:
    """What one simulated completion says, as token pieces."""

    reasoning: list[str]
    content: list[str]
    finish_reason: str  # "length" or "stop"
    stop_sequence: str | None = None  # the stop string that ended it, when one did


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(content_text(m.get("content")) for m in messages)


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def is_mostly_chinese(text: str) -> bool:
    """Judged on the prompt's start and end, so a 4 MB prompt costs no more than a short one."""
    sample = (
        text if len(text) <= 2 * _SAMPLE_CHARS else text[:_SAMPLE_CHARS] + text[-_SAMPLE_CHARS:]
    )
    cjk = len(_CJK_RE.findall(sample))
    words = len(_LETTER_RE.findall(sample))
    return cjk > words


def needle_answer(prompt: str, last_user: str) -> str | None:
    """The sentence answering a 'Question: What is the secret code ...?' line, if known."""
    question = _QUESTION_RE.search(last_user)
    if question is None:
        return None
    wanted = question.group(1).strip()
    facts = [(m.group(1).strip(), m.group(2)) for m in _FACT_RE.finditer(prompt)]
    if not facts:
        return None
    # prefer the fact about the same thing the question names; else the only/first fact
    label, code = next(((lab, c) for lab, c in facts if lab == wanted), facts[0])
    return f"The secret code {label} is {code}.".replace("  ", " ")


def seed_for(
    model: str, prompt: str, temperature: float, request_seed: int | None, salt: int
) -> int:
    """Temperature 0 (or a request seed) gives the same text for the same model and prompt."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(model.encode())
    digest.update(prompt.encode("utf-8", "surrogatepass"))
    if request_seed is not None:
        digest.update(b"seed%d" % request_seed)
    elif temperature > 0:
        digest.update(b"salt%d" % salt)
    return int.from_bytes(digest.digest(), "big")


def _sentence(rng: random.Random, chinese: bool) -> str:
    if chinese:
        return (
            rng.choice(_ZH_SUBJECTS)
            + rng.choice(_ZH_VERBS)
            + rng.choice(_ZH_OBJECTS)
            + "，"
            + rng.choice(_ZH_TAILS)
        )
    return (
        f"{rng.choice(_EN_SUBJECTS)} {rng.choice(_EN_VERBS)} {rng.choice(_EN_OBJECTS)}, "
        f"{rng.choice(_EN_TAILS)}"
    )


def _prose(rng: random.Random, chinese: bool, n_tokens: int, first: str | None) -> str:
    """At least n_tokens tokens of prose; sentences end in punctuation, so joins never merge."""
    sentences = [first] if first else []
    have = count_tokens(first) if first else 0
    while have < n_tokens:
        sentence = _sentence(rng, chinese)
        sentences.append(sentence)
        have += count_tokens(sentence)
    return ("" if chinese else " ").join(sentences)


def _cut(text: str, n_tokens: int, stop: Sequence[str]) -> tuple[list[str], str | None]:
    """The first n_tokens pieces, cut before the earliest stop string; and that string."""
    cut = pieces(text)[:n_tokens]
    if stop:
        joined = "".join(cut)
        found = [(joined.find(s), s) for s in stop if s]
        hits = [(at, s) for at, s in found if at >= 0]
        if hits:
            at, which = min(hits, key=lambda hit: hit[0])
            return pieces(joined[:at]), which
    return cut, None


def generate(
    *,
    seed: int,
    chinese: bool,
    max_tokens: int,
    reasoning_tokens: int = 0,
    answer: str | None = None,
    stop: Sequence[str] = (),
) -> Completion:
    """Exactly max_tokens tokens (reasoning included), unless a stop string cuts it short."""
    rng = random.Random(seed)
    reasoning: list[str] = []
    if reasoning_tokens > 0:
        lines = _REASONING_ZH if chinese else _REASONING_EN
        text = ("" if chinese else " ").join(lines * (1 + reasoning_tokens // 8))
        reasoning = pieces(text)[:reasoning_tokens]
    content_tokens = max(0, max_tokens - len(reasoning))
    content, hit = _cut(_prose(rng, chinese, content_tokens, answer), content_tokens, stop)
    return Completion(
        reasoning=reasoning,
        content=content,
        finish_reason="length" if hit is None else "stop",
        stop_sequence=hit,
    )
