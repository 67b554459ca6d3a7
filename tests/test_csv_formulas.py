"""No cell of a CSV we write is a spreadsheet formula (OWASP's CSV-injection rule).

A server chooses the chunk id (our `response_id`), the finish reason and the model ids it
lists; a text cell starting with =, +, -, @, a tab or a carriage return gets a leading single
quote, while numbers we format ourselves (a negative one included) stay numbers. The history
keeps the raw value.
"""

from __future__ import annotations

import asyncio
import csv
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from scripted_server import ScriptedServer, chunk

from kernels_bridge.client.jobs import write_rows_csv
from kernels_bridge.protocol import ResultRow
from workbench.core.foundation.results import RequestResult
from workbench.core.history.csv_export import COLUMNS, write_csv, write_table
from workbench.core.history.run_history import RunStore

HYPERLINK = '=HYPERLINK("http://x","click")'
CALC = "=cmd|' /C calc'!A0"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP's list
SERVER_TEXT = ("response_id", "finish_reason", "model", "error_message", "provider", "task")


def _cells(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def _starts_a_formula(cell: str) -> bool:
    """A cell a spreadsheet would evaluate: a formula start that is not a plain number."""
    if not cell.startswith(FORMULA_STARTS):
        return False
    try:
        float(cell)
    except ValueError:
        return True
    return False


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.text(max_size=40), min_size=len(SERVER_TEXT), max_size=6))
def test_no_cell_of_arbitrary_server_text_starts_a_formula(tmp_path_factory, values) -> None:
    path = tmp_path_factory.mktemp("csv") / "rows.csv"
    result = RequestResult(**dict(zip(SERVER_TEXT, values, strict=False)))
    write_csv(path, [result], redact=lambda text: text)
    header, row = _cells(path)
    assert header == list(COLUMNS)
    cells = dict(zip(header, row, strict=True))
    for name, raw in zip(SERVER_TEXT, values, strict=False):
        cell = cells[name]
        assert not _starts_a_formula(cell), (name, cell)
        # the raw text is there, behind the quote when one was needed
        assert cell in (raw, "'" + raw), (name, raw, cell)


def test_a_negative_number_stays_a_number_and_text_gets_the_quote(tmp_path) -> None:
    path = tmp_path / "rows.csv"
    result = RequestResult(
        model="-m", response_id=HYPERLINK, finish_reason=CALC, network_baseline_ms=-1.5
    )
    write_csv(path, [result])
    cells = dict(zip(*_cells(path), strict=True))
    assert cells["network_baseline_ms"] == "-1.500"  # ours: a number, not neutralised
    assert cells["response_id"] == "'" + HYPERLINK
    assert cells["finish_reason"] == "'" + CALC
    assert cells["model"] == "'-m"


def test_a_table_as_shown_quotes_its_text_and_keeps_its_numbers(tmp_path) -> None:
    """Export CSV of the Results view per model and length: formatted figures stay figures."""
    path = tmp_path / "shown.csv"
    rows = [["=model", "-1,234.5", "7", "–", "+cmd"], ["gqa", "-0.25", "1,024", "@x", ""]]
    assert write_table(path, ["model", "delta", "n", "p90", "note"], rows) == 2
    header, first, second = _cells(path)
    assert header == ["model", "delta", "n", "p90", "note"]
    assert first == ["'=model", "-1,234.5", "7", "–", "'+cmd"]
    assert second == ["gqa", "-0.25", "1,024", "'@x", ""]


def test_the_kernel_csv_quotes_text_and_keeps_numbers(tmp_path) -> None:
    row = ResultRow(
        variant="gqa", backend="triton", device="@evil", dtype="bf16", batch=1, kv_len=1024,
        q_len=1, latency_us=-0.5, error=HYPERLINK,
    )  # fmt: skip
    path = tmp_path / "kernels.csv"
    write_rows_csv(path, [row])
    header, cells = _cells(path)
    values = dict(zip(header, cells, strict=True))
    assert values["error"] == "'" + HYPERLINK and values["device"] == "'@evil"
    assert values["latency_us"] == "-0.5"


@contextmanager
def _server_thread(server: ScriptedServer) -> Iterator[ScriptedServer]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.__aenter__())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(server.__aexit__())
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)


def _hostile_chunk(**kwargs: object) -> dict:
    body = chunk(**kwargs)  # type: ignore[arg-type]
    body["id"] = HYPERLINK
    return body


def test_bench_csv_neutralises_a_hostile_chunk_id_and_the_history_keeps_it(tmp_path) -> None:
    script = [
        (0, _hostile_chunk(role="assistant", content="")),
        (0, _hostile_chunk(content="one two three")),
        (0, _hostile_chunk(finish="stop")),
        (0, _hostile_chunk(usage={"prompt_tokens": 128, "completion_tokens": 3})),
        (0, "[DONE]"),
    ]
    out = tmp_path / "rows.csv"
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data")}
    env["WORKBENCH_CONFIG_DIR"] = str(tmp_path / "config")
    with _server_thread(ScriptedServer(script)) as server:
        proc = subprocess.run(
            [
                sys.executable, "-m", "workbench", "bench", "--base-url", server.base_url,
                "--model", "m", "--prompt-tokens", "128", "--max-tokens", "8", "--repeats", "2",
                "--csv", str(out),
            ],
            capture_output=True, text=True, timeout=180, check=False, env=env, cwd=tmp_path,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    header, *rows = _cells(out)
    assert rows
    for row in rows:
        assert [c for c in row if _starts_a_formula(c)] == [], row
        assert dict(zip(header, row, strict=True))["response_id"] == "'" + HYPERLINK
    with RunStore(tmp_path / "data" / "history.sqlite3") as store:
        [run] = store.runs()
        assert {r.response_id for r in store.results(run.run_id)} == {HYPERLINK}
