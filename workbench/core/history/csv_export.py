"""One CSV row per request: the column list lives here and nowhere else.

Rows are plain strings: floats rounded (ms to 3 decimals, tok/s to 2, cost to 8 significant
figures), None as an empty cell, booleans as "true"/"false". Files are UTF-8 with RFC 4180
quoting and CRLF row ends, written through the csv module so commas, quotes, newlines and
Chinese text in error messages survive any spreadsheet. A text cell a spreadsheet would take
for a formula gets a leading single quote (csv_cells.py); the history keeps the raw value.
`CsvWriter` appends and flushes each row as its request finishes, so an interrupted run keeps
every finished row; files it creates are 0600 (rows hold model output).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from workbench.core.foundation.csv_cells import inert, inert_shown
from workbench.core.foundation.metrics import derive
from workbench.core.foundation.redaction import redact as secrets_redact
from workbench.core.foundation.results import RequestResult

# (name, one-line description): docs/csv.md is generated from this (scripts/gen_docs.py).
COLUMN_DOCS: tuple[tuple[str, str], ...] = (
    ("run_id", "the run (comparison, sweep or replay) this request belongs to"),
    ("request_id", "unique id of this request (a retry is a new request)"),
    ("started_at", "wall-clock time the request was sent, ISO 8601 UTC with milliseconds"),
    ("provider", "provider name as configured"),
    ("base_url_host", "host[:port] of the base URL; never the path, query or any key"),
    ("model", "model id sent to the server"),
    ("attention", "attention mechanism of the model, when known (MHA, GQA, MLA, ...)"),
    ("task", "prompt task: summary, or needle@<depth>"),
    ("prompt_tokens_target", "prompt size asked for, in tokens"),
    ("prompt_tokens", "usage.prompt_tokens reported by the server"),
    ("completion_tokens", "usage.completion_tokens (an estimate when usage_estimated is true)"),
    ("cached_tokens", "prompt tokens the server served from its prefix cache"),
    ("usage_estimated", "true when the server gave no usage and token counts are estimates"),
    ("ttft_ms", "time to first token: first content or reasoning text after sending"),
    ("ttfc_ms", "time to first content token (differs from TTFT for reasoning models)"),
    ("e2e_ms", "time from sending to the end of the stream"),
    ("decode_tps", "decode speed: (completion_tokens - 1) / (last token - first token)"),
    ("overall_tps", "completion_tokens / e2e"),
    ("prefill_tps", "prompt_tokens / (TTFT - network baseline)"),
    ("tpot_ms", "time per output token after the first"),
    ("itl_p50_ms", "median gap between text events"),
    ("itl_p90_ms", "90th percentile gap between text events"),
    ("itl_p99_ms", "99th percentile gap between text events"),
    ("network_baseline_ms", "median time to the first event of a 1-token chat request (ms)"),
    ("baseline_method", "how the baseline was measured: chat (the chat path) or models"),
    ("cost_usd", "tokens at the model's prices (cached at their price); blank if price unknown"),
    ("finish_reason", "the server's finish_reason (stop, length, ...)"),
    ("needle_found", "for a needle task, whether the answer contained the secret code"),
    ("http_status", "HTTP status of the response"),
    ("error_class", "why the request failed (empty when it succeeded)"),
    ("error_message", "what went wrong, in words"),
    ("repeat", "repeat index within its plan step"),
    (
        "concurrency",
        "requests in flight at once in this step (open loop: the --max-concurrency cap, 0: none)",
    ),
    ("attempt", "1 for a first try; higher for a retry"),
    ("warmup", "true for a warm-up request (kept, but not in aggregates)"),
    ("price_known", "false when no catalog or providers.toml price is known: cost_usd is blank"),
    (
        "usage_suspect",
        "true when usage looks made up (completion_tokens < text events, or prompt_tokens over "
        "5 % from the calibrated estimate): decode_tps uses the events",
    ),
    ("phase", "calibration, warmup or measured: why the request was sent"),
    ("route", "direct or gateway in a route comparison (--compare-route); else empty"),
    ("dispatch_ms", "client-side wait from the request's intended start to its bytes leaving"),
    ("response_id", "the server's completion id (the chunks' id), to find the row in its logs"),
    ("protocol", "the wire protocol: chat, responses or anthropic"),
    (
        "cache_creation_tokens",
        "prompt tokens written into the prompt cache (Anthropic), part of prompt_tokens",
    ),
    ("reasoning_tokens", "output tokens the server counted as reasoning, part of completion"),
    (
        "scheduled_s",
        "open-loop runs (--rate): when the request was due, seconds from its cell's start",
    ),
    ("offered_rate", "open-loop runs (--rate): the cell's requests/s; a capacity step's rate"),
    (
        "ttft_from_scheduled_ms",
        "time from when the request was due (scheduled) to its first token: dispatch + TTFT",
    ),
    ("e2e_from_scheduled_ms", "time from when the request was due to the end of the stream"),
    ("slo_met", "true when the request met every objective of --slo; empty without --slo"),
)
COLUMNS: tuple[str, ...] = tuple(name for name, _ in COLUMN_DOCS)

_MS_COLUMNS = (
    "ttft_ms",
    "ttfc_ms",
    "e2e_ms",
    "tpot_ms",
    "itl_p50_ms",
    "itl_p90_ms",
    "itl_p99_ms",
    "dispatch_ms",
    "ttft_from_scheduled_ms",
    "e2e_from_scheduled_ms",
)
_TPS_COLUMNS = ("decode_tps", "overall_tps", "prefill_tps")
# cells whose text may come from a server, a file or a user, not from our number formats: each
# goes through csv_cells.inert (a response id "=HYPERLINK(...)" is no formula in a spreadsheet)
_TEXT_COLUMNS = (
    "run_id",
    "request_id",
    "provider",
    "base_url_host",
    "model",
    "attention",
    "task",
    "baseline_method",
    "finish_reason",
    "error_class",
    "error_message",
    "phase",
    "route",
    "response_id",
    "protocol",
)


def base_url_host(base_url: str) -> str:
    """host[:port] of a base URL, lower-cased: no scheme, user info, path, query or fragment."""
    url = base_url.strip()
    if not url:
        return ""
    if "://" not in url:
        url = "//" + url
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return ""
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal
    return f"{host}:{port}" if port is not None else host


def iso_utc(epoch_seconds: float) -> str:
    """ISO 8601 UTC with milliseconds, e.g. 2025-01-31T09:15:02.123Z; empty for an unset time."""
    if not epoch_seconds or epoch_seconds <= 0:
        return ""
    moment = dt.datetime.fromtimestamp(epoch_seconds, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _fixed(value: float | None, places: int) -> str:
    return "" if value is None else f"{value:.{places}f}"


def _significant(value: float | None, digits: int = 8) -> str:
    if value is None:
        return ""
    text = format(Decimal(f"{value:.{digits}g}"), "f")  # no exponent, for any spreadsheet
    return text.rstrip("0").rstrip(".") if "." in text else text


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def row_for(result: RequestResult, redact: Callable[[str], str] | None = None) -> dict[str, str]:
    """The CSV row of one request, every figure from `metrics.derive`.

    The error message goes through `redact` (default: secrets.redact): servers echo keys.
    """
    metrics = derive(result)
    redact = redact or secrets_redact
    message = result.error_message
    if message is not None:
        message = redact(message)
    row = {
        "run_id": result.run_id,
        "request_id": result.request_id,
        "started_at": iso_utc(result.started_at),
        "provider": result.provider,
        "base_url_host": base_url_host(result.base_url),
        "model": result.model,
        "attention": _text(result.attention),
        "task": result.task,
        "prompt_tokens_target": _text(result.prompt_tokens_target),
        "prompt_tokens": _text(result.prompt_tokens),
        "completion_tokens": _text(result.completion_tokens),
        "cached_tokens": _text(result.cached_tokens),
        "usage_estimated": _text(result.usage_estimated),
        "network_baseline_ms": _fixed(result.network_baseline_ms, 3),
        "baseline_method": _text(result.baseline_method),
        "cost_usd": _significant(metrics.cost_usd),
        "finish_reason": _text(result.finish_reason),
        "needle_found": _text(result.needle_found),
        "http_status": _text(result.http_status),
        "error_class": _text(result.error_class.value if result.error_class else None),
        "error_message": _text(message),
        "repeat": _text(result.repeat),
        "concurrency": _text(result.concurrency),
        "attempt": _text(result.attempt),
        "warmup": _text(result.warmup),
        "price_known": _text(result.prices.known),
        "usage_suspect": _text(result.usage_suspect),
        "phase": result.phase,
        "route": _text(result.route),
        "response_id": redact(result.response_id or ""),  # the server chose it: it may echo
        "protocol": result.protocol,
        "cache_creation_tokens": _text(result.cache_creation_tokens),
        "reasoning_tokens": _text(result.reasoning_tokens),
        "scheduled_s": _fixed(result.scheduled_s, 6),
        "offered_rate": _text(result.offered_rate),
        "slo_met": _text(result.slo_met),
    }
    for name in _TEXT_COLUMNS:
        row[name] = inert(row[name])
    for name in _MS_COLUMNS:
        row[name] = _fixed(getattr(metrics, name), 3)
    for name in _TPS_COLUMNS:
        row[name] = _fixed(getattr(metrics, name), 2)
    return {name: row[name] for name in COLUMNS}


def check_csv_path(path: str | os.PathLike[str]) -> Path:
    """Refuse a CSV path that cannot be written, before any request is sent.

    ValueError names the cause and the fix. Nothing is truncated here: an existing file keeps
    its rows until the run really starts writing.
    """
    text = os.fspath(path)
    if not text.strip():
        raise ValueError("the CSV path is empty; give a file name, e.g. results.csv")
    target = Path(text).expanduser()
    if target.is_dir():
        raise ValueError(
            f"{target} is a folder; give a file name inside it, e.g. {target / 'results.csv'}"
        )
    parent = target.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise ValueError(
            f"the folder {parent} {what}; create it (mkdir -p '{parent}') or pick another path"
        )
    if target.exists():
        kind = target.stat().st_mode
        if stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind):
            raise ValueError(f"{target} is a pipe or socket, not a file; pick a file path")
    existed = target.exists()
    try:  # open without truncating: proves the folder and the file let us write
        flags = os.O_WRONLY | (os.O_APPEND if existed else os.O_CREAT | os.O_EXCL)
        os.close(os.open(target, flags, 0o600))
    except OSError as exc:
        raise ValueError(
            f"cannot write {target}: {exc.strerror or exc}; pick a path you can write to"
        ) from None
    if not existed:
        target.unlink(missing_ok=True)
    return target


def _open_private(path: Path) -> TextIO:
    """Open for writing from scratch; a file we create is 0600 (rows hold model output)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    # a lone surrogate in an error message must not cost the row: it becomes "?"
    return open(fd, "w", encoding="utf-8", newline="", errors="replace")


class CsvWriter:
    """Rows appended as requests finish, each written whole at once: a crash, Ctrl-C or kill
    keeps every finished row, and the file is valid CSV after every row.

    Each row is formatted first, then written with unbuffered writes; when a write fails (a
    full disk takes part of a row, then refuses the rest) the file is cut back to the end of
    the last whole row, so no row is ever torn. The header is written on open, so an
    unwritable target (a full disk, /dev/full) fails before the first request. Write errors
    raise OSError.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.rows = 0
        self._redact = redact
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self._size = 0  # bytes of whole rows in the file
        self._row = io.StringIO()
        self._writer = csv.DictWriter(
            self._row, fieldnames=COLUMNS, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n"
        )
        try:
            self._writer.writeheader()
            self._write_whole()
        except BaseException:
            self.close()
            raise

    def append(self, result: RequestResult) -> None:
        self._writer.writerow(row_for(result, self._redact))
        self._write_whole()
        self.rows += 1

    def _write_whole(self) -> None:
        """The formatted row into the file whole, or the file left as it was."""
        # a lone surrogate in an error message must not cost the row: it becomes "?"
        data = memoryview(self._row.getvalue().encode("utf-8", errors="replace"))
        self._row.seek(0)
        self._row.truncate()
        assert self._fd is not None, "the CSV was closed"
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)
                os.lseek(self._fd, self._size, os.SEEK_SET)
            raise
        self._size = os.lseek(self._fd, 0, os.SEEK_CUR)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def __enter__(self) -> CsvWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_csv(
    path: str | os.PathLike[str],
    results: Iterable[RequestResult],
    *,
    redact: Callable[[str], str] | None = None,
) -> int:
    """Write one row per result (header always); returns the number of rows written."""
    with CsvWriter(path, redact=redact) as writer:
        for result in results:
            writer.append(result)
        return writer.rows


def read_csv(path: str | os.PathLike[str]) -> list[dict[str, str]]:
    """Rows of a CSV written by `write_csv` (with or without a byte-order mark)."""
    with Path(path).open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def write_table(
    path: str | os.PathLike[str], header: Sequence[str], rows: Iterable[Sequence[str]]
) -> int:
    """A table as a view shows it (the Results table's rows per model and prompt length): its
    header, then its rows, with write_csv's file conventions; returns the rows written."""
    with _open_private(Path(path)) as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
        writer.writerow([inert_shown(cell) for cell in header])
        count = 0
        for row in rows:
            writer.writerow([inert_shown(cell) for cell in row])
            count += 1
        return count
