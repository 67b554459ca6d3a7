#!/usr/bin/env bash
# Quick start, command 2: install what the tests need and run the whole suite (lint included).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test
# The kernel tests need torch (CPU build is enough) and triton (its CPU interpreter); install
# them only when missing, so a second run costs one import check. TORCH_SPEC may pin another.
if ! .venv/bin/python -c 'import torch' >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}" \
        || echo "torch did not install: the kernel tests will fail" >&2
fi
if ! .venv/bin/python -c 'import triton' >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q triton || echo "triton did not install: its tests will fail" >&2
fi
# tests/test_cluster.py runs a real local Ray cluster (the `cluster` extra); pip install ray only
# when missing (about 10 s from the wheel)
if ! .venv/bin/python -c 'import ray' >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q "ray>=2.40" || echo "ray did not install: tests/test_cluster.py will fail" >&2
fi
# tests/test_transformers_serve.py runs a real `transformers serve` from a venv of its own (its
# pins would fight ours); installed only when missing (about a minute from the local wheels). A
# failed install is said here, and those tests then fail naming the cause and the fix.
if ! .venv-transformers/bin/python -c 'import transformers, fastapi, uvicorn' >/dev/null 2>&1; then
    { .venv/bin/python -m venv .venv-transformers && .venv-transformers/bin/python -m pip install -q \
        "${TORCH_SPEC:-torch==2.13.0}" "${TRANSFORMERS_SPEC:-transformers[serving]==5.24.0}"; } \
        || echo "transformers serve did not install into .venv-transformers:" \
            "tests/test_transformers_serve.py will fail" >&2
fi
# The gateway conformance tests (tests/test_litellm_conformance.py) start a real LiteLLM proxy
# from a venv of its own (its pins clash with ours): installed only when missing or at another
# spec, so a second run costs one file check. LITELLM_SPEC tries another version. A failed
# install leaves no .venv-litellm, so those tests fail (not skip), naming this fix.
litellm_spec="${LITELLM_SPEC:-litellm[proxy]==1.108.7}"
if [ "$(cat .venv-litellm/installed-spec 2>/dev/null)" != "$litellm_spec" ]; then
    base_python="$(.venv/bin/python -c 'import sys; print(sys._base_executable)')"
    rm -f .venv-litellm/installed-spec
    if { [ -x .venv-litellm/bin/python ] || "$base_python" -m venv .venv-litellm; } \
        && .venv-litellm/bin/python -m pip install -q "$litellm_spec"; then
        echo "$litellm_spec" > .venv-litellm/installed-spec
    else
        rm -rf .venv-litellm
        echo "LITELLM DID NOT INSTALL ($litellm_spec into .venv-litellm): the gateway conformance" \
            "tests will FAIL. Fix: check the network and pip's message above, then run" \
            "scripts/test.sh again, or set WORKBENCH_LITELLM_VENV to a venv with litellm[proxy]" >&2
    fi
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" QT_API=pyside6
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# the layers of docs/architecture.md ([tool.importlinter] in pyproject.toml); the types of the core
# and kernels_bridge ([tool.mypy]; after torch is installed, since the worker side imports it)
.venv/bin/lint-imports --no-cache
.venv/bin/mypy
exec .venv/bin/python -m pytest "$@"
