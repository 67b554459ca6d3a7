"""What every result-file reader shares: the run it yields, its error, field readers that name
the broken field, and one request row built from a tool's per-request figures."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.foundation.results import UNKNOWN_PRICES, ErrorClass, RequestResult

_NS_PER_MS = 1_000_000
# the largest figure a file holds is an epoch time in nanoseconds (1.8e18 today): larger values
# are damage, and would overflow once turned into nanoseconds (a 1e308 ttft became inf)
MAX_MAGNITUDE = 1e19
_MAX_NS = 2**62  # what an SQLite integer holds, with room for sums


CONTEXT = "ResultFile"  # the translation context of the readers' messages


class ResultFileError(ValueError):
    """A result file cannot be read; the message names the file, the field and the fix.

    `phrase` is the message for the window to say in its language (its templates are marked
    with QT_TRANSLATE_NOOP("ResultFile", ...) where they are raised); str() is its English, as
    the CLI prints it. A plain str message stays English in every language."""

    def __init__(self, message: str | Phrase) -> None:
        self.phrase = message if isinstance(message, Phrase) else Phrase(message, context=CONTEXT)
        super().__init__(str(self.phrase))


def said(template: str, **fields: object) -> Phrase:
    """A reader's message (or part of one) from its marked template and its data."""
    return phrase(template, context=CONTEXT, **fields)


@dataclass
class ImportedRun:
    """One benchmark of a foreign result file, as our history keeps it.

    `aggregates` holds (metric, statistic) -> value as the tool computed them (ms, tokens/s,
    requests/s); `results` the per-request rows where the file has them, else empty.
    """

    tool: str  # "vllm", "guidellm", "aiperf", "genai-perf"
    tool_version: str | None
    file_name: str
    sha256: str
    index: int  # which benchmark of the file (0 for a file with one)
    model: str | None
    base_url: str | None
    concurrency: int | None
    request_rate: float | None  # requests/s; None for unlimited or not given
    results: list[RequestResult] = field(default_factory=list)
    aggregates: dict[tuple[str, str], float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # the tool's own run settings
    date: float | None = None  # when the tool ran it (epoch s), as the file says; None: unsaid
    # a file read as a stream (vLLM's) gives its requests here instead of in `results`: read
    # one at a time when the run is stored, never all held at once
    rows: Callable[[], Iterator[RequestResult]] | None = None
    request_count: int = 0
    prompt_lengths: list[int] | None = None  # the distinct prompt lengths, where `rows` is set

    def requests(self) -> Iterator[RequestResult]:
        """Every request row, from the stream or the list."""
        return self.rows() if self.rows is not None else iter(self.results)

    def count_requests(self) -> int:
        return self.request_count if self.rows is not None else len(self.results)

    def __post_init__(self) -> None:
        if self.base_url:
            self.base_url = bare_url(self.base_url)

    @property
    def run_id(self) -> str:
        """The same file gives the same ids, so importing it twice adds nothing."""
        return f"import-{self.sha256[:20]}-{self.index}"


def bare_url(url: str) -> str | None:
    """A tool's target URL without user name, password, query or fragment: a key pasted
    into it never reaches the history."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # a malformed host ("http://[x/"): nothing safe to keep
        return None
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", "")) or None


def fail(file_name: str, where: str, problem: str | Phrase) -> ResultFileError:
    return ResultFileError(
        said(
            QT_TRANSLATE_NOOP(
                "ResultFile",
                "{file}: field '{field}' {problem}: fix or remove that field, or re-export the "
                "file from the tool that wrote it",
            ),
            file=file_name,
            field=where,
            problem=problem if isinstance(problem, Phrase) else Phrase(problem, context=CONTEXT),
        )
    )


def number(value: Any, file_name: str, where: str, *, optional: bool = True) -> float | None:
    """A finite number of at most MAX_MAGNITUDE, None when absent (and allowed); anything else
    names the field."""
    if value is None and optional:
        return None
    problem = said(QT_TRANSLATE_NOOP("ResultFile", "expected a number"))
    try:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise OverflowError
        result = float(value)  # an int too large for a double overflows here
        if not math.isfinite(result):
            raise OverflowError
        if abs(result) > MAX_MAGNITUDE:
            problem = said(
                QT_TRANSLATE_NOOP(
                    "ResultFile", "out of range (no benchmark figure exceeds {limit})"
                ),
                limit=f"{MAX_MAGNITUDE:g}",
            )
            raise OverflowError
    except OverflowError:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        bad = said(
            QT_TRANSLATE_NOOP("ResultFile", "is {value}, {problem}"), value=shown, problem=problem
        )
        raise fail(file_name, where, bad) from None
    return result


def numbers(values: Any, file_name: str, where: str, scale: float = 1.0) -> list[float]:
    """A list of finite numbers times `scale`; the first bad entry is named."""
    items = sequence(values, file_name, where)
    scale = float(scale)
    # the common case checked in one pass: a detailed file holds millions of gaps
    if all(type(v) is float or type(v) is int for v in items):
        # a NaN fails both comparisons, so it takes the slow path that names it
        if all(-MAX_MAGNITUDE <= v <= MAX_MAGNITUDE for v in items):
            return [v * scale for v in items]
    return [
        (number(v, file_name, f"{where}[{j}]", optional=False) or 0.0) * scale
        for j, v in enumerate(items)
    ]


def count(value: Any, file_name: str, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        expected = QT_TRANSLATE_NOOP("ResultFile", "is {value}, expected a token count")
        raise fail(file_name, where, said(expected, value=repr(value)))
    return value


def text(value: Any, file_name: str, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    expected = QT_TRANSLATE_NOOP("ResultFile", "is {value}, expected text")
    raise fail(file_name, where, said(expected, value=repr(value)))


def mapping(value: Any, file_name: str, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        expected = QT_TRANSLATE_NOOP("ResultFile", "is a {type}, expected an object")
        raise fail(file_name, where, said(expected, type=type(value).__name__))
    return value


def sequence(value: Any, file_name: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        expected = QT_TRANSLATE_NOOP("ResultFile", "is {type}, expected a list")
        raise fail(file_name, where, said(expected, type=type(value).__name__))
    return value


def _ns(ms: float) -> int:
    return round(ms * _NS_PER_MS)


@dataclass(frozen=True)
class RequestFigures:
    """One request as a tool saw it; None where the tool did not say."""

    ttft_ms: float | None
    itls_ms: list[float] | None  # gaps between the chunks after the first
    e2e_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    error: str | None = None
    started_at: float | None = None  # epoch seconds
    text: str = ""
    warmup: bool = False
    last_token_ms: float | None = None  # when the tool gives it apart from its ITLs
    # the prompt length the run asked for, when the file states it (one setting for a run of
    # many real lengths); None: each request's own length stands for it
    prompt_target: int | None = None


def request_row(run: ImportedRun, number_: int, figures: RequestFigures) -> RequestResult:
    """A RequestResult whose timestamps give back the tool's figures: t_send is 0, the first
    token at TTFT, one text event per chunk (its ITL gaps). Without ITLs only the first token
    is an event and every output token counts as one (decode = (n - 1) / span, the tools' own
    rule), so no inter-token latency is made up."""
    first = None if figures.ttft_ms is None else _ns(figures.ttft_ms)
    events: list[int] = []
    token_events = 0
    last = None
    if first is not None:
        events = list(
            itertools.accumulate(
                (round(gap * _NS_PER_MS) for gap in figures.itls_ms or ()), initial=first
            )
        )
        last = events[-1]
        # without gaps, every output token counts as its own event (k = 1 in docs/metrics.md)
        token_events = (
            len(events) if figures.itls_ms is not None else figures.completion_tokens or 0
        )
        if figures.last_token_ms is not None:
            last = _ns(figures.last_token_ms)
    done = _ns(figures.e2e_ms) if figures.e2e_ms is not None else last
    if any(abs(t) > _MAX_NS for t in (first, last, done) if t is not None):
        raise ResultFileError(
            f"{run.file_name}: request {number_}: its times add up to more than "
            f"{_MAX_NS / 1e9 / 86400 / 365:,.0f} years: fix or remove the request, or re-export "
            "the file from the tool that wrote it"
        )
    return RequestResult(
        model=run.model or "",
        provider=run.base_url or "",
        base_url=run.base_url or "",
        run_id=run.run_id,
        request_id=f"{run.run_id}-{number_}",
        started_at=figures.started_at or 0.0,
        prompt_tokens_target=(
            figures.prompt_target if figures.prompt_target is not None else figures.prompt_tokens
        ),
        concurrency=run.concurrency or 0,  # 0: the file did not say
        warmup=figures.warmup,
        phase="warmup" if figures.warmup else "measured",
        task=f"imported from {run.tool}",
        t_send=0,
        t_first_token=first,
        t_first_content=first,
        t_last_token=last,
        t_done=done,
        event_times=events,
        token_events=token_events,
        text=figures.text,
        prompt_tokens=figures.prompt_tokens,
        completion_tokens=figures.completion_tokens,
        # the tool's message is kept as it came; we cannot tell its cause from here
        error_class=ErrorClass.SERVER if figures.error else None,
        error_message=figures.error or None,
        prices=UNKNOWN_PRICES,
    )
