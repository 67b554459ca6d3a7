"""Prompt builder: sizes, nonce, needle, corpus, and calibration against a toy tokenizer."""

from __future__ import annotations

import collections
import importlib.util
import json
import math
import re
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.load.prompts import (
    DEFAULT_CHARS_PER_TOKEN,
    MAX_TARGET_TOKENS,
    MIN_TARGET_TOKENS,
    BuiltPrompt,
    Calibration,
    PromptBuilder,
    PromptSpec,
    heuristic_tokens,
)
from workbench.local import textgen
from workbench.resources import resource

QUESTION = re.compile(r"^Question: What is the secret code for (.+)\? Answer with the code only\.$")
NEEDLE = re.compile(r"The secret code for (.+?) is ([A-Z]{3}-\d{4})\.")

# A toy tokenizer written apart from the builder: an ASCII word costs one token per started
# six letters, every digit and every CJK character one token, any other mark one; a chat
# template adds 3 tokens plus 4 per message. Nothing in workbench/ knows these rules.
_TOY = re.compile(r"[A-Za-z]+|\d|[\u4e00-\u9fff]|[^\sA-Za-z\d\u4e00-\u9fff]")


def toy_prompt_tokens(
    messages: list[dict[str, str]], template: int = 3, per_message: int = 4
) -> int:
    total = template
    for message in messages:
        total += per_message
        for piece in _TOY.findall(message["content"]):
            total += math.ceil(len(piece) / 6) if piece.isascii() and piece.isalpha() else 1
    return total


def relative_error(prompt: BuiltPrompt, **toy: int) -> float:
    return toy_prompt_tokens(prompt.messages, **toy) / prompt.target_tokens - 1


# ---------------------------------------------------------------------------------------------
# Spec validation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 127, 1_048_577, -5])
def test_target_tokens_out_of_range_is_a_clear_error(size: int) -> None:
    with pytest.raises(ValueError, match="target_tokens must be between 128 and 1,048,576"):
        PromptSpec(size)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"target_tokens": True},
        {"target_tokens": 1000.0},
        {"target_tokens": 1000, "needle_depth": -0.01},
        {"target_tokens": 1000, "needle_depth": 1.01},
        {"target_tokens": 1000, "needle_depth": math.nan},
        {"target_tokens": 1000, "language": "fr"},
        {"target_tokens": 1000, "task": "translate"},
    ],
)
def test_bad_spec_is_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        PromptSpec(**kwargs)


def test_limits_are_buildable() -> None:
    builder = PromptBuilder()
    for size in (MIN_TARGET_TOKENS, MAX_TARGET_TOKENS):
        for language in ("en", "zh"):
            for task in ("summary", "needle"):
                prompt = builder.build(PromptSpec(size, language, task))  # type: ignore[arg-type]
                assert abs(prompt.estimated_tokens - size) <= 0.01 * size


# ---------------------------------------------------------------------------------------------
# Shape of the prompt
# ---------------------------------------------------------------------------------------------


def test_nonce_opens_the_prompt_and_differs_each_build() -> None:
    builder = PromptBuilder()
    first = builder.build(PromptSpec(2000))
    second = builder.build(PromptSpec(2000))
    assert first.nonce and second.nonce and first.nonce != second.nonce
    assert first.text.startswith(f"[run {first.nonce}]\n")
    assert first.messages == [{"role": "user", "content": first.text}]
    assert first.chars == len(first.text)


def test_cache_test_prompt_is_identical_twice() -> None:
    builder = PromptBuilder()
    spec = PromptSpec(4000, task="needle", nonce=False, seed=7)
    first, second = builder.build(spec), builder.build(spec)
    assert first.nonce is None and first.text == second.text
    assert not first.text.startswith("[run")


def test_summary_task_in_each_language() -> None:
    builder = PromptBuilder()
    en = builder.build(PromptSpec(1000))
    zh = builder.build(PromptSpec(1000, language="zh"))
    assert en.text.endswith("\n\nSummarize the document above in 5 bullet points.")
    assert zh.text.endswith("\n\n请用 5 个要点总结上面的文档。")
    assert en.task_label == "summary" and en.needle_answer is None
    assert builder.check_answer(en, "- anything") is None


@pytest.mark.parametrize("language", ["en", "zh"])
def test_needle_line_and_question_have_the_hook_format(language: str) -> None:
    prompt = PromptBuilder().build(PromptSpec(8000, language, "needle", 0.25))  # type: ignore[arg-type]
    assert prompt.task_label == "needle@0.25"
    last = prompt.text.splitlines()[-1]
    question = QUESTION.match(last)
    assert question, last
    needles = NEEDLE.findall(prompt.text)
    assert needles == [(question.group(1), prompt.needle_answer)]
    assert prompt.needle_answer and prompt.text.count(prompt.needle_answer) == 1
    if language == "zh":
        assert f"问题：项目 {question.group(1)} 的密码是什么？只回答密码。" in prompt.text


@pytest.mark.parametrize("depth", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_needle_sits_at_its_depth_on_a_paragraph_boundary(depth: float) -> None:
    prompt = PromptBuilder().build(PromptSpec(32_000, task="needle", needle_depth=depth))
    assert prompt.needle_answer
    at = prompt.text.index("The secret code for")
    document_start = prompt.text.index("## Section 1:")
    document_end = prompt.text.rindex("\n\nQuestion:")
    where = (at - document_start) / (document_end - document_start)
    assert abs(where - depth) < 0.01
    assert prompt.text[at - 2 : at] == "\n\n" or at == document_start


def test_check_answer_accepts_the_code_in_any_spelling() -> None:
    builder = PromptBuilder()
    prompt = builder.build(PromptSpec(1000, task="needle"))
    code = prompt.needle_answer
    assert code
    assert builder.check_answer(prompt, code) is True
    assert builder.check_answer(prompt, f"The code is {code.lower()}.") is True
    assert builder.check_answer(prompt, code.replace("-", " ")) is True
    assert builder.check_answer(prompt, "I could not find it.") is False


def test_needle_code_follows_seed_and_nonce() -> None:
    builder = PromptBuilder()
    fixed = [builder.build(PromptSpec(1000, task="needle", nonce=False, seed=3)) for _ in range(2)]
    assert fixed[0].needle_answer == fixed[1].needle_answer
    codes = {builder.build(PromptSpec(1000, task="needle")).needle_answer for _ in range(20)}
    assert len(codes) > 15


def test_long_prompt_cycles_with_numbered_sections_fast() -> None:
    builder = PromptBuilder()
    builder.build(PromptSpec(1000))  # load the corpus once
    started = time.perf_counter()
    prompt = builder.build(PromptSpec(MAX_TARGET_TOKENS, task="needle", needle_depth=0.7))
    elapsed = time.perf_counter() - started
    assert elapsed < 0.5, elapsed
    assert prompt.chars > 4_000_000
    numbers = [int(n) for n in re.findall(r"^## Section (\d+):", prompt.text, re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1))
    corpus_chars = len(resource("corpus", "en.txt").read_text(encoding="utf-8"))
    assert len(numbers) > 10 * prompt.chars // corpus_chars  # the corpus went round many times


# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------


def _load_make_corpus():
    spec = importlib.util.spec_from_file_location(
        "make_corpus", resource("corpus", "make_corpus.py")
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_corpus"] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["make_corpus"]
    return module


def test_shipped_corpus_is_what_the_generator_makes() -> None:
    make_corpus = _load_make_corpus()
    for language in ("en", "zh"):
        shipped = resource("corpus", f"{language}.txt").read_text(encoding="utf-8")
        assert shipped == make_corpus.generate(language)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_corpus_is_varied_prose_not_one_sentence(language: str) -> None:
    path = resource("corpus", f"{language}.txt")
    assert 100_000 < path.stat().st_size < 400_000
    text = path.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    sentences = [s.strip() for s in re.findall(r"[^.!?。！？]+[.!?。！？]", body) if s.strip()]
    counts = collections.Counter(sentences)
    assert len(sentences) > 2000
    assert len(counts) > 0.4 * len(sentences)
    assert counts.most_common(1)[0][1] < 0.03 * len(sentences)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_default_ratio_is_the_heuristic_measured_on_the_corpus(language: str) -> None:
    text = resource("corpus", f"{language}.txt").read_text(encoding="utf-8")
    measured = len(text) / heuristic_tokens(text)
    assert measured == pytest.approx(DEFAULT_CHARS_PER_TOKEN[language], rel=0.01)


# ---------------------------------------------------------------------------------------------
# Estimates and calibration
# ---------------------------------------------------------------------------------------------

_built_nonces: set[str] = set()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.one_of(
        st.integers(MIN_TARGET_TOKENS, 4096),
        st.integers(MIN_TARGET_TOKENS, MAX_TARGET_TOKENS),
    ),
    language=st.sampled_from(["en", "zh"]),
    task=st.sampled_from(["summary", "needle"]),
    depth=st.floats(0, 1),
    seed=st.integers(-(2**40), 2**40),
)
def test_build_hits_its_own_estimate_for_any_spec(
    size: int, language: str, task: str, depth: float, seed: int
) -> None:
    prompt = PromptBuilder().build(PromptSpec(size, language, task, depth, True, seed))  # type: ignore[arg-type]
    assert abs(prompt.estimated_tokens - size) <= 0.01 * size
    assert prompt.nonce and prompt.nonce not in _built_nonces
    _built_nonces.add(prompt.nonce)
    if task == "needle":
        assert prompt.needle_answer and prompt.text.count(prompt.needle_answer) == 1
        assert len(NEEDLE.findall(prompt.text)) == 1


SIZES = [1024, 4096, 32_768, 131_072]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("task", ["summary", "needle"])
def test_one_observation_brings_real_count_within_two_percent(language: str, task: str) -> None:
    calibration = Calibration()
    builder = PromptBuilder(calibration)
    key = Calibration.key_for("toy", "model-a")

    first = builder.build(PromptSpec(4096, language, task), calibration_key=key)  # type: ignore[arg-type]
    assert not first.calibrated
    uncalibrated = relative_error(first)
    calibration.observe_prompt(key, first, toy_prompt_tokens(first.messages))

    worst = 0.0
    for size in SIZES:
        for seed in range(4):
            spec = PromptSpec(size, language, task, needle_depth=seed / 3, seed=seed)  # type: ignore[arg-type]
            prompt = builder.build(spec, calibration_key=key)
            assert prompt.calibrated
            worst = max(worst, abs(relative_error(prompt)))
    assert worst <= 0.02, f"uncalibrated {uncalibrated:+.1%}, calibrated worst {worst:.2%}"
    if language == "zh":
        assert abs(uncalibrated) > 0.10  # the defaults alone are far off for this tokenizer


def test_plain_chars_observation_works_for_english() -> None:
    calibration = Calibration()
    builder = PromptBuilder(calibration)
    first = builder.build(PromptSpec(8000))
    calibration.observe("toy/m", "en", first.chars, toy_prompt_tokens(first.messages))
    for size in SIZES:
        prompt = builder.build(PromptSpec(size, seed=size), calibration_key="toy/m")
        assert abs(relative_error(prompt)) <= 0.02


def test_two_observations_learn_a_large_template_overhead() -> None:
    calibration = Calibration()
    builder = PromptBuilder(calibration)
    heavy = {"template": 60, "per_message": 10}  # a chat template with a long preamble
    for size in (2048, 65_536):
        prompt = builder.build(PromptSpec(size), calibration_key="toy/heavy")
        calibration.observe_prompt("toy/heavy", prompt, toy_prompt_tokens(prompt.messages, **heavy))
    fit = calibration.fit("toy/heavy", "en")
    assert fit and fit.points == 2
    for size in (1024, 4096, 32_768, 131_072):
        for seed in range(3):
            prompt = builder.build(PromptSpec(size, seed=seed), calibration_key="toy/heavy")
            assert abs(relative_error(prompt, **heavy)) <= 0.02


def test_calibration_is_per_key_and_language_and_survives_json() -> None:
    calibration = Calibration()
    assert calibration.ratio("a/m", "en") is None
    calibration.observe("a/m", "en", 40_000, 10_008)
    calibration.observe("a/m", "en", 10, 0)  # nonsense is ignored
    assert calibration.ratio("a/m", "en") == pytest.approx(4.0)
    assert calibration.ratio("a/m", "zh") is None
    assert calibration.ratio("b/m", "en") is None
    restored = Calibration.from_dict(json.loads(json.dumps(calibration.to_dict())))
    assert restored.fit("a/m", "en") == calibration.fit("a/m", "en")


def test_builder_without_key_uses_defaults() -> None:
    calibration = Calibration()
    calibration.observe("a/m", "en", 40_000, 4_008)
    prompt = PromptBuilder(calibration).build(PromptSpec(1000))
    assert not prompt.calibrated
    assert prompt.chars_per_token == DEFAULT_CHARS_PER_TOKEN["en"]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_local_server_needle_hook_finds_the_code(language: str) -> None:
    builder = PromptBuilder()
    for size, depth in ((128, 0.0), (128, 1.0), (8000, 0.5)):
        prompt = builder.build(PromptSpec(size, language, "needle", depth))  # type: ignore[arg-type]
        answer = textgen.needle_answer(prompt.text, prompt.text)
        assert builder.check_answer(prompt, answer or "") is True
