"""`workbench summary`: the stakeholder page of a recorded run, made by a script, read back.

Real subprocesses: `workbench bench` records two models on the built-in provider, then
`workbench summary --last` writes the page; the PDF is read back in plain Python
(tests/support/pdf_text.py), and with poppler's pdftotext where it is installed, as a second reader.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.support.pdf_text import read_pdf

WORKBENCH = [sys.executable, "-m", "workbench"]
MODELS = ("sim-70b-gqa", "sim-70b-mla")


def _run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*WORKBENCH, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A history holding one two-model comparison, made by `workbench bench`."""
    data = tmp_path_factory.mktemp("summary-history")
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(data), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("DISPLAY", None)
    args = ["bench", "--time-scale", "0.05", "--prompt-tokens", "4K", "--max-tokens", "24"]
    for model in MODELS:
        args += ["--model", model]
    proc = _run([*args, "--csv", str(data / "bench.csv")], env)
    assert proc.returncode == 0, proc.stderr
    return env


def test_summary_pdf_from_the_last_run_has_names_chart_titles_and_conclusion(
    recorded: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "s.pdf"
    proc = _run(["summary", "--last", "--pdf", str(out)], recorded)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {out} (1 page")
    pdf = read_pdf(out)
    assert len(pdf.pages) == 1 and pdf.media_boxes == [(595.0, 842.0)]  # A4 in points
    text = pdf.text
    assert f"Model comparison: {MODELS[0]} vs {MODELS[1]}" in text
    for name in MODELS:
        assert name in text
    for title in ("Time to first token", "TTFT (ms)", "Decode speed", "decode (tokens/s)"):
        assert title in text
    assert "At 4K the MLA model" in text and "decodes" in text
    assert "prompt length 4K tokens" in text and "Endpoint: local (127.0.0.1:" in text
    if shutil.which("pdftotext"):  # a second, independent reader where poppler is installed
        poppler = subprocess.run(
            ["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, timeout=30
        )
        assert all(name in poppler.stdout for name in MODELS)


def test_summary_by_run_id_as_letter_png_and_bad_input_exits_2(
    recorded: dict[str, str], tmp_path: Path
) -> None:
    listed = _run(
        ["summary", "--last", "--pdf", str(tmp_path / "a.pdf"), "--paper", "Letter"], recorded
    )
    assert listed.returncode == 0, listed.stderr
    assert read_pdf(tmp_path / "a.pdf").media_boxes == [(612.0, 792.0)]  # Letter in points
    run_id = listed.stdout.rsplit("run ", 1)[1].rstrip(")\n")
    png = tmp_path / "s.png"
    proc = _run(["summary", "--run", run_id, "--png", str(png)], recorded)
    assert proc.returncode == 0, proc.stderr
    image = QImage(str(png))
    assert image.width() == 1600 and image.height() > 2000  # one A4 page, 1,600 px wide
    missing = _run(["summary", "--run", "nosuchrun", "--pdf", str(tmp_path / "x.pdf")], recorded)
    assert missing.returncode == 2
    assert "no single run matches 'nosuchrun'" in missing.stderr and "--last" in missing.stderr
    assert "Traceback" not in missing.stderr
    wrong = _run(["summary", "--last", "--pdf", str(tmp_path / "x.txt")], recorded)
    assert wrong.returncode == 2 and ".pdf or .png" in wrong.stderr
    empty = {**recorded, "WORKBENCH_DATA_DIR": str(tmp_path / "none")}
    nothing = _run(["summary", "--last", "--png", str(png)], empty)
    assert nothing.returncode == 2 and "workbench bench" in nothing.stderr
