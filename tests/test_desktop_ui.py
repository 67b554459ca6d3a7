"""The desktop conventions of issue 16: menu bar, live theme switching, accessible names.

The real main window (all tabs), offscreen, driven through its menu bar as a user does: the
menu opens with a click on its title and the item is clicked inside the open menu.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QObject, QPoint, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import QAction, QColor, QDesktopServices, QPalette
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QLineEdit, QMenu

from tests.support.gui_driver import (
    click_actions,
    click_run,
    make_window,
    opened_window,
    run_for,
    until,
)
from workbench.ui.accessibility import describe, unnamed_controls
from workbench.ui.theme import restyle_status, show_status


@pytest.fixture
def window(window_with_tabs):
    return window_with_tabs


def choose(qtbot, window, *path: str) -> QAction:
    """Click the menu bar title, then each item down `path` (submenus open as they are
    clicked); returns the action clicked last."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == path[0])
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu: QMenu = top.menu()
    qtbot.waitUntil(menu.isVisible, timeout=3000)
    action = top
    for name in path[1:]:
        action = next(a for a in menu.actions() if a.text().replace("&", "") == name)
        qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
        if action.menu() is not None:
            menu = action.menu()
            qtbot.waitUntil(menu.isVisible, timeout=3000)
    return action


def luminance(color: QColor) -> int:
    return color.lightness()


def chart_colors(plot: pg.PlotWidget) -> tuple[QColor, QColor]:
    """What the chart paints: its background brush and its left axis' tick-label colour."""
    return plot.backgroundBrush().color(), plot.getAxis("left").textPen().color()


def rendered(widget) -> QColor:
    """The colour the widget actually paints near its top-left corner."""
    return widget.grab().toImage().pixelColor(6, 6)


def test_menu_bar_has_file_view_help_with_standard_shortcuts(window) -> None:
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles == ["File", "View", "Help"]
    menus = window.menus
    assert menus.quit_action.shortcut().toString() == "Ctrl+Q"
    assert window.export_action.shortcut().toString() == "Ctrl+E"
    assert window.export_chart_action.shortcut().toString() == "Ctrl+Shift+E"
    assert menus.docs_action.shortcut().toString() == "F1"
    assert window.export_action in menus.file_menu.actions()  # the toolbar's own action


def test_file_export_csv_from_the_menu_writes_the_results_table(
    window, qtbot, loop, tmp_path
) -> None:
    click_run(window, qtbot, loop)
    out = tmp_path / "menu.csv"

    def type_name_and_save() -> None:  # the user types a file name in the dialog, then Save
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, QFileDialog):
            poll.stop()
            dialog.findChild(QLineEdit, "fileNameEdit").setText(str(out))
            dialog.accept()

    poll = QTimer()
    poll.timeout.connect(type_name_and_save)
    poll.start(50)
    choose(qtbot, window, "File", "Export CSV…")
    poll.stop()
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert sorted(r["model"] for r in rows if r["phase"] == "measured") == [
        "sim-deepseek-v3",
        "sim-llama-3-70b",
    ]
    assert "Wrote 4 rows" in window.statusBar().currentMessage()


def test_file_quit_closes_the_window_and_keeps_its_layout(window, qtbot, tmp_path) -> None:
    window.prompt.set_tokens(16384)
    choose(qtbot, window, "File", "Quit")
    assert not window.isVisible()
    assert int(window.settings.value("prompt_tokens")) == 16384


def test_help_about_lists_the_versions(window, qtbot) -> None:
    import PySide6
    from PySide6.QtCore import qVersion

    import workbench

    choose(qtbot, window, "Help", "About Attention Workbench")
    box = window.menus.about_box
    assert box is not None and box.isVisible()
    text = box.text()
    for name, version in (
        ("Attention Workbench", workbench.__version__),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
        ("pyqtgraph", pg.__version__),
    ):
        assert f"<td>{name}</td><td>{version}</td>" in text
    assert "<td>openai</td><td>" in text and "<td>Python</td><td>3." in text
    box.close()


class Opened(QObject):
    """Where QDesktopServices sends file URLs in this test (a desktop would start a browser)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_help_documentation_opens_the_docs_folder(window, qtbot) -> None:
    opened = Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        choose(qtbot, window, "Help", "Documentation")
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert len(opened.urls) == 1
    folder = opened.urls[0].toLocalFile()
    assert folder.endswith("docs") and (Path(folder) / "metrics.md").is_file()


def test_view_theme_dark_recolours_panes_and_charts_then_light_again(window, qtbot) -> None:
    choose(qtbot, window, "View", "Theme", "Light")
    plots = window.findChildren(pg.PlotWidget)
    assert len(plots) >= 9  # live (3), sweep (3), kernels (3): every tab's charts
    pane = window.pane_set.widgets[0]
    light_text = rendered(pane.text)
    light_charts = [chart_colors(p) for p in plots]
    assert luminance(light_text) > 200
    assert all(luminance(bg) > 200 and luminance(fg) < 100 for bg, fg in light_charts)

    choose(qtbot, window, "View", "Theme", "Dark")
    assert window.menus.theme_actions["dark"].isChecked()
    dark_text = rendered(pane.text)
    assert luminance(dark_text) < 60  # the pane's answer area went dark
    assert luminance(rendered(pane)) < 60  # and the pane around it
    for plot in plots:
        background, foreground = chart_colors(plot)
        assert luminance(background) < 60 and luminance(foreground) > 180
        assert foreground.name() in plot.getPlotItem().titleLabel.item.toHtml()
    legend = window.plots.tokens_plot.getPlotItem().legend
    assert len(legend.items) == 2  # one entry per pane, written in the new text colour
    text = QApplication.palette().color(QPalette.ColorRole.Text).name()
    assert all(text in label.item.toHtml() for _s, label in legend.items)
    # a chart's painted background follows, not only its brush
    assert luminance(rendered(window.plots.tokens_plot)) < 60
    # the pane's note keeps its contrast on the dark base
    fit_color = QColor(pane.fit.styleSheet().split("color:")[1].split(";")[0].strip())
    assert abs(luminance(fit_color) - luminance(dark_text)) > 80
    assert window.settings.value("theme") == "dark"
    # a failed pane's error box, and a prompt that will not fit, read on the dark base
    pane.error.setText("HTTP 503 from the server")
    pane.error.show()
    assert luminance(rendered(pane.error)) < 90
    window.prompt.set_tokens(1024 * 1024)
    assert pane.fit.text().startswith("Will not fit")
    problem = QColor(pane.fit.styleSheet().split("color:")[1].split(";")[0].strip())
    assert luminance(problem) > 100 and problem.red() > problem.green()
    window.replay_banner.show()  # the replay notice reads light on dark too
    assert luminance(rendered(window.replay_banner)) < 90

    choose(qtbot, window, "View", "Theme", "Light")
    assert luminance(rendered(pane.text)) > 200
    assert [chart_colors(p) for p in plots] == light_charts


def test_system_theme_follows_the_desktop_scheme_change(window, qtbot) -> None:
    choose(qtbot, window, "View", "Theme", "System")
    hints = QApplication.styleHints()
    # the desktop switches to dark: Qt emits colorSchemeChanged (a desktop setting we cannot
    # change here, so the signal is emitted as the platform plugin would)
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert luminance(QApplication.palette().color(QPalette.ColorRole.Window)) < 60
    assert luminance(chart_colors(window.plots.ttft_plot)[0]) < 60
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert luminance(chart_colors(window.plots.ttft_plot)[0]) > 200
    # with an explicit choice the desktop's switch is ignored
    choose(qtbot, window, "View", "Theme", "Light")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert luminance(chart_colors(window.plots.ttft_plot)[0]) > 200


def test_closed_and_deleted_windows_leave_the_desktop_scheme_to_the_open_one(
    window, qtbot, loop, tmp_path
) -> None:
    import shiboken6

    choose(qtbot, window, "View", "Theme", "System")
    closed = []
    for n in range(2):  # closed as a user closes a window: no help from the test driver
        (tmp_path / f"other{n}").mkdir()
        other = make_window(loop, tmp_path / f"other{n}")
        other.theme.set_choice("system")
        other.close()
        run_for(loop, other.session.close())
        closed.append(other)
    deleted = closed.pop()
    deleted.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(deleted), timeout=5000)
    restyled: list[str] = []
    window.theme.changed.connect(lambda _palette: restyled.append("open"))
    for other in closed:
        other.theme.changed.connect(lambda _palette: restyled.append("closed"))
    hints = QApplication.styleHints()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # a deleted Theme here crashed the app
    assert restyled == ["open"]
    assert luminance(chart_colors(window.plots.ttft_plot)[0]) < 60
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert restyled == ["open", "open"]
    assert luminance(QApplication.palette().color(QPalette.ColorRole.Window)) > 200


def test_a_deleted_windows_status_marks_leave_the_theme_switch(
    window, qtbot, loop, tmp_path
) -> None:
    """A theme switch recolours the status marks of live windows only: a deleted window's
    marked label is no longer visited (visiting every widget of the app once crashed a worker
    that had opened and deleted many windows)."""
    import shiboken6

    (tmp_path / "other").mkdir()
    other = make_window(loop, tmp_path / "other")
    show_status(QLabel("a failed check", other), "failed")
    with_other = restyle_status(QApplication.palette())
    other.close()
    run_for(loop, other.session.close())
    other.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(other), timeout=5000)
    assert restyle_status(QApplication.palette()) < with_other
    show_status(window.provider_panel.doctor_summary, "failed")
    choose(qtbot, window, "View", "Theme", "Dark")
    assert _style_color(window.provider_panel.doctor_summary).red() > 130


def test_view_language_retranslates_the_open_window_at_once(window, qtbot) -> None:
    def shown() -> dict[str, str]:
        return {
            "menu": window.menus.view_menu.title(),
            "tab": window.tabs.tabText(window.tabs.indexOf(window.sweep_view)),
            "run": window.toolbar.widgetForAction(window.run_action).text(),
            "sweep": window.sweep_view.run_button.text(),
            "title": window.plots.ttft_plot.getPlotItem().titleLabel.text,
            "pane": window.pane_set.widgets[0].stop_button.text(),
            "history": window.history_view.import_button.text(),
        }

    english = shown()
    assert english == {
        "menu": "&View",
        "tab": "Sweep",
        "run": "Run all",
        "sweep": "Run sweep",
        "title": "Time to first token",
        "pane": "Stop",
        "history": "Import…",
    }
    menus = window.menus
    view, language = menus.view_menu.menuAction(), menus.language_menu.menuAction()
    click_actions(qtbot, window, view, language, menus.language_actions["zh_CN"])
    qtbot.waitUntil(lambda: shown()["run"] != "Run all", timeout=3000)  # no restart
    chinese = shown()
    assert (
        chinese["menu"] == "视图(&V)" and chinese["tab"] == "扫描" and chinese["run"] == "全部运行"
    )
    assert all(chinese[k] != english[k] for k in english), chinese
    assert window.settings.value("language") == "zh_CN"  # and kept for the next start
    assert menus.language_actions["zh_CN"].isChecked()

    click_actions(qtbot, window, view, language, menus.language_actions["en"])
    qtbot.waitUntil(lambda: shown()["run"] == "Run all", timeout=3000)
    assert shown() == english
    assert window.settings.value("language") == "en"


def test_every_control_in_every_tab_has_an_accessible_name_or_a_label(window, qtbot) -> None:
    for index in range(window.tabs.count()):  # every tab shown once, as a user tabs through
        window.tabs.setCurrentIndex(index)
    assert window.tabs.count() == 8
    missing = [describe(w) for w in unnamed_controls(window)]
    assert missing == [], "controls a screen reader cannot name:\n" + "\n".join(missing)
    # named as a user would hear them, not only "something is set"
    assert window.pane_set.widgets[1].picker.accessibleName() == "Model of pane 2"
    assert window.plots.ttft_plot.accessibleName() == "Time to first token"
    assert window.sweep_view.repeats in [
        label.buddy() for label in window.sweep_view.findChildren(type(window.eta))
    ]


def test_the_accessibility_check_finds_an_unnamed_control(window) -> None:
    from PySide6.QtWidgets import QSpinBox

    stray = QSpinBox(window.sweep_view)  # a control added without a label or a name
    assert unnamed_controls(window) == [stray]
    stray.setAccessibleName("Stray count")
    assert unnamed_controls(window) == []


def test_menu_bar_sits_above_the_tabs(window) -> None:
    # the menu bar is part of the window's frame: it takes room above the tabs
    assert window.menuBar().isVisible()
    assert window.menuBar().geometry().bottom() < window.tabs.mapTo(window, QPoint(0, 0)).y()


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound, then released: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _style_color(widget) -> QColor:
    return QColor(widget.styleSheet().split("color:")[1].split(";")[0].strip())


def test_status_colours_follow_the_theme_switch(window, qtbot, loop) -> None:
    """A failed connection test's marks and summary, and the TLS warning, are recoloured by
    View → Theme: dark text on the light scheme, light text on the dark one, still red."""
    choose(qtbot, window, "View", "Theme", "Light")
    panel = window.provider_panel
    window.tabs.setCurrentWidget(panel)
    panel.new_provider()
    panel.name_edit.setText("down")
    panel.base_url_edit.setText(f"http://127.0.0.1:{_closed_port()}/v1")
    panel.key_source.setCurrentIndex(panel.key_source.findData("env"))
    panel.key_env.setText("UNSET_THEME_TEST_KEY")
    qtbot.mouseClick(panel.test_button, Qt.MouseButton.LeftButton)
    run_for(loop, until(lambda: panel.last_report is not None, timeout=30), 40)
    table = panel.checks_table
    row = next(r for r in range(table.rowCount()) if table.item(r, 1).data(
        Qt.ItemDataRole.UserRole) == "tcp")  # fmt: skip
    mark, summary = table.item(row, 0), panel.doctor_summary
    panel.verify_tls.setChecked(False)  # the form's warning shows
    warning = panel.tls_warning

    def colours() -> list[QColor]:
        return [mark.foreground().color(), _style_color(summary), _style_color(warning)]

    light = colours()
    assert all(c.red() > c.green() + 40 and luminance(c) < 110 for c in light), light
    choose(qtbot, window, "View", "Theme", "Dark")
    dark = colours()
    assert all(c.red() > c.green() + 40 and luminance(c) > 130 for c in dark), dark
    base = QApplication.palette().color(QPalette.ColorRole.Base)
    assert all(abs(luminance(c) - luminance(base)) > 90 for c in dark)  # readable on dark
    choose(qtbot, window, "View", "Theme", "Light")
    assert colours() == light


def test_help_open_the_log_folder_opens_the_data_folder(
    window, qtbot, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    opened = Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        choose(qtbot, window, "Help", "Open the log folder")
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in opened.urls] == [str(tmp_path / "data")]


def test_the_language_menu_checks_the_language_the_window_speaks(qapp, loop, tmp_path) -> None:
    """`workbench gui --lang en` after a session saved 中文: the menu checked 中文 while the
    window spoke English."""
    from PySide6.QtCore import QSettings

    from workbench.ui.translators import install_translators

    saved = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)  # make_window's
    saved.setValue("language", "zh_CN")
    saved.sync()
    install_translators(qapp, "en")  # what app.py does with --lang en
    with opened_window(loop, tmp_path) as window:
        actions = window.menus.language_actions
        assert actions["en"].isChecked() and not actions["zh_CN"].isChecked()
        assert window.toolbar.widgetForAction(window.run_action).text() == "Run all"
