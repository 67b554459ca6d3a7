#!/usr/bin/env bash
# Create .venv with a Python >= 3.11 and install the project (editable) with the given
# dependency groups of pyproject.toml (PEP 735; pip >= 25.1, which this script upgrades to).
# Usage: scripts/bootstrap.sh [GROUP ...]   (none: the app alone; "test"; "package")
# Installs missing system packages with apt-get when run as root (or with sudo) on Debian/Ubuntu:
# Python's venv, and the libraries Qt's window needs (read from its xcb plugin); elsewhere it
# names what is missing (it stops only without a usable Python).
set -euo pipefail
cd "$(dirname "$0")/.."
groups=("$@")

say() { printf '%s\n' "$*" >&2; }

apt_install() {
    command -v apt-get >/dev/null 2>&1 || { say "missing: $* (install them with your package manager)"; exit 1; }
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || { say "missing: $* (run: sudo apt-get install $*)"; exit 1; }
        sudo="sudo"
    fi
    say "installing system packages: $*"
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

find_python() {
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"; return 0
        fi
    done
    return 1
}

python="$(find_python || true)"
if [ -z "$python" ]; then
    apt_install python3 python3-venv python3-pip
    python="$(find_python)" || { say "Python >= 3.11 is required; this system has $(python3 --version 2>&1)"; exit 1; }
fi
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    apt_install python3-venv
fi

if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
group_args=()
for group in "${groups[@]}"; do group_args+=(--group "$group"); done
stamp=".venv/.installed-$(cksum < pyproject.toml | cut -d' ' -f1)-$(IFS=_; echo "app${groups[*]:+_${groups[*]}}")"
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e . "${group_args[@]}"
    touch "$stamp"
fi

# The libraries Qt's xcb platform plugin links that this system lacks (ldd on the plugin file
# PySide6 ships, mapped to Debian packages: workbench/core/system/qt_libraries.py). Without them the
# window cannot open; the headless commands still work, so a box where they cannot be installed
# gets their names and goes on.
qt_packages() { .venv/bin/python -m workbench.core.system.qt_libraries; }
packages="$(qt_packages)"
if [ -n "$packages" ]; then
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || command -v sudo >/dev/null 2>&1; }; then
        sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq >/dev/null
        packages="$(qt_packages)"  # asked again: apt now knows each name's current spelling
        # shellcheck disable=SC2086  # one package a word
        apt_install $packages
        left="$(qt_packages)"
        [ -z "$left" ] || say "Qt's window still lacks: $left (the headless commands work)"
    else
        say "the window needs these system packages: $(echo $packages)" \
            "(install them: sudo apt-get install $(echo $packages)); the headless commands work"
    fi
fi
