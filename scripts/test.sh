#!/usr/bin/env bash
# Quick start, command 2: install what the tests need and run the whole suite (lint included).
#   scripts/test.sh [PYTEST ARGS...]          the whole suite: every tier, lint, import layers, types
#   scripts/test.sh --fast [PYTEST ARGS...]   the fast tier (docs/testing.md): no gui, integration
#                                             or slow tests, and no torch, ray or extra venvs
# Each step says what it does and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
if [ "${1:-}" = "--fast" ]; then
    fast=1
    shift
fi

say() { printf '[test.sh] %s\n' "$*" >&2; }
# step NAME COMMAND...: run it, then say how long it took (and that it failed, if it did)
step() {
    local name="$1" start=$SECONDS rc=0
    shift
    say "$name ..."
    "$@" || rc=$?
    say "$name: $([ $rc = 0 ] && echo done || echo "FAILED (exit $rc)") in $((SECONDS - start)) s"
    return $rc
}

step "venv and the test dependency group (scripts/bootstrap.sh test)" scripts/bootstrap.sh test

# --- the heavy extras, each only when missing: not for --fast --------------------------------

# The kernel tests need torch (CPU build is enough) and triton (its CPU interpreter);
# tests/test_cluster.py runs a real local Ray cluster (the `cluster` extra). All three go into
# .venv, so one after another (two pips in one venv at once are not safe). TORCH_SPEC may pin
# another torch.
install_into_venv() {
    if ! .venv/bin/python -c 'import torch' >/dev/null 2>&1; then
        step "install ${TORCH_SPEC:-torch==2.13.0} into .venv" \
            .venv/bin/python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}" \
            || echo "torch did not install: the kernel tests will fail" >&2
    fi
    if ! .venv/bin/python -c 'import triton' >/dev/null 2>&1; then
        step "install triton into .venv" .venv/bin/python -m pip install -q triton \
            || echo "triton did not install: its tests will fail" >&2
    fi
    if ! .venv/bin/python -c 'import ray' >/dev/null 2>&1; then
        step "install ray>=2.40 into .venv" .venv/bin/python -m pip install -q "ray>=2.40" \
            || echo "ray did not install: tests/test_cluster.py will fail" >&2
    fi
}

# tests/test_transformers_serve.py runs a real `transformers serve` from a venv of its own (its
# pins would fight ours); installed only when missing (about a minute from the local wheels). A
# failed install is said here, and those tests then fail naming the cause and the fix.
install_transformers_venv() {
    if ! .venv-transformers/bin/python -c 'import transformers, fastapi, uvicorn' >/dev/null 2>&1; then
        step "install ${TRANSFORMERS_SPEC:-transformers[serving]==5.24.0} into .venv-transformers" \
            bash -c '.venv/bin/python -m venv .venv-transformers && .venv-transformers/bin/python -m pip install -q "$1" "$2"' \
            _ "${TORCH_SPEC:-torch==2.13.0}" "${TRANSFORMERS_SPEC:-transformers[serving]==5.24.0}" \
            || echo "transformers serve did not install into .venv-transformers:" \
                "tests/test_transformers_serve.py will fail" >&2
    fi
}

# The gateway conformance tests (tests/test_litellm_conformance.py) start a real LiteLLM proxy
# from a venv of its own (its pins clash with ours): installed only when missing or at another
# spec, so a second run costs one file check. LITELLM_SPEC tries another version. A failed
# install leaves no .venv-litellm, so those tests fail (not skip), naming this fix.
install_litellm_venv() {
    local litellm_spec="${LITELLM_SPEC:-litellm[proxy]==1.108.7}" base_python
    if [ "$(cat .venv-litellm/installed-spec 2>/dev/null)" = "$litellm_spec" ]; then
        return 0
    fi
    base_python="$(.venv/bin/python -c 'import sys; print(sys._base_executable)')"
    rm -f .venv-litellm/installed-spec
    if { [ -x .venv-litellm/bin/python ] || "$base_python" -m venv .venv-litellm; } \
        && step "install $litellm_spec into .venv-litellm" \
            .venv-litellm/bin/python -m pip install -q "$litellm_spec"; then
        echo "$litellm_spec" > .venv-litellm/installed-spec
    else
        rm -rf .venv-litellm
        echo "LITELLM DID NOT INSTALL ($litellm_spec into .venv-litellm): the gateway conformance" \
            "tests will FAIL. Fix: check the network and pip's message above, then run" \
            "scripts/test.sh again, or set WORKBENCH_LITELLM_VENV to a venv with litellm[proxy]" >&2
    fi
}

if [ $fast = 0 ]; then
    # three independent targets (.venv, .venv-transformers, .venv-litellm) in parallel; each
    # one's output is held and printed whole when it ends, so the lines do not interleave
    extras_start=$SECONDS
    logs="$(mktemp -d)"
    install_into_venv >"$logs/venv" 2>&1 &
    p1=$!
    install_transformers_venv >"$logs/transformers" 2>&1 &
    p2=$!
    install_litellm_venv >"$logs/litellm" 2>&1 &
    p3=$!
    wait $p1 $p2 $p3 || true
    cat "$logs/venv" "$logs/transformers" "$logs/litellm" >&2
    rm -rf "$logs"
    say "the heavy extras (torch, triton, ray, transformers, litellm): checked in $((SECONDS - extras_start)) s"
fi

export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}" QT_API=pyside6
step "ruff check" .venv/bin/ruff check .
step "ruff format --check" .venv/bin/ruff format --check .
if [ $fast = 0 ]; then
    # the layers of docs/architecture.md ([tool.importlinter] in pyproject.toml); the types of the
    # core and kernels_bridge ([tool.mypy]; after torch is installed: the worker side imports it)
    step "lint-imports (the layers)" .venv/bin/lint-imports --no-cache
    step "mypy (core and kernels_bridge, strict)" .venv/bin/mypy
    step "pytest (the whole suite)" .venv/bin/python -m pytest "$@"
else
    step "pytest (the fast tier)" .venv/bin/python -m pytest \
        -m "not gui and not integration and not slow" "$@"
fi
