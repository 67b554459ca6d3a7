#!/usr/bin/env bash
# Quick start, command 1: launch Attention Workbench on its built-in local provider (no key needed).
# Where no window can open (no display, or system libraries Qt's xcb plugin needs are missing:
# `workbench` names them and the apt-get command), it says why and runs the headless comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec .venv/bin/workbench "$@"
