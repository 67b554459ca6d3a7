#!/usr/bin/env bash
# Are pyproject.toml's lower bounds honest? Install every direct dependency (and test tool) at
# the lowest version the bounds allow, with uv's `--resolution lowest-direct`, into
# build/lowest-venv, and run the suite there. The `kernels` extra is not taken at its lowest:
# torch 2.3 is a multi-gigabyte download, so the kernel tests get the torch and Triton that
# scripts/test.sh installs.
#   scripts/check_lowest_deps.sh [PYTEST ARGS]      # about 5 minutes; not part of CI, since a
#                                                   # new upstream release could fail it
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test
venv=build/lowest-venv
.venv/bin/python -m pip install -q uv
python=$(.venv/bin/python -c 'import sys; print(sys._base_executable)')
rm -rf "$venv"
.venv/bin/uv venv -q -p "$python" "$venv"
.venv/bin/uv pip install -q -p "$venv/bin/python" --resolution lowest-direct -e . --group test
.venv/bin/python -m pip --python "$venv/bin/python" install -q "${TORCH_SPEC:-torch==2.13.0}" triton
.venv/bin/uv pip list -p "$venv/bin/python" 2>/dev/null |
    grep -i -E '^(openai|httpx2|aiohttp|platformdirs|tomlkit|keyring|secretstorage|cryptography|pyside6-essentials|qasync|pyqtgraph|numpy|pytest|pytest-asyncio|pytest-qt) '
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" QT_API=pyside6
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
