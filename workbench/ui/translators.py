"""The UI's language: our Simplified Chinese .qm and Qt's own, for a window or a headless page."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator

from workbench.core.provider_store import default_config_dir
from workbench.resources import resource


def settings() -> QSettings:
    path = default_config_dir() / "gui.ini"
    return QSettings(str(path), QSettings.Format.IniFormat)


def install_translators(app: QCoreApplication, language: str | None) -> str:
    """Load our .qm and Qt's own for `language` (or the system locale); returns what was used."""
    name = language or str(settings().value("language", "")) or QLocale.system().name()
    if not name.startswith("zh"):
        return "en"
    ours = QTranslator(app)
    if ours.load(str(resource("translations", "workbench_zh_CN.qm"))):
        app.installTranslator(ours)
    qt = QTranslator(app)
    if qt.load("qtbase_zh_CN", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
    return "zh_CN"
