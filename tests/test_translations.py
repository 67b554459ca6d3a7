"""The Chinese UI is complete: every string the UI code marks for translation has a translation."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "resources" / "translations" / "workbench_zh_CN.ts"


def _load_sources_script() -> ModuleType:
    path = ROOT / "scripts" / "translation_sources.py"
    spec = importlib.util.spec_from_file_location("translation_sources", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


translation_sources = _load_sources_script()


def test_the_sources_are_every_module_that_marks_strings(tmp_path: Path) -> None:
    found = {p.as_posix() for p in translation_sources.sources()}
    assert {
        "workbench/ui/main_window.py",
        "workbench/core/foundation/error_messages.py",
        "workbench/core/doctor/messages.py",
        "workbench/core/access/providers.py",
    } <= found
    assert "workbench/ui/theme.py" not in found  # marks nothing
    # a module added tomorrow is found without being listed anywhere
    (tmp_path / "workbench" / "ui").mkdir(parents=True)
    (tmp_path / "kernels_bridge").mkdir()
    (tmp_path / "workbench" / "ui" / "new_tab.py").write_text('label = self.tr("New")\n')
    (tmp_path / "workbench" / "ui" / "plain.py").write_text('label = "New"\n')
    (tmp_path / "kernels_bridge" / "words.py").write_text('QT_TRANSLATE_NOOP("K", "x")\n')
    assert [p.as_posix() for p in translation_sources.sources(tmp_path)] == [
        "workbench/ui/new_tab.py",
        "kernels_bridge/words.py",
    ]


def test_every_ui_string_has_a_chinese_translation(tmp_path: Path) -> None:
    # PySide6 installs pyside6-lupdate beside the Python it is installed for
    lupdate = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    assert lupdate, f"pyside6-lupdate is not beside {sys.executable}: install PySide6"
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    # the modules that mark strings, found as scripts/update_translations.sh finds them
    sources = [str(ROOT / path) for path in translation_sources.sources()]
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


def test_a_pane_error_reads_in_chinese_with_the_servers_words_kept(qapp) -> None:
    from PySide6.QtCore import QCoreApplication, QTranslator

    from workbench.ui.error_titles import error_html

    message = "HTTP 503 from the server. Cause: the server failed. Fix: retry later"
    english = error_html("server_error", message)
    assert english.startswith("<b>The server failed (5xx)</b>")
    assert english.split("<br>") == [english.split("<br>")[0], message]  # no cause repeated
    translator = QTranslator()
    assert translator.load(str(TS.with_suffix(".qm")))
    QCoreApplication.installTranslator(translator)
    try:
        chinese = error_html("server_error", message)
    finally:
        QCoreApplication.removeTranslator(translator)
    lines = chinese.split("<br>")
    assert lines[0] == "<b>服务器出错（5xx）</b>"
    assert lines[1] == "原因：服务器处理请求时出错"
    assert lines[2].startswith("解决：稍后重试")
    assert lines[3] == message  # verbatim: it quotes the server


def test_the_doctor_speaks_chinese_in_the_chinese_ui(qapp, loop) -> None:
    import socket

    from PySide6.QtCore import QCoreApplication, QTranslator

    from workbench.core.doctor import _key_problems, diagnose
    from workbench.ui.connection_test import localized

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    checks = loop.run_until_complete(diagnose(f"http://127.0.0.1:{port}/v1", None, "m"))
    tcp = next(c for c in checks if c.name == "tcp")
    assert not tcp.ok and tcp.cause.startswith(f"nothing listens on 127.0.0.1:{port}")
    assert localized(tcp.cause_phrases) == tcp.cause  # English UI: the same words
    _key, problems = _key_problems("  sk-test\n")
    translator = QTranslator()
    assert translator.load(str(TS.with_suffix(".qm")))
    QCoreApplication.installTranslator(translator)
    try:
        cause = localized(tcp.cause_phrases)
        fix = localized(tcp.fix_phrases)
        whitespace = problems[0].render(QCoreApplication.translate)
    finally:
        QCoreApplication.removeTranslator(translator)
    assert cause == f"127.0.0.1:{port} 上没有服务在监听：服务器没有运行，或端口错误"
    assert fix == "启动服务器，或改正 Base URL 中的端口"
    assert whitespace.startswith("密钥开头有空格，结尾有换行符（前后有空白")  # nested phrases


def test_a_provider_is_called_one_thing_in_chinese() -> None:
    """The Providers tab's word for a provider, and no synonym of it, wherever a translation
    names one (a key error said 提供方 beside a tab called 服务商)."""
    messages = [
        (m.findtext("source") or "", m.findtext("translation") or "")
        for m in ET.parse(TS).getroot().iter("message")
    ]
    tab = next(t for s, t in messages if s == "Providers")
    assert tab == "服务商"
    others = [(s, t) for s, t in messages if any(w in t for w in ("提供方", "提供商", "供应商"))]
    assert not others, others
