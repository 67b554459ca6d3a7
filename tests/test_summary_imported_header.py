"""An imported run's Summary header says what the file says (issue 25, item 10): History →
Import… a vLLM --save-detailed file, Open results, the Summary tab. The endpoint is the file's
or, when it names none, the file and tool it came from (never "Endpoint:  ()"); its
max_concurrency is shown; the run is said to be imported, not measured here. A conclusion's
heading is its own line in the PDF. `workbench summary` writes the same page (one core path)."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from test_summary_imported_gui import _import, _open

from tests.support.gui_driver import click_run, click_tab, run_sweep, set_panes
from tests.support.pdf_text import read_pdf

DATA = Path(__file__).parent / "data" / "results"


def test_an_imported_vllm_run_names_its_file_its_concurrency_and_no_empty_endpoint(
    window, qtbot, loop, tmp_path
) -> None:
    _import(window, qtbot, DATA / "vllm_save_detailed.json", loop)
    header = _open(window, qtbot, 0).subtitle()
    assert header[1] == "Endpoint: none stated in vllm_save_detailed.json by vllm"
    assert "imported from vllm_save_detailed.json by vllm" in header[2]
    assert "measured with Attention Workbench" not in header[2]
    assert "Concurrency 4: up to 4 requests in flight at once." in header
    pdf = read_pdf(window.summary_view.export(tmp_path / "s.pdf", "A4")).text
    assert "Endpoint: none stated in vllm_save_detailed.json by vllm" in pdf
    assert "()" not in pdf


def _lines(document) -> list[str]:
    document.size()  # lays it out
    out, block = [], document.begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            out.append(text[line.textStart() : line.textStart() + line.textLength()])
        block = block.next()
    return out


def test_an_imported_runs_header_never_wraps_inside_a_unit(window, qtbot, loop, tmp_path) -> None:
    """The header wrapped inside "tok/s" ("decode tok/" | "s excludes"): at every width the
    header and the conclusions may have, a unit stays whole and beside its figure."""
    _import(window, qtbot, DATA / "vllm_save_detailed.json", loop)
    document = _open(window, qtbot, 0)
    assert any("decode tok/s" in line for line in document.subtitle())
    split = []
    for width in range(300, 905):
        for block in [*document._header(width), document._conclusion_block(width)]:
            lines = _lines(block.document)
            split += [
                (width, a, b)
                for a, b in itertools.pairwise(lines)
                if (a.endswith("/") and re.match(r"(s|req|token)\b", b))
                or re.match(r"(%|ms|s|B)\b", b)
            ]
    assert not split, split[:3]
    out = window.summary_view.export(tmp_path / "s.pdf", "A4")
    # the joiner is a glyph that maps back to a blank for our reader: a reader that knows it
    # is zero-width (poppler's) copies the unit as it is shown
    assert re.search(r"decode tok/\s?s excludes", " ".join(read_pdf(out).text.split()))
    if shutil.which("pdftotext"):
        copied = subprocess.run(
            ["pdftotext", str(out), "-"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
        assert "decode tok/s excludes" in copied


def test_an_imported_file_that_names_its_server_shows_that_endpoint(
    window, qtbot, loop, tmp_path
) -> None:
    detailed = json.loads((DATA / "vllm_save_detailed.json").read_text())
    path = tmp_path / "vllm-with-url.json"
    path.write_text(json.dumps(detailed | {"base_url": "http://gpu-box.lan:8000"}))
    _import(window, qtbot, path, loop)
    header = _open(window, qtbot, 0).subtitle()
    assert header[1] == "Endpoint: gpu-box.lan:8000"


def test_a_single_models_conclusion_heading_is_its_own_line_in_the_pdf(
    window, qtbot, loop, tmp_path
) -> None:
    set_panes(window, ["sim-70b-gqa"])
    assert click_run(window, qtbot, loop).status == "finished"
    click_tab(window, qtbot, window.summary_view)
    qtbot.waitUntil(lambda: window.summary_view.document is not None, timeout=10000)
    out = window.summary_view.export(tmp_path / "s.pdf", "A4")
    lines = [" ".join(line.split()) for line in read_pdf(out).pages[0].splitlines()]
    assert lines[lines.index("Conclusion") + 1].startswith("Run a comparison")
    if shutil.which("pdftotext"):  # it reads lines by where they sit: the heading's own line
        text = subprocess.run(
            ["pdftotext", str(out), "-"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
        # was one paragraph: "ConclusionRun a comparison of at least two models…"
        assert "Conclusion\nRun a comparison" in text


@pytest.mark.slow
def test_workbench_summary_writes_the_same_header_for_an_imported_file(tmp_path) -> None:
    env = {"WORKBENCH_DATA_DIR": str(tmp_path / "data"), "WORKBENCH_CONFIG_DIR": str(tmp_path)}
    env |= {k: v for k, v in os.environ.items() if k not in env}
    env["QT_QPA_PLATFORM"] = "offscreen"
    cli = [sys.executable, "-m", "workbench"]
    imported = [*cli, "import-results", str(DATA / "vllm_save_detailed.json")]
    subprocess.run(imported, env=env, check=True, capture_output=True, timeout=120)
    out = tmp_path / "s.pdf"
    summary = [*cli, "summary", "--last", "--pdf", str(out)]
    subprocess.run(summary, env=env, check=True, capture_output=True, timeout=120)
    text = " ".join(read_pdf(out).text.split())
    assert "Endpoint: none stated in vllm_save_detailed.json by vllm" in text
    assert "Concurrency 4: up to 4 requests in flight at once." in text
    assert "20 November 2026, 10:15" in text


def test_open_results_of_a_single_setting_import_shows_a_comparison_and_keeps_the_sweep(
    window, qtbot, loop, tmp_path
) -> None:
    """A vLLM file of one prompt length at one concurrency is one setting, not a sweep: Open
    results shows its rows in the Results tab and its Summary as a comparison; the Sweep tab
    keeps the sweep the presenter ran (only a run over several lengths replaces it)."""
    assert run_sweep(window, qtbot, loop).status == "finished"
    swept = set(window.sweep_view.series("ttft_ms"))
    detailed = json.loads((DATA / "vllm_save_detailed.json").read_text())
    path = tmp_path / "vllm-one-length.json"
    path.write_text(json.dumps(detailed | {"input_lens": [1024] * 6}))
    _import(window, qtbot, path, loop)
    history = window.history_view
    kinds = [history.table.item(r, 1).text() for r in range(history.table.rowCount())]
    index = kinds.index("comparison, imported from vllm")
    history.table.selectRow(index)
    qtbot.mouseClick(history.open_button, Qt.MouseButton.LeftButton)
    assert window.tabs.currentWidget() is window.results_view
    assert {r.model for r in window.results_view.results} == {detailed["model_id"]}
    assert swept <= set(window.sweep_view.series("ttft_ms"))  # the local sweep is still drawn
    document = _open(window, qtbot, index)
    assert document.title() == f"Model comparison: {detailed['model_id']}"
