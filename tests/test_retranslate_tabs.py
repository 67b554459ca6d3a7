"""View → Language retranslates the Providers and Kernels tabs at once (issue 16): buttons, group
titles, form labels, placeholders, combo items, table headers, chart titles and axes, and the
status lines showing follow the switch, and nothing typed, chosen, selected or loaded is lost.

The real main window, offscreen, driven as a user does: tab clicks, typing, button clicks and
View → Language → 中文 clicked in the open menus. The Chinese expected is read from the
installed translator (`QCoreApplication.translate`), never typed in here.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QTableWidget,
    QWidget,
)

from tests.support.gui_driver import click_actions, run_for, until
from workbench.ui.kernels_view import KernelsView
from workbench.ui.main_window import MainWindow
from workbench.ui.provider_controller import LOCAL_PROVIDER
from workbench.ui.provider_panel import ProviderPanel

LEFT = Qt.MouseButton.LeftButton
# What reads the same in both languages: technical terms and units the Chinese UI keeps as
# they are, header names, and the placeholders that show a URL's shape
TERMS = {
    "Base URL", "dtype", " s", "TFLOP/s", "GB/s",
    "Authorization: Bearer …", "x-api-key: …", "https://host/v1", "http://proxy:3128",
}  # fmt: skip


@pytest.fixture
def window(window_with_tabs) -> MainWindow:
    return window_with_tabs


def zh(context: str, source: str) -> str:
    """The installed translator's Chinese for `source`; there must be one."""
    text = QCoreApplication.translate(context, source)
    assert text != source, f"no Chinese for {context}: {source!r}"
    return text


def switch_language(qtbot, window: MainWindow, code: str, done) -> None:
    """View → Language → `code`, clicked in the open menus; waits until `done()` holds."""
    menus = window.menus
    view, language = menus.view_menu.menuAction(), menus.language_menu.menuAction()
    click_actions(qtbot, window, view, language, menus.language_actions[code])
    qtbot.waitUntil(done, timeout=3000)  # at once: no restart


def click_tab(qtbot, window: MainWindow, tab: QWidget) -> None:
    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(window.tabs.indexOf(tab)).center())
    assert window.tabs.currentWidget() is tab


def visible_texts(tab: QWidget) -> dict[tuple[int, str], str]:
    """Every text a user reads in `tab` as it is shown: labels, buttons, group titles,
    tooltips, placeholders, spin box texts, combo and list items, table headers."""
    texts: dict[tuple[int, str], str] = {}

    def put(widget: QWidget, what: str, text: str) -> None:
        if text.strip():
            texts[(id(widget), what)] = text

    for w in tab.findChildren(QWidget):
        if not w.isVisibleTo(tab):
            continue
        put(w, "tooltip", w.toolTip())
        if isinstance(w, QLabel | QAbstractButton):
            put(w, "text", w.text())
        if isinstance(w, QGroupBox):
            put(w, "title", w.title())
        if isinstance(w, QLineEdit | QPlainTextEdit):
            put(w, "placeholder", w.placeholderText())
        if isinstance(w, QAbstractSpinBox):
            put(w, "special", w.specialValueText())
            put(w, "suffix", getattr(w, "suffix", str)())
        if isinstance(w, QComboBox):
            for i in range(w.count()):
                put(w, f"item {i}", w.itemText(i))
        if isinstance(w, QListWidget):
            for i in range(w.count()):
                put(w, f"row {i}", w.item(i).text())
        if isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                header = w.horizontalHeaderItem(c)
                put(w, f"header {c}", header.text() if header else "")
    return texts


def still_english(before: dict, after: dict, names: set[str]) -> list[str]:
    """The texts the switch left as they were, but for terms and the tab's own data."""
    return sorted(
        text for key, text in before.items() if after.get(key) == text and text not in names
    )


# ---- the Providers tab ----


def fill_provider_form(window: MainWindow, panel: ProviderPanel, loop, qtbot) -> None:
    """A new provider typed in, its models fetched (one checked) and its connection tested,
    against the built-in provider; a row of the checks selected."""
    click_tab(qtbot, window, panel)
    qtbot.mouseClick(panel.add_button, LEFT)
    form = panel.provider_form
    panel.name_edit.clear()
    qtbot.keyClicks(panel.name_edit, "my-gateway")
    qtbot.keyClicks(panel.base_url_edit, panel.controller.local_base_url or "")
    form.protocol.setCurrentIndex(form.protocol.findData("responses"))
    panel.key_source.setCurrentIndex(panel.key_source.findData("none"))
    form.proxy_mode.setCurrentIndex(form.proxy_mode.findData("none"))
    qtbot.keyClicks(panel.headers_edit, "X-Team: bench")
    panel.first_token.setValue(77)
    panel.verify_tls.setFocus()
    qtbot.keyClick(panel.verify_tls, Qt.Key.Key_Space)  # unchecked: the TLS warning shows
    assert form.tls_warning.isVisibleTo(panel)
    qtbot.mouseClick(panel.fetch_button, LEFT)
    run_for(loop, until(lambda: panel.models.count() > 0 and panel.fetch_button.isEnabled()))
    panel.set_model_checked(panel.models.item(0).data(Qt.ItemDataRole.UserRole))
    qtbot.mouseClick(panel.test_button, LEFT)
    run_for(loop, until(lambda: panel.last_report is not None and panel.test_button.isEnabled()))
    table = panel.checks_table
    qtbot.mouseClick(table.viewport(), LEFT, pos=table.visualItemRect(table.item(2, 1)).center())
    assert table.currentRow() == 2


def provider_state(panel: ProviderPanel) -> dict[str, object]:
    """What the user typed, chose and selected, and what the tab shows of the server."""
    form = panel.provider_form
    return {
        "name": panel.name_edit.text(),
        "url": panel.base_url_edit.text(),
        "protocol": form.protocol.currentData(),
        "key": panel.key_source.currentData(),
        "proxy": form.proxy_mode.currentData(),
        "headers": panel.headers_edit.toPlainText(),
        "first token": panel.first_token.value(),
        "verify tls": panel.verify_tls.isChecked(),
        "models": sorted(model_ids(panel)),
        "checked": panel.model_list.checked_ids(),
        "selected check": panel.checks_table.currentRow(),
        "report": id(panel.last_report),
        "entry": panel._selected_name(),
    }


def provider_texts(window: MainWindow, panel: ProviderPanel) -> dict[str, str]:
    form, table = panel.provider_form, panel.checks_table
    return {
        "tab": window.tabs.tabText(window.tabs.indexOf(panel)),
        "button": panel.test_button.text(),
        "group": form.title(),
        "form label": form.form.labelForField(panel.name_edit).text(),
        "combo item": panel.key_source.itemText(panel.key_source.findData("env")),
        "chosen item": form.protocol.currentText(),
        "placeholder": panel.model_search.placeholderText(),
        "header": table.horizontalHeaderItem(1).text(),
        "check": (panel.check_row("tcp") or ("", "", ""))[1],
        "status": panel.status.text(),
        "summary": panel.doctor_summary.text(),
        "model": panel.models.item(0).text(),
        "tls warning": form.tls_warning.text(),
        "built-in": panel.list.item(0).text(),
    }


def test_view_language_retranslates_the_providers_tab_and_keeps_the_form(
    window, loop, qtbot
) -> None:
    panel = window.provider_panel
    fill_provider_form(window, panel, loop, qtbot)
    state, english = provider_state(panel), provider_texts(window, panel)
    before = visible_texts(panel)
    report = panel.last_report
    ran = [c for c in report.checks if not c.skipped]
    failed = len([c for c in ran if not c.ok])
    assert english["status"] == (
        f"Connection test: {len(ran) - failed} passed, {failed} failed, "
        f"{len(report.checks) - len(ran)} skipped."
    )

    switch_language(qtbot, window, "zh_CN", lambda: panel.test_button.text() != "Test connection")
    chinese = provider_texts(window, panel)
    assert chinese["button"] == zh("ProviderPanel", "Test connection")
    assert chinese["group"] == zh("ProviderForm", "Provider")
    assert chinese["form label"] == zh("ProviderForm", "Name")
    assert chinese["combo item"] == zh("ProviderForm", "Environment variable")
    # the registry's label (a product name, kept) in the translated "label (POST path)"
    chosen = zh("Protocol", "%1 (POST %2)").replace("%1", "OpenAI Responses")
    assert chinese["chosen item"] == chosen.replace("%2", "/responses")
    assert chinese["placeholder"] == zh("ModelList", "Search models")
    assert chinese["header"] == zh("ConnectionTest", "Check")
    assert chinese["check"].startswith(zh("ConnectionTest", "TCP connection"))
    assert chinese["status"] == (  # composed again from the report's counts
        zh("ProviderPanel", "Connection test: %1 passed, %2 failed, %3 skipped.")
        .replace("%1", str(len(ran) - failed))
        .replace("%2", str(failed))
        .replace("%3", str(len(report.checks) - len(ran)))
    )
    key_line = zh("ConnectionTest", "Key: %1").replace("%1", report.key_source)
    assert chinese["summary"].splitlines()[-1 - len(report.warnings)] == key_line
    assert zh("ModelList", "%1 ctx").replace("%1", "") in chinese["model"]
    assert chinese["built-in"] == (
        zh("ProviderPanel", "%1 (built-in, read-only)\n    %2")
        .replace("%1", LOCAL_PROVIDER)
        .replace("%2", panel.controller.local_base_url or "")
    )
    assert all(chinese[k] != english[k] for k in english), chinese
    assert still_english(before, visible_texts(panel), TERMS | model_ids(panel)) == []
    assert provider_state(panel) == state  # nothing typed, chosen or selected is lost

    switch_language(qtbot, window, "en", lambda: panel.test_button.text() == "Test connection")
    assert provider_texts(window, panel) == english
    assert visible_texts(panel) == before
    assert provider_state(panel) == state


def model_ids(panel: ProviderPanel) -> set[str]:
    return {
        panel.models.item(i).data(Qt.ItemDataRole.UserRole) for i in range(panel.models.count())
    }


# ---- the Kernels tab ----


def load_kernel_measurements(window: MainWindow, view: KernelsView, qtbot) -> None:
    """The shipped H200 sweep loaded, another shape set, batch and backend chosen, a worker
    address typed and a table row selected."""
    click_tab(qtbot, window, view)
    qtbot.mouseClick(view.csv_row.preset_button, LEFT)
    assert view.rows and view.csv_row.shape.count() > 2
    view.csv_row.shape.setCurrentIndex(1)
    view.csv_row.batch.setCurrentIndex(0)
    view.csv_row.backend.setCurrentIndex(view.csv_row.backend.findData(""))
    view.worker_mode.setCurrentIndex(view.worker_mode.findData("connect"))
    qtbot.keyClicks(view.worker_row.host_edit, "127.0.0.1:7777")
    view.redraw()
    table = view.table
    qtbot.mouseClick(table.viewport(), LEFT, pos=table.visualItemRect(table.item(3, 0)).center())
    assert table.currentRow() == 3


def plotted(view: KernelsView) -> list[tuple[list[float], list[float]]]:
    items = view.latency_plot.getPlotItem().listDataItems()
    return [(list(i.xData), list(i.yData)) for i in items]


def kernel_state(view: KernelsView) -> dict[str, object]:
    row = view.csv_row
    return {
        "variants": view.variants(),
        "kv": view.kv_lens(),
        "csv": row.csv.path if row.csv else None,
        "rows": len(view.rows),
        "shape": row.shape.currentIndex(),
        "batch": row.batch.currentData(),
        "backend": row.backend.currentData(),
        "worker": view.worker_mode.currentData(),
        "address": view.worker_row.host_edit.text(),
        "selected row": view.table.currentRow(),
        "table rows": view.table.rowCount(),
        "curves": plotted(view),
    }


def kernel_texts(view: KernelsView) -> dict[str, str]:
    row, latency = view.csv_row, view.latency_plot
    return {
        "button": view.run_button.text(),
        "csv button": row.preset_button.text(),
        "label": view.choices.labels["variants"].text(),
        "header": view.table.horizontalHeaderItem(5).text(),
        "x axis": latency.getAxis("bottom").labelText,
        "y axis": view.bandwidth_plot.getAxis("left").labelText,
        "title": latency.getPlotItem().titleLabel.text,
        "combo item": row.backend.itemText(row.backend.findData("")),
        "shape item": row.shape.itemText(0),
        "worker item": view.worker_mode.itemText(view.worker_mode.findData("auto")),
        "source": row.source_label.text(),
        "message": view.message.text(),
        "worker status": view.worker_status.text(),
    }


def test_view_language_retranslates_the_kernels_tab_and_keeps_the_loaded_csv(window, qtbot) -> None:
    view = window.kernels_view
    load_kernel_measurements(window, view, qtbot)
    state, english = kernel_state(view), kernel_texts(view)
    before = visible_texts(view)
    csv = view.csv_row.csv
    assert csv is not None

    switch_language(qtbot, window, "zh_CN", lambda: view.run_button.text() != "Run")
    chinese = kernel_texts(view)
    assert chinese["button"] == zh("RunRow", "Run")
    assert chinese["csv button"] == zh("CsvRow", "Load the H200 measurements")
    assert chinese["label"] == zh("SweepChoices", "Variants:")
    assert chinese["header"] == zh("KernelTable", "KV length")
    assert chinese["x axis"] == zh("KernelCharts", "KV length (tokens)")
    assert chinese["y axis"] == zh("KernelCharts", "GB/s (log)")
    assert chinese["title"] == zh("KernelCharts", "Latency per decode step%1").replace("%1", "")
    assert chinese["combo item"] == zh("CsvRow", "all")
    assert chinese["shape item"] == zh("KernelCsv", "70B twins (sim-70b-*)")
    assert chinese["worker item"] == zh("WorkerRow", "Auto-detect a Python with torch")
    assert chinese["source"] == (  # composed again from the loaded file
        zh("CsvRow", "%1: %2 rows, %3")
        .replace("%1", csv.path.name)
        .replace("%2", str(len(csv.rows)))
        .replace("%3", csv.device)
    )
    assert chinese["message"] == (
        zh("KernelsView", "Showing %1 measured rows from %2. Run replaces them with a new sweep.")
        .replace("%1", str(len(csv.rows)))
        .replace("%2", str(csv.path))
    )
    assert chinese["worker status"] == zh(
        "WorkerRow", "No worker yet: it starts on Run or Connect."
    )
    assert all(chinese[k] != english[k] for k in english), chinese
    assert still_english(before, visible_texts(view), TERMS | kernel_names(view)) == []
    assert kernel_state(view) == state  # the CSV, the choices and the selection stay

    switch_language(qtbot, window, "en", lambda: view.run_button.text() == "Run")
    assert kernel_texts(view) == english
    assert visible_texts(view) == before
    assert kernel_state(view) == state


def kernel_names(view: KernelsView) -> set[str]:
    """What the tab shows that names or counts things: variants, lengths, dtypes, backends,
    batch sizes, hardware profiles with their figures, shapes named by their models."""
    combos = (view.dtype, view.backend, view.profile, view.csv_row.batch, view.csv_row.backend)
    names = {c.itemText(i) for c in combos for i in range(c.count())}
    names |= {
        b.text() for b in [*view.choices.variant_boxes.values(), *view.choices.kv_boxes.values()]
    }
    csv = view.csv_row.csv
    if csv is not None:  # its path; each shape alone, named by its models and its key
        names |= {str(csv.path)}
        names |= {csv.label(k) for keys in csv.keys_by_variant().values() for k in keys}
    return names


def test_a_refused_kernel_csv_is_explained_again_in_the_new_language(
    window, qtbot, tmp_path
) -> None:
    view = window.kernels_view
    click_tab(qtbot, window, view)
    qtbot.mouseClick(view.csv_row.preset_button, LEFT)
    shown = len(view.rows)
    bad = tmp_path / "notes.csv"
    bad.write_text("model,ttft_ms\nsim-8b,120\n", encoding="utf-8")
    assert not view.load_csv(bad)
    english = view.message.text()
    assert english.startswith(f"{bad} is not a kernel CSV: the column(s) variant, backend")

    switch_language(qtbot, window, "zh_CN", lambda: view.message.text() != english)
    missing = english.split("the column(s) ")[1].split(" are missing")[0]
    assert view.message.text() == (
        zh("KernelCsv", "%1 is not a kernel CSV: the column(s) %2 are missing. %3")
        .replace("%1", str(bad))
        .replace("%2", missing)
        .replace(
            "%3",
            zh(
                "KernelCsv",
                "Fix: open a CSV written by `workbench kernels --csv` or benchmarks/gpu_decode.py.",
            ),
        )
    )
    assert len(view.rows) == shown  # the rows shown before stay

    switch_language(qtbot, window, "en", lambda: view.message.text() == english)
