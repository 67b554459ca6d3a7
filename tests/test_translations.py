"""The Chinese UI is complete: every string the UI code marks for translation has a translation."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "resources" / "translations" / "workbench_zh_CN.ts"


def test_every_ui_string_has_a_chinese_translation(tmp_path: Path) -> None:
    lupdate = Path(sys.executable).with_name("pyside6-lupdate")
    if not lupdate.is_file():
        pytest.skip("pyside6-lupdate is not installed beside this Python")
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    sources = sorted(str(p) for p in (ROOT / "workbench" / "ui").glob("*.py"))
    subprocess.run(
        [str(lupdate), *sources, "-ts", str(copy), "-no-obsolete", "-silent"],
        check=True,
        capture_output=True,
    )
    messages = ET.parse(copy).getroot().iter("message")
    missing = [
        m.findtext("source")
        for m in messages
        if not (m.findtext("translation") or "").strip()
        or m.find("translation").get("type") == "unfinished"
    ]
    assert not missing, f"untranslated (run scripts/update_translations.sh): {missing[:10]}"
    assert len(list(ET.parse(copy).getroot().iter("message"))) > 300
