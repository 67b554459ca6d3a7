#!/usr/bin/env bash
# Quick start, command 1: launch Attention Workbench on its built-in local provider (no key needed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec .venv/bin/workbench "$@"
