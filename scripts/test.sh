#!/usr/bin/env bash
# Quick start, command 2: install what the tests need and run the whole suite (lint included).
#   scripts/test.sh [PYTEST ARGS...]          the whole suite: every tier, lint, import layers, types
#   scripts/test.sh --fast [PYTEST ARGS...]   the fast tier (docs/testing.md): no gui, integration
#                                             or slow tests, and no torch, ray or extra venvs
#   scripts/test.sh --one-process ...         one process in file order (the default until session
#                                             39); --fast alone runs so too
#   scripts/test.sh --parallel ...            the fast tier on every core as well
#   scripts/test.sh --seed N ...              the random test order of seed N again
# The whole suite runs on every core (pytest-xdist, cores + 1 workers), then the `serial` tier
# (tests/support/tiers.py) alone, both in one seeded random order, printed (pytest-randomly):
# CI's way since three seeds in a row passed (docs/testing.md).
# Each step says what it does and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
mypy_pid=""
parallel=""  # unset: on every core for the whole suite, one process for the fast tier
seed="${WORKBENCH_TEST_SEED:-}"
while [ $# -gt 0 ]; do
    case "$1" in
        --fast) fast=1 ;;
        --parallel) parallel=1 ;;
        --one-process) parallel=0 ;;
        --seed)
            [ $# -ge 2 ] || { echo "test.sh: --seed needs a number, e.g. --seed 1234" >&2; exit 2; }
            seed="$2"
            shift
            ;;
        *) break ;;
    esac
    shift
done
[ -n "$parallel" ] || parallel=$((1 - fast))
fileorder=0
case "$seed" in
    "")
        seed=$(( (RANDOM << 15) | RANDOM ))
        [ $parallel = 1 ] || fileorder=1
        ;;
    *[!0-9]*)
        echo "test.sh: the seed must be a whole number (got '$seed'), e.g. --seed 1234" >&2
        exit 2
        ;;
esac

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
    # mypy beside the tests (18 s of one core while the workers mostly wait on servers): its
    # lines are held and said after the (parallel phase's) tests; its failure fails the run
    mypy_log="$(mktemp)"
    step "mypy (core and kernels_bridge, strict)" .venv/bin/mypy >"$mypy_log" 2>&1 &
    mypy_pid=$!
    say "mypy (core and kernels_bridge, strict): runs beside the tests, said after them"
    tier=(); tier_name="the whole suite"
else
    tier=(-m "not gui and not integration and not slow"); tier_name="the fast tier"
fi

# The order: seeded unless the arguments choose (-p no:randomly keeps the file order).
order=(); phased=$parallel
for arg in "$@"; do
    case "$arg" in
        *no:randomly | --randomly-seed*) order=(none); fileorder=0 ;;
        -n* | --numprocesses* | *no:xdist | --phase*) phased=0 ;;  # the caller's own split
    esac
done
if [ $fileorder = 1 ]; then
    order=(-p no:randomly)  # one process, file order
elif [ ${#order[@]} = 0 ]; then
    order=("--randomly-seed=$seed")
    again="scripts/test.sh$([ $fast = 0 ] || echo ' --fast')$([ $parallel = $((1 - fast)) ] || echo " $([ $parallel = 1 ] && echo --parallel || echo --one-process)") --seed $seed"
    say "random order, seed $seed (the same order again: $again [PYTEST ARGS...])"
else
    order=()
fi

# phase RC: pytest's exit code, with 5 (no test selected) read as 0: a phase may be empty
pytest_phase() {
    local rc=0
    .venv/bin/python -m pytest "${tier[@]}" "${order[@]}" "$@" || rc=$?
    [ $rc = 5 ] && return 0
    return $rc
}
# end_mypy RC: the tests' exit code, or mypy's failure when the tests passed
end_mypy() {
    local rc=$1 mypy_rc=0
    if [ -n "$mypy_pid" ]; then
        wait "$mypy_pid" || mypy_rc=$?
        cat "$mypy_log" >&2
        rm -f "$mypy_log"
    fi
    [ "$rc" = 0 ] && rc=$mypy_rc
    return "$rc"
}
if [ $phased = 1 ]; then
    # the tests that bound wall-clock times run alone after the rest: on shared cores a second
    # worker would fail them for the load, not for a defect (tests/support/tiers.py, `serial`).
    # One worker more than the cores: the workers wait on servers and timers more than they
    # compute (benchmarks/results/test_tiers.md, session 38: 3 workers beat 2 and 4 on 2 cores).
    workers="${WORKBENCH_TEST_WORKERS:-$(.venv/bin/python -c 'import os; print((os.cpu_count() or 1) + 1)')}"
    rc=0
    step "pytest ($tier_name, on $workers workers; the serial tier left for later)" \
        pytest_phase -n "$workers" --dist worksteal --phase parallel "$@" || rc=$?
    end_mypy $rc || rc=$?  # ended before the serial tier, which wants the cores to itself
    step "pytest ($tier_name: the serial tier, one test at a time)" \
        pytest_phase --phase serial "$@" || rc=$?
    exit $rc
fi
rc=0
step "pytest ($tier_name)" pytest_phase "$@" || rc=$?
end_mypy $rc
