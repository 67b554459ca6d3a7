#!/usr/bin/env bash
# Create .venv with a Python >= 3.11 and install the project (editable) with the given
# dependency groups of pyproject.toml (PEP 735; pip >= 25.1, which this script upgrades to).
# Usage: scripts/bootstrap.sh [GROUP ...]   (none: the app alone; "test"; "package")
# Installs missing system packages with apt-get when run as root (or with sudo) on Debian/Ubuntu;
# elsewhere it names what is missing and stops.
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

# Qt's xcb/offscreen platforms need these shared libraries (a minimal image lacks them).
if command -v ldconfig >/dev/null 2>&1; then
    missing=()
    for pair in libEGL.so.1:libegl1 libxkbcommon.so.0:libxkbcommon0 \
                libfontconfig.so.1:libfontconfig1 libdbus-1.so.3:libdbus-1-3 libGL.so.1:libgl1; do
        ldconfig -p | grep -q "${pair%%:*}" || missing+=("${pair##*:}")
    done
    [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
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
