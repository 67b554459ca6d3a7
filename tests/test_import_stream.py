"""A vLLM result file is read as a stream (core/system/json_stream.py): the same rows as reading the
whole document, wherever the reading window cuts the text, and a peak RSS that does not grow with
the file (a 21 MB file peaked at 245 MB when it was read whole; issue 28's goal is at most 3x).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from workbench.core import result_files
from workbench.core.history.result_import import store_run
from workbench.core.history.run_history import RunStore
from workbench.core.result_files import read_result_file
from workbench.core.result_files.vllm import read as read_vllm
from workbench.core.system import json_stream

DATA = Path(__file__).resolve().parent / "data" / "results"
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _stored(run, folder: Path) -> tuple[list, list, list]:
    with RunStore(folder / "history.sqlite3", recover=False) as store:
        assert store_run(store, run)
        return (
            store.query("SELECT * FROM requests ORDER BY rowid"),
            store.query("SELECT config_json FROM runs"),
            store.query("SELECT * FROM run_aggregates ORDER BY metric, statistic"),
        )


def _whole(path: Path):
    """The run as the whole document gives it: every list held, nothing streamed."""
    data = path.read_bytes()
    doc = json.loads(data.decode("utf-8-sig"))
    return read_vllm(doc, path.name, hashlib.sha256(data).hexdigest())[0]


def _variants(tmp_path: Path) -> list[Path]:
    """The fixtures as they are (pretty-printed), compact, with a BOM and CRLF line ends, and
    with texts outside ASCII (a window's byte offsets must count UTF-8, not characters)."""
    out = [DATA / "vllm_save_detailed.json"]
    doc = json.loads(out[0].read_text())
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(doc, separators=(",", ":")))
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, indent=3).replace("\n", "\r\n").encode())
    wide = tmp_path / "wide.json"
    doc["generated_texts"] = ["注意力 ✓ " + t for t in doc["generated_texts"]]
    doc["label"] = "naïve"
    wide.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return [*out, compact, bom, wide]


def _read_whole_spy(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files read whole (not streamed) from here on."""
    whole: list[Path] = []
    read = result_files.read_bounded

    def spy(path: Path, *args: object) -> bytes:
        whole.append(path)
        return read(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(result_files, "read_bounded", spy)
    return whole


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20], ids=lambda c: f"chunk{c}")
def test_a_streamed_vllm_file_gives_the_same_rows_as_the_whole_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(json_stream, "_CHUNK", chunk)  # every cut of the text is met
    whole_reads = _read_whole_spy(monkeypatch)
    for i, path in enumerate(_variants(tmp_path)):
        [streamed] = read_result_file(path)
        assert whole_reads == [], path.name  # streamed, not read whole after all
        whole = _whole(path)
        assert streamed.sha256 == whole.sha256
        got = _stored(streamed, tmp_path / f"s{i}")
        want = _stored(whole, tmp_path / f"w{i}")
        assert got == want and len(got[0]) == 6, path.name


def test_a_number_cut_after_its_point_by_the_window_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window that ends at "17." of "17.25" (parsed alone: 17, and a stray ".") read on;
    this cut made a 600,000-request file fall back to the whole read, at 729 MB."""
    doc = json.loads((DATA / "vllm_save_detailed.json").read_text())
    text = json.dumps(doc, separators=(",", ":"))
    cut = text.index("1763633700.1") + len("1763633700.")
    monkeypatch.setattr(json_stream, "_CHUNK", cut)  # the first window ends after the point
    path = tmp_path / "cut.json"
    path.write_text(text)
    whole_reads = _read_whole_spy(monkeypatch)
    [streamed] = read_result_file(path)
    assert whole_reads == []
    assert _stored(streamed, tmp_path / "s") == _stored(_whole(path), tmp_path / "w")


def test_the_other_formats_are_read_whole_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole_reads = _read_whole_spy(monkeypatch)
    paths = sorted(DATA.iterdir())
    for path in paths:
        assert read_result_file(path)
    assert [p.name for p in paths if p not in whole_reads] == [
        "vllm_save_detailed.json",
        "vllm_save_result.json",
    ]


def test_a_list_cut_short_is_named_and_nothing_is_stored(tmp_path: Path) -> None:
    doc = json.loads((DATA / "vllm_save_detailed.json").read_text())
    doc["ttfts"][3] = "soon"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    [run] = read_result_file(bad)
    with RunStore(tmp_path / "history.sqlite3", recover=False) as store:
        with pytest.raises(ValueError, match=r"field 'ttfts\[3\]' is 'soon'"):
            store_run(store, run)
        assert store.query("SELECT COUNT(*) FROM requests") == [(0,)]
        assert store.query("SELECT COUNT(*) FROM runs") == [(0,)]


@pytest.mark.slow
def test_a_30_mb_file_imports_within_three_times_its_size(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from import_large import run_import, write_vllm_file
    finally:
        sys.path.remove(str(BENCHMARKS))
    file = tmp_path / "vllm_detailed.json"
    size = write_vllm_file(file, 85_000)
    assert 28e6 < size < 33e6
    _seconds, peak_mb, proc = run_import(file, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "85000 requests" in proc.stdout
    assert peak_mb * 2**20 < 3 * size, f"peak RSS {peak_mb:.0f} MB for a {size / 1e6:.0f} MB file"
