"""Build a real prompt of N tokens: a long document from the bundled corpus, then a task.

No tokenizer is loaded. A prompt's size is estimated as `chars / chars_per_token + overhead`,
with a default chars-per-token ratio per language measured on the shipped corpus with
`heuristic_tokens` below, and, once a (provider, model) has answered with `usage.prompt_tokens`,
a ratio learned by `Calibration` that keeps the real count within a few per cent of the target.

The text: an optional nonce line first (so prefix caches cannot fake a low TTFT), then numbered
sections cycled from `resources/corpus/<language>.txt` (so even a 1M-token prompt is not one
byte-identical repeat), then the task: a summary request, or a needle question whose answer
(a random code hidden at a chosen depth) `PromptBuilder.check_answer` checks.
"""

from __future__ import annotations

import functools
import random
import re
import secrets
from dataclasses import dataclass
from typing import Any, Literal, get_args

from workbench.core.foundation.token_estimate import (
    heuristic_tokens as heuristic_tokens,  # re-exported
)
from workbench.resources import resource

Language = Literal["en", "zh"]
Task = Literal["summary", "needle"]

MIN_TARGET_TOKENS = 128
MAX_TARGET_TOKENS = 1_048_576

# Characters per token of the shipped corpus by `heuristic_tokens` (foundation/token_estimate.py;
# en: 300,096 chars, zh: 101,941 chars; tests/test_prompts.py re-measures them). Real
# tokenizers differ, which is what `Calibration` is for: GPT-4-class BPE reads such English
# at ~4.2-4.8, Chinese at ~1.0-1.5.
DEFAULT_CHARS_PER_TOKEN: dict[str, float] = {"en": 4.61, "zh": 1.32}
# Tokens a chat template adds around the messages (role markers, BOS, the assistant header).
DEFAULT_OVERHEAD_TOKENS = 8.0
SUMMARY_BULLETS = 5

# --------------------------------------------------------------------------------------------
# Spec and result
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptSpec:
    """What to build: the size in tokens, the language, the task, and what makes it unique."""

    target_tokens: int
    language: Language = "en"
    task: Task = "summary"
    needle_depth: float = 0.5  # 0 = the very start of the document, 1 = its end
    nonce: bool = True  # False only for a cache test that sends the same prompt twice
    seed: int = 0

    def __post_init__(self) -> None:
        size = self.target_tokens
        if isinstance(size, bool) or not isinstance(size, int):
            raise ValueError(f"target_tokens must be an integer, got {size!r}")
        if not MIN_TARGET_TOKENS <= size <= MAX_TARGET_TOKENS:
            raise ValueError(
                f"target_tokens must be between {MIN_TARGET_TOKENS} and {MAX_TARGET_TOKENS:,} "
                f"(1M), got {size:,}"
            )
        if self.language not in get_args(Language):
            raise ValueError(f"language must be one of {get_args(Language)}, got {self.language!r}")
        if self.task not in get_args(Task):
            raise ValueError(f"task must be one of {get_args(Task)}, got {self.task!r}")
        depth = self.needle_depth
        if isinstance(depth, bool) or not isinstance(depth, int | float) or not 0 <= depth <= 1:
            raise ValueError(f"needle_depth must be a number from 0 to 1, got {depth!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"seed must be an integer, got {self.seed!r}")

    @property
    def task_label(self) -> str:
        return "summary" if self.task == "summary" else f"needle@{self.needle_depth:.2f}"


@dataclass(frozen=True)
class BuiltPrompt:
    """A prompt ready to send: OpenAI chat `messages` and what is needed to judge the answer."""

    messages: list[dict[str, str]]
    text: str  # the user message
    target_tokens: int
    estimated_tokens: int  # by the ratio the builder used (calibrated when it could be)
    chars: int  # characters over all message contents: what `Calibration.observe` wants
    nonce: str | None
    needle_answer: str | None
    task_label: str  # "summary" or "needle@0.50"
    language: Language = "en"
    chars_per_token: float = 0.0  # the ratio the estimate used
    calibrated: bool = False  # True when that ratio came from `Calibration`
    fixed_chars: int = 0  # characters of the text around the corpus (nonce, task, needle)
    fixed_tokens: float = 0.0  # their estimate by `heuristic_tokens`


# --------------------------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationFit:
    """tokens = body_chars / chars_per_token + fixed_tokens + overhead_tokens.

    `body_chars` are the corpus characters of a prompt; the fixed text around them (nonce,
    task, question) is estimated apart (`heuristic_tokens`), because in a Chinese prompt it is
    partly English and would skew a single ratio.
    """

    chars_per_token: float
    overhead_tokens: float
    points: int

    def tokens(self, body_chars: float, fixed_tokens: float = 0.0) -> float:
        return body_chars / self.chars_per_token + fixed_tokens + self.overhead_tokens

    def body_chars(self, tokens: float, fixed_tokens: float = 0.0) -> float:
        return (tokens - fixed_tokens - self.overhead_tokens) * self.chars_per_token


@dataclass(frozen=True)
class _Point:
    chars: int
    tokens: int
    fixed_chars: int
    fixed_tokens: float

    @property
    def x(self) -> int:  # body characters
        return self.chars - self.fixed_chars

    @property
    def y(self) -> float:  # tokens of the body plus the chat template
        return self.tokens - self.fixed_tokens


class Calibration:
    """Per-(provider/model, language) chars-per-token ratios learned from real usage counts.

    One observation fixes the ratio, taking the chat-template overhead as the default and the
    fixed text's tokens from the builder's estimate. With two or more whose sizes differ by a
    quarter or more, a least-squares fit on relative error learns the overhead too; a fit that
    comes out implausible falls back to the one-parameter rule over all points.
    """

    MAX_POINTS = 64  # the newest observations per entry are kept
    _MIN_SPREAD = 1.25  # largest/smallest body before the overhead is fitted too
    _RATIO_RANGE = (0.2, 20.0)  # outside this a server's count is not about this text

    def __init__(self, default_overhead: float = DEFAULT_OVERHEAD_TOKENS) -> None:
        self.default_overhead = float(default_overhead)
        self._points: dict[tuple[str, str], list[_Point]] = {}

    @staticmethod
    def key_for(provider: str, model: str) -> str:
        return f"{provider}/{model}"

    def observe(
        self,
        key: str,
        language: str,
        chars: int,
        prompt_tokens: int,
        *,
        fixed_chars: int = 0,
        fixed_tokens: float = 0.0,
    ) -> None:
        """Record a prompt's size in characters and the server's `usage.prompt_tokens`.

        `fixed_chars`/`fixed_tokens` describe the non-corpus text of a built prompt (see
        `BuiltPrompt`); `observe_prompt` passes them. Without them the whole prompt is taken
        as corpus text, which is fine for English and a little less exact for Chinese.
        """
        point = _Point(int(chars), int(prompt_tokens), int(fixed_chars), float(fixed_tokens))
        if point.x <= 0 or point.y <= self.default_overhead:
            return  # nothing learnt about the corpus text itself
        points = self._points.setdefault((key, language), [])
        points.append(point)
        del points[: -self.MAX_POINTS]

    def observe_prompt(self, key: str, prompt: BuiltPrompt, prompt_tokens: int) -> None:
        """Record what a server counted for a prompt this module built."""
        self.observe(
            key,
            prompt.language,
            prompt.chars,
            prompt_tokens,
            fixed_chars=prompt.fixed_chars,
            fixed_tokens=prompt.fixed_tokens,
        )

    def fit(self, key: str, language: str) -> CalibrationFit | None:
        """The learned line for this key and language, or None before any usable observation."""
        points = self._points.get((key, language))
        if not points:
            return None
        fit = self._two_parameter(points) or self._one_parameter(points)
        low, high = self._RATIO_RANGE
        if fit is None or not low <= fit.chars_per_token <= high:
            return None
        return fit

    def longest(self, key: str, language: str) -> int:
        """The largest prompt, in the server's tokens, that this entry has observed (0: none)."""
        return max((p.tokens for p in self._points.get((key, language), ())), default=0)

    def ratio(self, key: str, language: str) -> float | None:
        """Learned characters per token, or None when nothing has been observed."""
        fit = self.fit(key, language)
        return None if fit is None else fit.chars_per_token

    def _one_parameter(self, points: list[_Point]) -> CalibrationFit | None:
        chars = sum(p.x for p in points)
        tokens = sum(p.y - self.default_overhead for p in points)
        if tokens <= 0:
            return None
        return CalibrationFit(chars / tokens, self.default_overhead, len(points))

    def _two_parameter(self, points: list[_Point]) -> CalibrationFit | None:
        sizes = [p.x for p in points]
        if len(points) < 2 or max(sizes) < self._MIN_SPREAD * min(sizes):
            return None
        # Weighted least squares of y = a*x + b with weights 1/y^2, so a long prompt's
        # absolute noise does not swamp the overhead that matters for short ones.
        sw = sx = sy = sxx = sxy = 0.0
        for p in points:
            w = 1.0 / (p.y * p.y)
            sw += w
            sx += w * p.x
            sy += w * p.y
            sxx += w * p.x * p.x
            sxy += w * p.x * p.y
        det = sw * sxx - sx * sx
        if det <= 0:
            return None
        slope = (sw * sxy - sx * sy) / det
        intercept = (sy - slope * sx) / sw
        smallest = min(p.y for p in points)
        if slope <= 0 or abs(intercept) > 0.25 * smallest:
            return None
        return CalibrationFit(1.0 / slope, intercept, len(points))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able state, for persistence between sessions."""
        return {
            "version": 1,
            "default_overhead": self.default_overhead,
            "entries": [
                {
                    "key": key,
                    "language": language,
                    "points": [[p.chars, p.tokens, p.fixed_chars, p.fixed_tokens] for p in points],
                }
                for (key, language), points in sorted(self._points.items())
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        """The inverse of `to_dict`; entries it cannot read are skipped."""
        calibration = cls(float(data.get("default_overhead", DEFAULT_OVERHEAD_TOKENS)))
        for entry in data.get("entries", []):
            for point in entry.get("points", []):
                chars, tokens, *fixed = point
                calibration.observe(
                    str(entry["key"]),
                    str(entry["language"]),
                    int(chars),
                    int(tokens),
                    fixed_chars=int(fixed[0]) if fixed else 0,
                    fixed_tokens=float(fixed[1]) if len(fixed) > 1 else 0.0,
                )
        return calibration


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Corpus:
    titles: tuple[str, ...]
    bodies: tuple[str, ...]  # each a section's paragraphs joined by blank lines


@functools.cache
def _corpus(language: str) -> _Corpus:
    text = resource("corpus", f"{language}.txt").read_text(encoding="utf-8")
    titles: list[str] = []
    bodies: list[str] = []
    for chunk in re.split(r"^# ", text, flags=re.MULTILINE):
        title, _, body = chunk.partition("\n")
        body = body.strip()
        if body:
            titles.append(title.strip())
            bodies.append(body)
    if not bodies:
        raise RuntimeError(f"the {language} corpus under resources/corpus is empty")
    return _Corpus(tuple(titles), tuple(bodies))


def _heading(language: str, number: int, title: str) -> str:
    if language == "zh":
        return f"## 第 {number} 节　{title}\n\n"
    return f"## Section {number}: {title}\n\n"


def _document(language: str, chars: int, start: int) -> str:
    """Exactly `chars` characters of numbered sections, cycling the corpus from section `start`."""
    if chars <= 0:
        return ""
    corpus = _corpus(language)
    count = len(corpus.bodies)
    parts: list[str] = []
    size = 0
    number = 0
    while size < chars:
        index = (start + number) % count
        number += 1
        part = _heading(language, number, corpus.titles[index]) + corpus.bodies[index] + "\n\n"
        parts.append(part)
        size += len(part)
    joined = "".join(parts)
    document = joined[:chars]
    # End on a whole word when that costs at most a few characters (a third of a per cent).
    slack = min(12, chars // 300)
    if slack and language == "en" and not joined[chars].isspace():
        cut = document.rfind(" ", chars - slack)
        if cut > 0:
            document = document[:cut]
    return document


# --------------------------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------------------------

_PROJECTS = (
    "Bluefinch", "Copperleaf", "Driftwood", "Emberline", "Foxglove", "Granite Owl", "Halcyon",
    "Ironbark", "Juniper", "Kingfisher", "Lanternfish", "Moonrake", "Nightjar", "Orchid Bay",
    "Peregrine", "Quartzite", "Redwing", "Saltmarsh", "Thistledown", "Umber Fox", "Vesper",
    "Wildrose", "Yellowhammer", "Zephyr",
)  # fmt: skip
_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O, which read as 1 and 0


def _intro(language: str) -> str:
    if language == "zh":
        return "请仔细阅读下面的文档。\n\n"
    return "Please read the following document carefully.\n\n"


def _summary_task(language: str) -> str:
    if language == "zh":
        return f"请用 {SUMMARY_BULLETS} 个要点总结上面的文档。"
    return f"Summarize the document above in {SUMMARY_BULLETS} bullet points."


def _needle_line(language: str, project: str, code: str) -> str:
    english = f"The secret code for {project} is {code}."
    if language == "zh":
        # The code appears once, inside the English sentence that answering hooks look for.
        return f"请记住这条备忘：项目 {project} 的密码如下。{english}"
    return english


def _question(language: str, project: str) -> str:
    english = f"Question: What is the secret code for {project}? Answer with the code only."
    if language == "zh":
        return f"问题：项目 {project} 的密码是什么？只回答密码。\n{english}"
    return english


def _new_nonce() -> str:
    """Sixteen random digits in groups of four (53 bits): digits tokenize to the same count
    whatever their values in common tokenizers, so the nonce does not jitter the size."""
    digits = f"{secrets.randbelow(10**16):016d}"
    return "-".join(digits[i : i + 4] for i in range(0, 16, 4))


def _normalize_code(text: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", text.upper())


class PromptBuilder:
    """Builds prompts of a target size; uses a calibrated ratio for a key when it has one."""

    def __init__(self, calibration: Calibration | None = None) -> None:
        self.calibration = calibration

    def _fit(self, language: str, calibration_key: str | None) -> tuple[CalibrationFit, bool]:
        if self.calibration is not None and calibration_key is not None:
            fit = self.calibration.fit(calibration_key, language)
            if fit is not None:
                return fit, True
        default = CalibrationFit(DEFAULT_CHARS_PER_TOKEN[language], DEFAULT_OVERHEAD_TOKENS, 0)
        return default, False

    def build(self, spec: PromptSpec, calibration_key: str | None = None) -> BuiltPrompt:
        """A prompt whose estimated size is `spec.target_tokens` (within 1 % by its own ratio)."""
        language = spec.language
        fit, calibrated = self._fit(language, calibration_key)
        nonce = _new_nonce() if spec.nonce else None
        rng = random.Random(f"{spec.seed}:{nonce or ''}")
        head = (f"[run {nonce}]\n" if nonce else "") + _intro(language)

        needle_answer: str | None = None
        needle = ""
        if spec.task == "needle":
            project = rng.choice(_PROJECTS)
            needle_answer = (
                "".join(rng.choice(_CODE_LETTERS) for _ in range(3))
                + f"-{rng.randrange(1000, 10000)}"
            )
            needle = _needle_line(language, project, needle_answer)
            tail = "\n\n" + _question(language, project)
        else:
            tail = "\n\n" + _summary_task(language)

        fixed_chars = len(head) + len(needle) + len(tail)
        fixed_tokens = heuristic_tokens(head) + heuristic_tokens(needle) + heuristic_tokens(tail)
        budget = round(fit.body_chars(spec.target_tokens, fixed_tokens))
        if needle:
            budget -= 2  # the blank line that sets the needle apart
        start = random.Random(spec.seed).randrange(len(_corpus(language).bodies))
        body = _document(language, max(0, budget), start)
        if needle:
            body = _insert_paragraph(body, needle, spec.needle_depth)
        text = head + body + tail
        chars = len(text)
        return BuiltPrompt(
            messages=[{"role": "user", "content": text}],
            text=text,
            target_tokens=spec.target_tokens,
            estimated_tokens=round(fit.tokens(chars - fixed_chars, fixed_tokens)),
            chars=chars,
            nonce=nonce,
            needle_answer=needle_answer,
            task_label=spec.task_label,
            language=language,
            chars_per_token=fit.chars_per_token,
            calibrated=calibrated,
            fixed_chars=fixed_chars,
            fixed_tokens=fixed_tokens,
        )

    @staticmethod
    def check_answer(prompt: BuiltPrompt, answer_text: str) -> bool | None:
        """None for a summary; for a needle, whether the answer contains the secret code
        (case, spaces and dashes ignored)."""
        if prompt.needle_answer is None:
            return None
        return _normalize_code(prompt.needle_answer) in _normalize_code(answer_text)


def _insert_paragraph(body: str, paragraph: str, depth: float) -> str:
    """Insert `paragraph` as its own paragraph at the boundary nearest to `depth` through
    `body` (0 = before the first heading, 1 = after the last line)."""
    if not body:
        return paragraph
    aim = round(depth * len(body))
    before = body.rfind("\n\n", 0, aim + 1)
    after = body.find("\n\n", aim)
    candidates = [0, len(body), *(p for p in (before, after) if p > 0)]
    at = min(candidates, key=lambda p: (abs(p - aim), p))
    if at == 0:
        return paragraph + "\n\n" + body
    return body[:at] + "\n\n" + paragraph + body[at:]
