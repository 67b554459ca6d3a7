"""A server that refuses a request for lack of memory says so: the row's class and advice are
about memory, not the context window (a 512K prompt fits the 1M window of the MHA twin, but
its KV cache does not fit eight H200s beside the weights). --allow-overflow sends it, so the
server's own answer is what is read; without it the bench refuses the cell before sending
(tests/test_attention_story.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from workbench.cli import main
from workbench.core.foundation.errors import classify_status


def test_a_kv_cache_refusal_is_out_of_memory_with_memory_advice(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    args = ["bench", "--model", "sim-70b-mha", "--prompt-tokens", "512K", "--max-tokens", "8"]
    code = main([*args, "--time-scale", "0.01", "--csv", str(out), "--allow-overflow"])
    assert code == 3
    with out.open(encoding="utf-8", newline="") as f:
        (row,) = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    assert row["error_class"] == "out_of_memory"
    message = row["error_message"]
    assert "KV cache" in message and "no memory left" in message
    assert "context window" not in message  # the old boilerplate blamed the window


def test_known_out_of_memory_answers_are_recognised() -> None:
    for status, text in [
        (500, "CUDA out of memory. Tried to allocate 2.00 GiB"),
        (400, "The KV cache is full; not enough KV memory for the request"),
        (503, "insufficient GPU memory to schedule this request"),
    ]:
        body = json.dumps({"error": {"message": text}})
        found = classify_status(status, body, "application/json", "llama-3-70b")
        assert str(found.error_class) == "out_of_memory", text
    context = json.dumps({"error": {"message": "maximum context length is 8192 tokens"}})
    found = classify_status(400, context, "application/json", "llama-3-70b")
    assert str(found.error_class) == "bad_request"
