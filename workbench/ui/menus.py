"""The main window's menu bar: File (export, quit), View (theme, language), Help (docs, about)."""

from __future__ import annotations

import platform
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QUrl, qVersion
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox

import workbench
from workbench.ui.theme import CHOICES
from workbench.ui.translators import install_translators, installed_language

if TYPE_CHECKING:
    from workbench.ui.window_host import WindowHost

LANGUAGES = (("en", "English"), ("zh_CN", "中文"))


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version  # ~25 ms: at the About box

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


def versions() -> list[tuple[str, str]]:
    """What the About box lists: the app and the libraries whose versions change its figures."""
    import PySide6

    return [
        ("Attention Workbench", workbench.__version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
        ("openai", _version("openai")),
        ("pyqtgraph", _version("pyqtgraph")),
    ]


def docs_folder() -> Path | None:
    """The docs/ folder beside the package in a checkout or an unpacked source release."""
    folder = Path(workbench.__file__).resolve().parent.parent / "docs"
    return folder if (folder / "metrics.md").is_file() else None


class MenuBar(QObject):
    """Builds the menus on `window`; the File actions are the toolbar's own QActions."""

    def __init__(self, window: WindowHost) -> None:
        super().__init__(window)
        self.window = window
        bar = window.menuBar()
        self.file_menu = bar.addMenu("")
        self.file_menu.addAction(window.export_action)
        self.file_menu.addAction(window.export_chart_action)
        self.file_menu.addSeparator()
        self.quit_action = QAction(window)
        # Ctrl+Q spelled out: StandardKey.Quit is empty on Windows and without a platform theme
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(window.close)
        self.file_menu.addAction(self.quit_action)

        self.view_menu = bar.addMenu("")
        self.theme_menu = self.view_menu.addMenu("")
        self.theme_actions = self._choices(
            self.theme_menu, list(CHOICES), window.theme.choice, window.theme.set_choice
        )
        self.language_menu = self.view_menu.addMenu("")
        self.language_actions = self._choices(
            self.language_menu,
            [key for key, _name in LANGUAGES],
            installed_language(),  # not the saved choice: --lang may have overridden it
            self._set_language,
        )
        for key, name in LANGUAGES:  # each language in its own words, never translated
            self.language_actions[key].setText(name)

        self.help_menu = bar.addMenu("")
        self.docs_action = QAction(window)
        self.docs_action.setShortcut(QKeySequence("F1"))
        self.docs_action.triggered.connect(self.open_docs)
        self.about_action = QAction(window)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        self.log_folder_action = QAction(window)
        self.log_folder_action.triggered.connect(self.open_log_folder)
        self.help_menu.addAction(self.docs_action)
        self.help_menu.addAction(self.log_folder_action)
        self.help_menu.addAction(self.about_action)
        self.about_box: QMessageBox | None = None
        self.retranslate()

    def retranslate(self) -> None:
        """Every menu title and item in the language now installed."""
        self.file_menu.setTitle(self.tr("&File"))
        self.quit_action.setText(self.tr("&Quit"))
        self.view_menu.setTitle(self.tr("&View"))
        self.theme_menu.setTitle(self.tr("&Theme"))
        for key, text in (
            ("system", self.tr("&System")),
            ("light", self.tr("&Light")),
            ("dark", self.tr("&Dark")),
        ):
            self.theme_actions[key].setText(text)
        self.language_menu.setTitle(self.tr("&Language"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.docs_action.setText(self.tr("&Documentation"))
        self.log_folder_action.setText(self.tr("Open the &log folder"))
        self.about_action.setText(self.tr("&About Attention Workbench"))

    def _choices(
        self, menu: QMenu, keys: list[str], current: str, pick: Callable[[str], object]
    ) -> dict[str, QAction]:
        group = QActionGroup(menu)
        group.setExclusive(True)
        actions = {}
        for key in keys:
            action = QAction(menu, checkable=True)
            action.setChecked(key == current)
            action.setData(key)
            action.triggered.connect(lambda _checked=False, k=key: pick(k))
            group.addAction(action)
            menu.addAction(action)
            actions[key] = action
        return actions

    def _set_language(self, language: str) -> None:
        """Switch now: the new translators make every open widget set its texts again."""
        self.window.settings.setValue("language", language)
        self.window.settings.sync()
        app = QCoreApplication.instance()
        assert app is not None
        install_translators(app, language)
        name = dict(LANGUAGES)[language]
        self.window.statusBar().showMessage(self.tr("Language: %1").replace("%1", name), 10000)

    def open_log_folder(self) -> bool:
        from workbench.ui.crash_dialog import open_log_folder

        return open_log_folder()

    def open_docs(self) -> bool:
        folder = docs_folder()
        if folder is not None:
            return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
        self.window.statusBar().showMessage(
            self.tr(
                "The documentation is the docs/ folder of the source release "
                "(attention-workbench-%1.tar.gz) and its README.md."
            ).replace("%1", workbench.__version__),
            15000,
        )
        return False

    def show_about(self) -> QMessageBox:
        rows = "".join(f"<tr><td>{name}</td><td>{v}</td></tr>" for name, v in versions())
        box = QMessageBox(self.window)
        box.setWindowTitle(self.tr("About Attention Workbench"))
        box.setText(
            self.tr(
                "<b>Attention Workbench</b><br>Measures LLM servers behind OpenAI-compatible "
                "APIs: time to first token and decode speed, per request."
            )
            + f"<table>{rows}</table>"
        )
        box.setIconPixmap(self.window.windowIcon().pixmap(64, 64))
        box.open()  # window-modal, without blocking the event loop that runs the benchmarks
        self.about_box = box
        return box
