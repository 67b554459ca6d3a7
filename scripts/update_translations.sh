#!/usr/bin/env bash
# Refresh the translation source from the UI code, then compile it for the app.
#   scripts/update_translations.sh          # lupdate + lrelease
# Translators edit resources/translations/workbench_zh_CN.ts (Qt Linguist or any editor).
set -euo pipefail
cd "$(dirname "$0")/.."
# every module that marks strings (the UI's self.tr, and the core texts it shows translated,
# marked with workbench.core.foundation.i18n.QT_TRANSLATE_NOOP), found by scripts/translation_sources.py
mapfile -t sources < <(.venv/bin/python scripts/translation_sources.py)
.venv/bin/pyside6-lupdate "${sources[@]}" -ts resources/translations/workbench_zh_CN.ts -no-obsolete
.venv/bin/pyside6-lrelease resources/translations/workbench_zh_CN.ts -qm resources/translations/workbench_zh_CN.qm
