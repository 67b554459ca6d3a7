#!/usr/bin/env bash
# The GPU decode sweep as one prepared command for a lent GPU machine (or any CUDA box):
# machine facts, then benchmarks/gpu_decode.py under a time budget, everything into $OUT.
#
#   OUT=/some/dir BUDGET_S=300 bash benchmarks/gpu_decode_device.sh
#
# Nothing is installed: the machine's own torch and Triton are used. The other backends are
# left out because each needs compiling or more than a carried wheel can hold (measured here,
# 2026-11-30): flash-attn has no binary wheel on PyPI (its sdist compiles CUDA for minutes);
# FlashMLA is not on PyPI; flashinfer-python 0.7.4 is a 101 MB wheel that compiles its kernels
# with nvcc at first use, and its precompiled kernels (flashinfer-cubin) are a 458 MB wheel.
# A wheel directory .whl/ beside this checkout is installed first when present.
set -u
OUT=${OUT:-benchmarks/results/gpu_decode}
BUDGET_S=${BUDGET_S:-300}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
{
    date -u
    nvidia-smi || echo "nvidia-smi failed"
    "$PY" -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no CUDA device')"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if compgen -G ".whl/*.whl" > /dev/null; then
    start=$(date +%s)
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site
    echo "wheels installed in $(( $(date +%s) - start )) s"
fi
# the sweep stops itself at its budget; the outer limit only catches a hang
timeout $(( ${BUDGET_S%.*} + 90 )) "$PY" benchmarks/gpu_decode.py --out "$OUT" --budget-s "$BUDGET_S" \
    2>&1 | tee "$OUT/log.txt"
echo "exit ${PIPESTATUS[0]}"
# why the latent (MLA) kernel stays far from the copy bandwidth: the profiler's view of one
# launch, with the settings before and after the first sweep (Nsight Compute, when present)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
    for which in new old; do
        flag=""; [ "$which" = old ] && flag="--old"
        timeout 150 "$NCU" --clock-control none --kernel-name regex:_split_kernel \
            --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy \
            --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats \
            "$PY" benchmarks/gpu_profile_mla.py $flag > "$OUT/ncu_mla_$which.txt" 2>&1
        echo "ncu ($which settings): exit $?"; tail -60 "$OUT/ncu_mla_$which.txt"
    done
else
    echo "ncu not found: no profile"
fi
