#!/usr/bin/env bash
# Run guidellm and AIPerf, as installed from the package index, against `workbench serve-local`
# at concurrency 1 and 8, and keep what they wrote under tests/data/peers/<tool>-<version>/
# (with a README naming the command, the versions and the date). The tests read those files;
# they never need the tools. Each tool gets a venv of its own under VENVS (gitignored).
#
#   scripts/make_peer_fixtures.sh [VENVS]      # default: .venv-peers
#   TOOLS=guidellm scripts/make_peer_fixtures.sh   # one tool only
#
# No network beyond the package index: the tokenizer both tools need is trained here on
# resources/corpus/en.txt, and guidellm runs with HF_HUB_OFFLINE=1 (and without its /health
# check, which serve-local does not answer).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENVS=$(realpath -m "${1:-$ROOT/.venv-peers}")
PYTHON=${PYTHON:-python3}
WORKBENCH_PY=${WORKBENCH_PY:-$ROOT/.venv/bin/python}
[ -x "$WORKBENCH_PY" ] || WORKBENCH_PY=$PYTHON
MODEL=sim-llama-3-70b
REQUESTS=12  # per concurrency: small, so a run takes seconds and the files stay small
PORT=${PORT:-18765}
TOOLS=${TOOLS:-guidellm aiperf}
wanted() { [[ " $TOOLS " == *" $1 "* ]]; }
DATE=$(date -u +%Y-%m-%d)
WORK=$(mktemp -d)
SERVER=""
trap '[ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT

mkdir -p "$VENVS"
# guidellm's venv is made even for TOOLS=aiperf: its transformers builds the tokenizer
if [ ! -x "$VENVS/guidellm/bin/guidellm" ]; then
    "$PYTHON" -m venv "$VENVS/guidellm"
    # CPU torch first, pinned: an unpinned torch would pull gigabytes of CUDA wheels
    "$VENVS/guidellm/bin/pip" install -q torch==2.13.0
    "$VENVS/guidellm/bin/pip" install -q guidellm
fi
if wanted aiperf && [ ! -x "$VENVS/aiperf/bin/aiperf" ]; then
    "$PYTHON" -m venv "$VENVS/aiperf"
    "$VENVS/aiperf/bin/pip" install -q aiperf
fi
GUIDELLM_VERSION=$("$VENVS/guidellm/bin/python" -c 'import importlib.metadata as m; print(m.version("guidellm"))')

# a tiny word-level tokenizer saved as a Hugging Face folder: both tools load it offline
TOKENIZER=$WORK/tokenizer
"$VENVS/guidellm/bin/python" "$ROOT/scripts/make_peer_tokenizer.py" "$TOKENIZER"

"$WORKBENCH_PY" -m workbench serve-local --port "$PORT" --time-scale 0.1 \
    > "$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$PORT/v1/models" > /dev/null && break
    sleep 0.2
done

if wanted guidellm; then
GL_OUT=$ROOT/tests/data/peers/guidellm-$GUIDELLM_VERSION
rm -rf "$GL_OUT" && mkdir -p "$GL_OUT"
GL_CMD=(guidellm run
        --backend "kind=openai_http,target=http://127.0.0.1:$PORT,model=$MODEL,validate_backend=false"
        --tokenizer "kind=huggingface_auto,model=$TOKENIZER"
        --profile kind=concurrent --override profile.streams 1,8
        --constraint "kind=max_requests,count=$REQUESTS"
        --data "kind=synthetic_text,prompt_tokens=64,output_tokens=32"
        --output "kind=json,path=$WORK/guidellm/benchmarks.json"
        --output "kind=yaml,path=$WORK/guidellm/benchmarks.yaml" --disable-console-interactive)
mkdir -p "$WORK/guidellm"
(cd "$WORK" && HF_HUB_OFFLINE=1 "$VENVS/guidellm/bin/${GL_CMD[0]}" "${GL_CMD[@]:1}") \
    > "$WORK/guidellm.log" 2>&1 || { cat "$WORK/guidellm.log"; exit 1; }
cp "$WORK"/guidellm/benchmarks.json "$WORK"/guidellm/benchmarks.yaml "$GL_OUT/"
fi

if wanted aiperf; then
AIPERF_VERSION=$("$VENVS/aiperf/bin/python" -c 'import importlib.metadata as m; print(m.version("aiperf"))')
AP_OUT=$ROOT/tests/data/peers/aiperf-$AIPERF_VERSION
rm -rf "$AP_OUT" && mkdir -p "$AP_OUT"
for c in 1 8; do
    AP_CMD=(aiperf profile --model "$MODEL" --url "http://127.0.0.1:$PORT"
            --endpoint-type chat --streaming --tokenizer "$TOKENIZER" --concurrency "$c"
            --request-count "$REQUESTS" --isl 64
            --osl 32 --ui-type none --artifact-dir "$WORK/aiperf-c$c")
    (cd "$WORK" && env -u HF_HUB_OFFLINE "$VENVS/aiperf/bin/${AP_CMD[0]}" "${AP_CMD[@]:1}") \
        > "$WORK/aiperf-c$c.log" 2>&1 || { cat "$WORK/aiperf-c$c.log"; exit 1; }
    mkdir -p "$AP_OUT/c$c"
    cp "$WORK/aiperf-c$c/profile_export.jsonl" "$WORK/aiperf-c$c/profile_export_aiperf.json" \
        "$AP_OUT/c$c/"
done
fi

readme() {  # $1 folder, $2 tool, $3 version, $4 command, $5 what it wrote
    cat > "$1/README.md" <<EOF
# $2 $3, run for real

Written by \`scripts/make_peer_fixtures.sh\` on $DATE: $2 $3 (from the package index, in a
venv of its own) against \`workbench serve-local --time-scale 0.1\`, model \`$MODEL\`,
$REQUESTS requests at each concurrency (1 and 8), 64 prompt and 32 output tokens asked for,
tokenizer: a word-level one trained on \`resources/corpus/en.txt\` by the script.

Command (the target's port and the folders are the script's):

    $4

$5 Nothing was edited by hand; rerun the script to refresh.
EOF
}
wanted guidellm && readme "$GL_OUT" guidellm "$GUIDELLM_VERSION" "HF_HUB_OFFLINE=1 ${GL_CMD[*]}" \
    "Files: \`benchmarks.json\` and \`benchmarks.yaml\` (the same report; one benchmark per concurrency)."
if wanted aiperf; then
AP_TEXT="${AP_CMD[*]}"
AP_TEXT=${AP_TEXT//aiperf-c8/aiperf-cC}
readme "$AP_OUT" AIPerf "$AIPERF_VERSION" "${AP_TEXT//--concurrency 8/--concurrency C}" \
    "Files: \`cC/profile_export.jsonl\` (one record a request) and \`cC/profile_export_aiperf.json\` (AIPerf's own summary), one folder per concurrency C."
fi
echo "wrote: $(ls -d "$ROOT"/tests/data/peers/*/)"
