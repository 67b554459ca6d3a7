"""中文 is complete (issue 25, item 14): after View → Language → 中文, clicked in the open menus
of the real window, no tab shows an English word. The window is first used in English as a
presenter does: a comparison and a sweep on the built-in provider, a vLLM file imported in
History, a kernel run refused for want of torch. Then the language is switched live and every
tab is clicked and read: labels, buttons, group titles, tab texts, combo items, table headers
and cells, text views, status bar, menus, the chart scenes' texts (axes, legends, bar labels)
and the Summary page as it is painted.

A word of three or more Latin letters is English unless it is a name or a unit (ALLOWED), or
part of a name the window shows as data (model ids, provider names, paths, URLs).
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractListModel, QCoreApplication, QModelIndex, Qt, QTimer
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
    QGraphicsView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QTableView,
    QTextEdit,
    QTreeView,
    QWidget,
)

from kernels_bridge.bench_names import BACKENDS
from kernels_bridge.specs import VARIANTS
from tests.support.gui_driver import (
    click_action,
    click_actions,
    click_run,
    click_tab,
    run_for,
    run_sweep,
    set_panes,
    until,
)
from workbench.ui.kernels_view import INSTALL_HINT
from workbench.ui.main_window import MainWindow
from workbench.ui.pane_choices import choices_for
from workbench.ui.panes_model import PaneState, pane_title
from workbench.ui.provider_controller import LOCAL_PROVIDER
from workbench.ui.provider_panel import ProviderPanel

LEFT = Qt.MouseButton.LeftButton
DATA = Path(__file__).parent / "data"

# Words the Chinese UI keeps as they are, each a name or a unit, never prose
ALLOWED = {
    # acronyms of the measurements and of the attention variants (docs/metrics.md)
    "TTFT", "TPOT", "ITL", "SLO", "KV", "GPU", "CPU",
    "MHA", "MQA", "GQA", "GTA", "MLA", "GLA", "NSA", "MoBA",
    # formats and protocols by their names
    "HTTP", "POST", "URL", "API", "TLS", "CSV", "PDF", "PNG", "JSON",
    # units: tokens (Token in the Chinese texts, as Chinese LLM documentation writes it), and
    # requests in a rate (req/s)
    "tok", "req", "token", "tokens", "Token", "TFLOP", "MiB", "GiB",
    # torch's name for a data type
    "dtype",
    # products and providers: the app, OpenAI and Anthropic with their APIs' names (Responses,
    # Messages), the Authorization: Bearer header, Base URL, Python and torch, vLLM (its files'
    # tool name), DeepSeek (the example provider name in the Providers form)
    "Attention", "Workbench", "OpenAI", "Anthropic", "Responses", "Messages",
    "Authorization", "Bearer", "Base", "Python", "torch", "vllm", "deepseek",
    # Claude Code, whose settings file the import reads
    "Claude", "Code",
    # the wire protocols by the names providers.toml and --protocol give them
    "chat", "responses", "anthropic",
    # the Roofline model (Williams et al.), named so in Chinese texts too
    "Roofline",
    # View → Language names each language in itself, so anyone finds theirs
    "English",
    # what the doctor checks and the libraries About lists, by their names
    "DNS", "TCP", "GET", "HTML", "openai", "pyqtgraph",
    # the tools, formats and traces the app reads, by their names
    "vLLM", "AIPerf", "GenAI", "Perf", "JSONL", "ShareGPT", "Mooncake", "Azure", "NVIDIA",
    "toml", "yaml", "yml",
    # the metrics an SLO is typed with (ttft_p90:3s)
    "ttft", "tpot",
    # a finish_reason's values as a server sends them (the doctor's stream check quotes them)
    "stop", "length",
    # the OS keyrings by their names
    "Secret", "Service", "KWallet", "macOS", "Windows",
}  # fmt: skip
QUOTED = {"error_message"}  # CSV columns that quote a server or a file verbatim
TIP = Qt.ItemDataRole.ToolTipRole
ANSWERS = {"paneText"}  # a pane's streamed answer: the model's own words
WORD = re.compile(r"[A-Za-z]{3,}")
# code in backticks, --flags, $VARS, dotted module paths and snake_case names (profile_export,
# max_tokens), ids with digits
# ("sim-70b", "64190aad"), ${VAR} and *_PROXY variables, X-Api-Key headers,
# shape prefixes ("default-*"), URLs and paths
URLS_AND_PATHS = re.compile(
    r"(`[^`]*`|--[\w-]+|\$[A-Z_]+|\b[a-z]\w*(?:\.\w+){2,}|[\w-]*\d[\w.-]*|\$\{\w+\}|\*?[A-Z]*_[A-Z_]+|[Xx]-[\w-]+|\w+-\*|https?://\S+|(?<![\w.])/[\w./~-]+|\S+\.(?:json|csv|py|sqlite3)|\w+_\w+)"
)


@pytest.fixture
def window(window_with_tabs) -> MainWindow:
    window_with_tabs.pane_set.set_choices(
        choices_for(window_with_tabs.session)
    )  # as the app fills them
    window_with_tabs.resize(1400, 900)
    return window_with_tabs


def switch_language(qtbot, window: MainWindow, code: str) -> None:
    """View → Language → `code`, clicked in the open menus, as a user does."""
    menus = window.menus
    click_actions(
        qtbot,
        window,
        menus.view_menu.menuAction(),
        menus.language_menu.menuAction(),
        menus.language_actions[code],
    )
    qtbot.waitUntil(lambda: window.tabs.tabText(0) != "Compare", timeout=3000)


def plain(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def widget_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every text shown by `root` and the visible widgets inside it."""
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisible() or w.objectName() in ANSWERS:
            continue
        where = f"{type(w).__name__}({w.objectName() or ''})"
        if isinstance(w, QLabel):
            yield where, plain(w.text()) if "<" in w.text() else w.text()
        if isinstance(w, QAbstractButton):
            yield where, w.text()
        if isinstance(w, QGroupBox):
            yield where + ".title", w.title()
        if isinstance(w, QLineEdit):
            yield where + ".placeholder", w.placeholderText()
            if w.isReadOnly():
                yield where, w.text()
        if isinstance(w, QPlainTextEdit):
            yield where + ".placeholder", w.placeholderText()
            yield where, w.toPlainText()
        if isinstance(w, QTextEdit):
            yield where, w.toPlainText()
        if isinstance(w, QAbstractSpinBox):
            yield where + ".special", w.specialValueText()
            yield where + ".text", w.text()
        if isinstance(w, QProgressBar) and w.isTextVisible():
            yield where, w.text()
        if isinstance(w, QComboBox):
            for i in range(w.count()):
                yield f"{where}.item{i}", w.itemText(i)
        if isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) and w.model():
            model, top = w.model(), QModelIndex()
            list_model = isinstance(model, QAbstractListModel)  # its columnCount is private
            columns = 1 if list_model else model.columnCount(top)
            if isinstance(w, QTableView | QTreeView):
                for c in range(columns):
                    header = model.headerData(c, Qt.Orientation.Horizontal)
                    yield f"{where}.header{c}", str(header or "")
            quoted = {  # the server's or the file's own words, kept verbatim
                c
                for c in range(columns)
                if model.headerData(c, Qt.Orientation.Horizontal, TIP) in QUOTED
            }
            for r in range(min(model.rowCount(top), 40)):
                for c in set(range(columns)) - quoted:
                    value = model.data(model.index(r, c))
                    if isinstance(value, str):
                        yield f"{where}.cell({r},{c})", value
        if isinstance(w, QGraphicsView) and w.scene() is not None:
            for item in w.scene().items():
                if not item.isVisible():
                    continue
                if isinstance(item, QGraphicsTextItem):
                    yield where + ".scene", item.toPlainText()
                elif isinstance(item, QGraphicsSimpleTextItem):
                    yield where + ".scene", item.text()


def window_texts(window: MainWindow) -> Iterator[tuple[str, str]]:
    """What the window shows around the tabs: title, tab bar, menus, toolbar, status bar."""
    yield "window title", window.windowTitle()
    for i in range(window.tabs.count()):
        yield f"tab {i}", window.tabs.tabText(i)
    actions = [("menu", a) for a in window.menuBar().actions()]
    while actions:  # every menu, down the submenus (View → Theme, View → Language)
        where, action = actions.pop()
        yield where, action.text()
        menu = action.menu()
        actions += [(f"{where} {action.text()}", a) for a in menu.actions()] if menu else []
    yield from widget_texts(window.toolbar)
    yield from widget_texts(window.statusBar())


def english(text: str, names: set[str]) -> list[str]:
    """The English words of `text`, once names, quotes, URLs and paths are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = URLS_AND_PATHS.sub(" ", text)
    return [w for w in WORD.findall(text) if w not in ALLOWED]


def shown_names(window: MainWindow, python_error: str) -> set[str]:
    """What the window shows as data, or quotes verbatim: model ids, pane titles, provider
    names, the error classes of the CSV's vocabulary and the servers' and files' messages,
    the exception a Python without torch raised."""
    session = window.session
    names = {m.id for m in session.catalog.models()} | {LOCAL_PROVIDER, python_error}
    names |= set(BACKENDS) | set(VARIANTS) | {INSTALL_HINT}  # the kernels' names, a command
    names |= {pane_title(p.target) for p in session.panes if p.target}
    names |= {m for run in session.records.history() for m in run.models}
    for r in window.results_view.results:
        names |= {r.model, r.provider, r.error_class or "", r.error_message or ""}
    return {n for n in names if n}


def offenders(window: MainWindow, qtbot, python_error: str) -> list[str]:
    """'tab: where: text' for every shown text with an English word, every tab clicked."""
    found: list[str] = []
    names = shown_names(window, python_error)

    def check(tab: str, texts: Iterator[tuple[str, str]]) -> None:
        for where, text in texts:
            words = english(text, names)
            if words:
                found.append(f"{tab}: {where}: {text!r} {words}")

    check("window", window_texts(window))
    bar = window.tabs.tabBar()
    for i in range(window.tabs.count()):
        tab = window.tabs.widget(i)
        qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(i).center())
        assert window.tabs.currentWidget() is tab
        title = window.tabs.tabText(i)
        check(title, widget_texts(tab))
        if tab is window.summary_view and window.summary_view.document is not None:
            page = window.summary_view.document.texts()
            check(title, (("page", t) for t in page))
    return found


def refused_kernel_run(window: MainWindow, qtbot, tmp_path: Path) -> str:
    """Kernels: a Python without torch chosen, Run clicked; the refusal shows. Returns what
    that Python raises on `import torch`."""
    view = window.kernels_view
    click_tab(window, qtbot, view)
    folder = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    probe = subprocess.run([python, "-c", "import torch"], capture_output=True, text=True)
    view.use_python(str(python))
    view.set_variants(["gqa"])
    view.set_kv_lens([1024])
    qtbot.mouseClick(view.run_button, LEFT)
    qtbot.waitUntil(lambda: view.last_outcome == "failed" and not view.running, timeout=60000)
    return probe.stderr.strip().splitlines()[-1]


def import_vllm(window: MainWindow, qtbot, loop) -> None:
    history = window.history_view
    click_tab(window, qtbot, history)
    task = history.import_paths([str(DATA / "results" / "vllm_save_detailed.json")])
    assert task is not None
    run_for(loop, task)
    qtbot.waitUntil(lambda: history.table.rowCount() >= 3, timeout=5000)


def test_every_tab_reads_in_chinese_after_a_live_switch(window, qtbot, loop, tmp_path) -> None:
    click_run(window, qtbot, loop)
    run_sweep(window, qtbot, loop, lengths=(1024, 4096))
    import_vllm(window, qtbot, loop)
    python_error = refused_kernel_run(window, qtbot, tmp_path)
    click_tab(window, qtbot, window.summary_view)
    run_for(loop, until(lambda: window.summary_view.document is not None))

    switch_language(qtbot, window, "zh_CN")
    found = offenders(window, qtbot, python_error)
    assert not found, "English in the 中文 window:\n" + "\n".join(found)

    # a comparison run in Chinese, one model over its 4K context window and one answering
    # HTTP 500: failed panes and bars; then replayed from History, and the Results per model
    set_panes(window, ["sim-llama-2-7b", "sim-70b-gqa+500", "sim-deepseek-v3"])
    window.prompt.set_tokens(8192)
    click_tab(window, qtbot, window.compare)
    click_run(window, qtbot, loop)
    assert window.pane_set.widgets[1].error.isVisible()
    found = offenders(window, qtbot, python_error)
    assert not found, "English in the 中文 window after a run:\n" + "\n".join(found)

    history = window.history_view
    click_tab(window, qtbot, history)
    table = history.table
    qtbot.mouseClick(table.viewport(), LEFT, pos=table.visualItemRect(table.item(0, 0)).center())
    qtbot.mouseClick(history.replay_button, LEFT)
    run_for(loop, window.session._task)
    assert window.replay_banner.isVisible()
    results = window.results_view
    results.view_mode.setCurrentIndex(results.view_mode.findData("aggregate"))
    run_for(loop, until(lambda: not results.summarizing.pending))
    found = offenders(window, qtbot, python_error)
    assert not found, "English in the 中文 window after a replay:\n" + "\n".join(found)

    # Stop all mid-stream: the stopped panes, bars, status line and Summary
    set_panes(window, ["sim-llama-3-70b", "sim-deepseek-v3"])
    window.prompt.set_tokens(4096)
    window.prompt.max_tokens.setValue(30000)  # streams for seconds
    click_tab(window, qtbot, window.compare)
    click_action(window, qtbot, window.run_action)
    panes = window.session.panes
    run_for(loop, until(lambda: all(p.state is PaneState.STREAMING for p in panes)))
    click_action(window, qtbot, window.stop_action)
    assert run_for(loop, window.session._task).status == "cancelled"
    found = offenders(window, qtbot, python_error)
    assert not found, "English in the 中文 window after Stop all:\n" + "\n".join(found)


# ---- dialogs and tooltips ---------------------------------------------------------------------


def tooltips(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, tooltip) of `root` and every visible widget in it, a picker's items' too."""
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisible() or not isinstance(w, QWidget):
            continue
        where = f"{type(w).__name__}({w.objectName() or ''})"
        yield where + ".toolTip", plain(w.toolTip())
        if isinstance(w, QComboBox):
            for i in range(w.count()):
                yield f"{where}.item{i}.toolTip", plain(str(w.itemData(i, TIP) or ""))


def dialog_texts(dialog: QWidget) -> Iterator[tuple[str, str]]:
    yield f"{type(dialog).__name__}.title", dialog.windowTitle()
    yield from widget_texts(dialog)
    yield from tooltips(dialog)


def read_dialog(qtbot, open_it, close=None) -> list[tuple[str, str]]:
    """Open a dialog by `open_it` (a click; a file dialog's exec blocks in it), read what it
    shows, then `close` it (default: Cancel)."""
    texts: list[tuple[str, str]] = []

    def grab() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None or not dialog.isVisible():
            QTimer.singleShot(10, grab)  # not up yet: look again with the next events
            return
        texts.extend(dialog_texts(dialog))
        (close or QDialog.reject)(dialog)

    QTimer.singleShot(0, grab)
    open_it()
    qtbot.waitUntil(lambda: bool(texts), timeout=10000)
    return texts


def test_every_dialog_and_tooltip_reads_in_chinese(window, qtbot, loop, tmp_path) -> None:
    """Help → About, File → Export CSV / Export charts, History's Import… and Delete, the
    Providers' Add, Import from a file and its preview, the doctor's checks, Capacity's Dataset…,
    the Kernels' Open CSV…; and the tooltip of every widget on every tab: no English after a
    live switch."""
    click_run(window, qtbot, loop)
    history = window.history_view
    click_tab(window, qtbot, history)
    run_for(loop, history.import_paths([str(DATA / "results" / "vllm_save_detailed.json")]))
    qtbot.waitUntil(lambda: history.table.rowCount() >= 2, timeout=5000)
    switch_language(qtbot, window, "zh_CN")
    names = shown_names(window, "") | {Path.home().name}  # the file dialogs' home folder
    # the roofline profiles' sources, tooltips of the picker's items: citations of datasheets
    names |= {p.source for p in window.kernels_view.choices.profiles.values()}
    found: list[str] = []

    def check(what: str, texts) -> None:
        for where, text in texts:
            words = english(text, names)
            if words:
                found.append(f"{what}: {where}: {text!r} {words}")

    listed = tmp_path / "d0"  # a folder for the file dialog to list: one folder, "d1", in it
    (listed / "d1").mkdir(parents=True)
    menus = window.menus
    check(
        "About",
        read_dialog(
            qtbot,
            lambda: click_actions(qtbot, window, menus.help_menu.menuAction(), menus.about_action),
        ),
    )
    for action in (window.export_action, window.export_chart_action):
        check(
            action.text(),
            read_dialog(
                qtbot,
                lambda a=action: click_actions(qtbot, window, menus.file_menu.menuAction(), a),
            ),
        )
    bar = window.tabs.tabBar()
    for i in range(window.tabs.count()):
        qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(i).center())
        check(window.tabs.tabText(i), tooltips(window.tabs.widget(i)))
    check("toolbar", tooltips(window.toolbar))

    click_tab(window, qtbot, history)
    history.import_dialog.setDirectory(str(listed))
    check(
        "History import", read_dialog(qtbot, lambda: qtbot.mouseClick(history.import_button, LEFT))
    )
    table = history.table
    qtbot.mouseClick(table.viewport(), LEFT, pos=table.visualItemRect(table.item(0, 0)).center())
    check(
        "History delete", read_dialog(qtbot, lambda: qtbot.mouseClick(history.delete_button, LEFT))
    )

    panel = window.findChild(ProviderPanel)
    click_tab(window, qtbot, panel)
    qtbot.mouseClick(panel.test_button, LEFT)  # the doctor's checks on the built-in provider
    run_for(loop, until(lambda: panel.test_button.isEnabled() and panel.doctor_summary.text()))
    check("Providers doctor", widget_texts(panel))
    qtbot.mouseClick(panel.add_button, LEFT)  # Add: the empty form of a new provider
    check("Providers add", [*widget_texts(panel), *tooltips(panel)])
    check("Providers import file", read_dialog(qtbot, panel.import_file_action.trigger))
    task = asyncio.ensure_future(panel.import_from(str(DATA / "configs" / "claude_settings.json")))
    run_for(
        loop, until(lambda: panel.import_dialog is not None and panel.import_dialog.isVisible())
    )
    imported = panel.import_dialog.preview.result  # its providers and where its keys are
    names |= {x for p in imported.providers for x in (p.name, p.base_url)}
    names |= {k.where for k in imported.keys.values()}
    check("Import preview", dialog_texts(panel.import_dialog))
    panel.import_dialog.reject()
    run_for(loop, task)

    capacity = window.capacity_view  # made when its tab was first clicked, above
    click_tab(window, qtbot, capacity)
    check(
        "Capacity dataset",
        read_dialog(qtbot, lambda: qtbot.mouseClick(capacity.dataset_button, LEFT)),
    )
    kernels = window.kernels_view
    click_tab(window, qtbot, kernels)
    check(
        "Kernels open CSV",
        read_dialog(qtbot, lambda: qtbot.mouseClick(kernels.csv_row.open_button, LEFT)),
    )
    assert not found, "English in the 中文 dialogs and tooltips:\n" + "\n".join(found)


def chart_labels(window: MainWindow) -> list[str]:
    """The labels drawn over the TTFT and decode bars (a stopped or failed pane's mark)."""
    plots = window.compare.plots
    assert plots is not None
    return [
        item.textItem.toPlainText()
        for items in plots._failures
        for item in items
        if hasattr(item, "textItem")
    ]


def test_panes_stopped_in_english_read_in_chinese_after_the_switch(window, qtbot, loop) -> None:
    # Stop all in English, then View → Language → 中文: the panes' line and the bars' labels
    # were drawn before the switch, and the window is idle (no frame would draw them again)
    set_panes(window, ["sim-llama-3-70b", "sim-deepseek-v3"])
    window.prompt.set_tokens(4096)
    window.prompt.max_tokens.setValue(30000)  # streams for seconds
    click_action(window, qtbot, window.run_action)
    panes = window.session.panes
    run_for(loop, until(lambda: all(p.state is PaneState.STREAMING for p in panes)))
    click_action(window, qtbot, window.stop_action)
    run_for(loop, window.session._task)
    widgets = window.pane_set.widgets[:2]
    qtbot.waitUntil(lambda: all(w.error.text() == "Stopped." for w in widgets), timeout=3000)
    qtbot.waitUntil(lambda: chart_labels(window) == ["stopped"] * 4, timeout=3000)

    switch_language(qtbot, window, "zh_CN")
    stopped_line = QCoreApplication.translate("PaneWidget", "Stopped.")
    stopped_mark = QCoreApplication.translate("LivePlots", "stopped")
    assert stopped_line != "Stopped." and stopped_mark != "stopped"  # Chinese for both
    qtbot.waitUntil(lambda: all(w.error.text() == stopped_line for w in widgets), timeout=3000)
    qtbot.waitUntil(lambda: chart_labels(window) == [stopped_mark] * 4, timeout=3000)
