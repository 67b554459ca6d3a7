#!/usr/bin/env bash
# Build the packaged desktop app (build.spec, PyInstaller) and smoke-test it.
#   scripts/package.sh                 # or: make package
#   scripts/package.sh --screenshot docs/screenshots/packaged-main-window.png
# Leaves dist/attention-workbench/attention-workbench (one folder; .exe on Windows, plus
# "dist/Attention Workbench.app" on macOS), then runs scripts/smoke_test.py on it: the binary's
# --self-test offscreen (fails on a non-zero exit, Traceback or ModuleNotFoundError), a start
# with no display (must exit non-zero with a message), and, where xvfb-run exists, the main
# window opened under Xvfb and saved as a PNG; on Debian/Ubuntu it then builds the .deb
# (scripts/package_deb.sh). docs/packaging.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

screenshot=""
while [ $# -gt 0 ]; do
    case "$1" in
        --screenshot) screenshot="$2"; shift 2 ;;
        *) echo "usage: scripts/package.sh [--screenshot PATH]" >&2; exit 2 ;;
    esac
done

scripts/bootstrap.sh package

# PyInstaller reads shared-library dependencies with ldd and objdump (binutils) on Linux.
if [ "$(uname -s)" = Linux ] && ! command -v objdump >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils >/dev/null
    else
        echo "missing: objdump (install binutils)" >&2; exit 1
    fi
fi

# The smoke test stores a secret in a throwaway Secret Service (gnome-keyring in its own D-Bus
# session): installed here where that is possible; elsewhere that one check is skipped.
if [ "$(uname -s)" = Linux ] && ! command -v gnome-keyring-daemon >/dev/null 2>&1 &&
    command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnome-keyring dbus; } \
        >/dev/null || echo "warning: gnome-keyring not installed: the keyring store check is skipped" >&2
fi

# Translations: a .ts without its compiled .qm is compiled here (build.spec refuses otherwise).
for ts in resources/translations/*.ts; do
    [ -e "$ts" ] || continue
    qm="${ts%.ts}.qm"
    if [ ! -f "$qm" ] || [ "$ts" -nt "$qm" ]; then
        .venv/bin/pyside6-lrelease "$ts" -qm "$qm"
    fi
done

# The bundle is built from its own venv, build/package-venv: the app with the package
# dependency group, and on Linux a numpy compiled without BLAS. The app's numpy work is pyqtgraph's
# arrays of a few thousand points; the stock wheel brings 28 MB of OpenBLAS and gfortran for
# matrix products it never does, plus 6 MB of SIMD variants. The wheel is built once (about
# 4 minutes on 2 cores) into build/wheels/ and reused. WORKBENCH_STOCK_NUMPY=1 keeps the stock
# wheel (as do Windows and macOS, where a compiler is not a given).
venv=build/package-venv
if [ ! -x "$venv/bin/python" ]; then
    .venv/bin/python -m venv "$venv"  # a venv made from a venv's Python uses the base one
fi
flavour=stock
if [ "$(uname -s)" = Linux ] && [ "${WORKBENCH_STOCK_NUMPY:-0}" != 1 ]; then flavour=noblas; fi
stamp="$venv/.installed-$(cksum < pyproject.toml | cut -d' ' -f1)-$flavour"
if [ ! -f "$stamp" ]; then
    rm -f "$venv"/.installed-*
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -e . --group package
    if [ "$flavour" = noblas ]; then
        version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("numpy"))')
        if ! ls build/wheels/numpy-"$version"-*.whl >/dev/null 2>&1; then
            echo "building numpy $version without BLAS for the bundle (once; about 4 minutes)"
            # needs a C/C++ compiler and the Python headers; without them the bundle keeps the
            # stock numpy and is 34 MB larger, which the size benchmark then shows
            "$venv/bin/python" -m pip wheel -q --no-deps --no-binary numpy "numpy==$version" \
                -w build/wheels \
                -Csetup-args=-Dblas=none -Csetup-args=-Dlapack=none \
                -Csetup-args=-Dallow-noblas=true -Csetup-args=-Ddisable-optimization=true \
                -Csetup-args=-Ddisable-svml=true -Csetup-args=-Ddisable-highway=true \
                -Csetup-args=-Ddisable-intel-sort=true -Cinstall-args=--strip ||
                echo "warning: numpy could not be built without BLAS here (a compiler or" \
                    "Python.h missing?); the bundle keeps the stock numpy (+34 MB)" >&2
        fi
        if ls build/wheels/numpy-"$version"-*.whl >/dev/null 2>&1; then
            "$venv/bin/python" -m pip install -q --force-reinstall --no-deps \
                build/wheels/numpy-"$version"-*.whl
        fi
    fi
    touch "$stamp"
fi

start=$(date +%s)
rm -rf dist/attention-workbench "dist/Attention Workbench.app"
"$venv/bin/pyinstaller" --noconfirm --log-level WARN \
    --distpath dist --workpath build/pyinstaller build.spec
if [ "$(uname -s)" = Linux ]; then
    # the freedesktop files in their usual layout beside the binary, for a tarball or a distro
    # package (share/applications, share/icons/hicolor); `attention-workbench install-desktop`
    # installs them for one user, with Exec pointing at this binary
    mkdir -p dist/attention-workbench/share/applications dist/attention-workbench/share/icons
    cp resources/desktop/attention-workbench.desktop dist/attention-workbench/share/applications/
    cp -r resources/icons/hicolor dist/attention-workbench/share/icons/
fi
echo "built dist/attention-workbench in $(( $(date +%s) - start )) s ($(du -sh dist/attention-workbench | cut -f1))"

binary=dist/attention-workbench/attention-workbench
case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) binary="$binary.exe" ;; esac
args=("$binary")
[ -z "$screenshot" ] || args+=(--screenshot "$screenshot")
.venv/bin/python scripts/smoke_test.py "${args[@]}"
# On Debian and Ubuntu, the .deb of that folder (scripts/package_deb.sh; scripts/check_deb.sh
# installs, starts and purges it).
if [ "$(uname -s)" = Linux ] && command -v dpkg-deb >/dev/null 2>&1; then
    scripts/package_deb.sh dist/attention-workbench
fi
