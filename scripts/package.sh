#!/usr/bin/env bash
# Build the packaged desktop app (build.spec, PyInstaller) and smoke-test it.
#   scripts/package.sh                 # or: make package
#   scripts/package.sh --screenshot docs/screenshots/packaged-main-window.png
# Leaves dist/attention-workbench/attention-workbench (one folder; .exe on Windows, plus
# "dist/Attention Workbench.app" on macOS), then runs scripts/smoke_test.py on it: the binary's
# --self-test offscreen (fails on a non-zero exit, Traceback or ModuleNotFoundError), a start
# with no display (must exit non-zero with a message), and, where xvfb-run exists, the main
# window opened under Xvfb and saved as a PNG. docs/packaging.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

screenshot=""
while [ $# -gt 0 ]; do
    case "$1" in
        --screenshot) screenshot="$2"; shift 2 ;;
        *) echo "usage: scripts/package.sh [--screenshot PATH]" >&2; exit 2 ;;
    esac
done

scripts/bootstrap.sh gui,package

# PyInstaller reads shared-library dependencies with ldd and objdump (binutils) on Linux.
if [ "$(uname -s)" = Linux ] && ! command -v objdump >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils >/dev/null
    else
        echo "missing: objdump (install binutils)" >&2; exit 1
    fi
fi

# Translations: a .ts without its compiled .qm is compiled here (build.spec refuses otherwise).
for ts in resources/translations/*.ts; do
    [ -e "$ts" ] || continue
    qm="${ts%.ts}.qm"
    if [ ! -f "$qm" ] || [ "$ts" -nt "$qm" ]; then
        .venv/bin/pyside6-lrelease "$ts" -qm "$qm"
    fi
done

start=$(date +%s)
rm -rf dist/attention-workbench "dist/Attention Workbench.app"
.venv/bin/pyinstaller --noconfirm --log-level WARN \
    --distpath dist --workpath build/pyinstaller build.spec
echo "built dist/attention-workbench in $(( $(date +%s) - start )) s ($(du -sh dist/attention-workbench | cut -f1))"

binary=dist/attention-workbench/attention-workbench
case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) binary="$binary.exe" ;; esac
args=("$binary")
[ -z "$screenshot" ] || args+=(--screenshot "$screenshot")
exec .venv/bin/python scripts/smoke_test.py "${args[@]}"
