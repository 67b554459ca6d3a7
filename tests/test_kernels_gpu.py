"""Triton decode kernels on a real CUDA device (issue 18). On a machine without one every test
here is skipped with a named reason; benchmarks/gpu_decode_device.sh runs the full sweep there."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from kernels_bridge.shape_sets import twin_set  # noqa: E402
from kernels_bridge.worker import reference  # noqa: E402
from kernels_bridge.worker.timing import measure  # noqa: E402

NO_GPU = "no CUDA GPU here (the sweep runs on a GPU machine: benchmarks/gpu_decode_device.sh)"
pytestmark = [
    pytest.mark.hardware("CUDA GPU"),
    pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_GPU),
]


@pytest.mark.parametrize("entry", twin_set(), ids=lambda e: e.variant)
def test_triton_decode_matches_the_reference_past_two_billion_cache_elements(entry) -> None:
    """Batch 128 at 16K: MHA's cache holds 2^33 elements, past 32-bit offsets (the first H200
    run faulted there with an illegal memory access before the offsets were 64-bit)."""
    from kernels_bridge.worker import triton_kernels

    dev = torch.device("cuda")
    inp = reference.make_inputs(entry.shape, 128, 16384, 1, "bf16", dev, 0)
    got = triton_kernels.decode(inp).float()
    want = reference.decode(inp).float()
    err = (torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want)).item()
    assert err < 2e-2, f"{entry.key}: relative error {err:.2e}"


def test_a_decode_step_is_timed_as_a_graph_replay() -> None:
    from kernels_bridge.worker import triton_kernels

    dev = torch.device("cuda")
    shape = next(e.shape for e in twin_set() if e.variant == "gqa")
    inp = reference.make_inputs(shape, 1, 4096, 1, "bf16", dev, 0)
    timing = measure(lambda: triton_kernels.decode(inp), dev, warmup=2, iters=10)
    assert timing.method == "cuda-graph"
    assert 0 < timing.median_s < 1e-3
