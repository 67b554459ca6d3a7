#!/usr/bin/env bash
# Quick start, command 2: install what the tests need and run the whole suite (lint included).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh gui,test
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" QT_API=pyside6
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
