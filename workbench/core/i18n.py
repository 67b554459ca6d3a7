"""Marks core strings for the UI's translation files, without importing Qt into the core.

`pyside6-lupdate` collects the texts of calls named QT_TRANSLATE_NOOP from the files
scripts/update_translations.sh gives it; at run time this returns the English text unchanged,
and the UI translates it with QCoreApplication.translate(context, text).
"""

from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # the name lupdate knows
    return text
