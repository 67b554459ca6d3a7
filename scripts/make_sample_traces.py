"""Write the synthetic sample traces under resources/traces/ (seeded: the same files each run).

    python scripts/make_sample_traces.py [OUT_DIR]

- mooncake_sample.jsonl: 300 requests over about 90 s in Mooncake's trace format; most share
  one of a few system prompts (their leading hash ids), and follow-ups in a session share the
  session's earlier blocks, so a prefix cache has something to reuse.
- azure_sample.csv: 300 requests over about 90 s in the Azure LLM inference trace's columns.

Both are made up from seeded random draws; no row comes from a real service.
"""

from __future__ import annotations

import math
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

ROWS = 300
RATE = 3.3  # requests/s: 300 requests in about 90 s
BLOCK = 512


def _size(rng: random.Random, median: float, sigma: float, low: int, high: int) -> int:
    return max(low, min(high, round(rng.lognormvariate(math.log(median), sigma))))


def mooncake(rng: random.Random, rows: int = ROWS, rate: float = RATE) -> str:
    next_id = 0
    systems: list[list[int]] = []
    for blocks in (2, 3, 4, 6):  # a few system prompts, 1K-3K tokens each
        systems.append(list(range(next_id, next_id + blocks)))
        next_id += blocks
    sessions: list[list[int]] = []
    lines = []
    t = 0.0
    for _ in range(rows):
        output = _size(rng, 180, 0.8, 8, 1024)
        if sessions and rng.random() < 0.3:  # a follow-up: the session so far, then more
            session = rng.choice(sessions)
            extra = rng.randint(1, 3)
            session += range(next_id, next_id + extra)
            next_id += extra
            ids = list(session)
            length = (len(ids) - 1) * BLOCK + rng.randint(64, BLOCK)
        else:
            prefix = list(rng.choice(systems)) if rng.random() < 0.8 else []
            length = len(prefix) * BLOCK + _size(rng, 900, 0.9, 32, 12_000)
            own = math.ceil(length / BLOCK) - len(prefix)
            ids = prefix + list(range(next_id, next_id + own))
            next_id += own
            sessions = [*sessions[-19:], list(ids)]
        if length > 16_384:  # a session grown too long starts over
            ids = ids[: 16_384 // BLOCK]
            length = len(ids) * BLOCK
        stamp = round(t * 1000)
        lines.append(
            f'{{"timestamp": {stamp}, "input_length": {length}, "output_length": {output}, '
            f'"hash_ids": [{", ".join(map(str, ids))}]}}'
        )
        t += rng.expovariate(rate)
    return "\n".join(lines) + "\n"


def azure(rng: random.Random) -> str:
    start = datetime(2023, 11, 16, 18, 0, 0)
    rows = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    t = 0.0
    for _ in range(ROWS):
        moment = start + timedelta(seconds=t)
        stamp = moment.strftime("%Y-%m-%d %H:%M:%S.%f") + "0"  # the trace writes 7 digits
        context = _size(rng, 1000, 1.0, 16, 16_000)
        generated = _size(rng, 150, 0.9, 4, 1024)
        rows.append(f"{stamp},{context},{generated}")
        t += rng.expovariate(RATE)
    return "\n".join(rows) + "\n"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "mooncake_sample.jsonl").write_text(mooncake(random.Random(29)), encoding="utf-8")
    (out / "azure_sample.csv").write_text(azure(random.Random(2023)), encoding="utf-8")


if __name__ == "__main__":
    main(
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(__file__).parent.parent / "resources/traces"
    )
