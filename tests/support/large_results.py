"""A large vLLM `--save-detailed` result file, for the large-import test and
benchmarks/import_fill.py, in the shape of the tests' own fixture (data/results/)."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "results" / "vllm_save_detailed.json"


def large_vllm_file(path: Path, requests: int) -> Path:
    """Write a file of `requests` rows at `path`: three prompt lengths, five output tokens each."""
    doc = json.loads(FIXTURE.read_text())
    doc.update(
        num_prompts=requests,
        completed=requests,
        failed=0,
        input_lens=[1024 + i % 3 * 1024 for i in range(requests)],
        output_lens=[5] * requests,
        ttfts=[0.1 + i % 7 / 100 for i in range(requests)],
        itls=[[0.02, 0.021, 0.022, 0.02]] * requests,
        start_times=[1763633700.0 + i / 100 for i in range(requests)],
        generated_texts=["one two three four five"] * requests,
        errors=[""] * requests,
    )
    path.write_text(json.dumps(doc))
    return path
