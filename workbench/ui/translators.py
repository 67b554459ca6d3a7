"""The UI's language: our Simplified Chinese .qm and Qt's own, for a window or a headless page."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator

from workbench.core.access.provider_files import default_config_dir
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.resources import resource


def settings() -> QSettings:
    path = default_config_dir() / "gui.ini"
    return QSettings(str(path), QSettings.Format.IniFormat)


# Qt's own file dialog asks for these, and qtbase_zh_CN lacks them (Qt 6 added the mnemonics):
# our .qm carries their Chinese, asked when Qt's has none
QT_OWN_MISSING = (
    QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
    QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Unknown"),
)


def _qt_own_missing_in_context() -> None:  # never called: lupdate reads the disambiguation here
    QCoreApplication.translate("QAbstractFileIconProvider", "Folder", "All other platforms")


_installed: list[QTranslator] = []  # ours and Qt's, removed again by the next switch
_language = ["en"]  # what the last install_translators put in place


def installed_language() -> str:
    """The language the UI speaks now ("en" or "zh_CN"), whatever chose it: --lang, the saved
    choice or the system locale (the View menu checks this one)."""
    return _language[0]


def install_translators(app: QCoreApplication, language: str | None) -> str:
    """Load our .qm and Qt's own for `language` (or the system locale); returns what was used.
    Called again, it replaces the translators it installed: every widget gets a
    LanguageChange event and sets its texts again (View → Language, no restart)."""
    name = language or str(settings().value("language", "")) or QLocale.system().name()
    while _installed:
        app.removeTranslator(_installed.pop())
    if not name.startswith("zh"):
        _language[0] = "en"
        return "en"
    ours = QTranslator(app)
    if ours.load(str(resource("translations", "workbench_zh_CN.qm"))):
        app.installTranslator(ours)
        _installed.append(ours)
    qt = QTranslator(app)
    if qt.load("qtbase_zh_CN", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
    _language[0] = "zh_CN"
    return "zh_CN"
