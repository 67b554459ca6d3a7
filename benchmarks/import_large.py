"""A 218 MB vLLM `--save-detailed` file (600,000 requests) through the real
`workbench import-results` (issue 28's goal: ≤ 60 s and peak RSS ≤ 300 MB).

The file is written in a temporary folder, in the shape vLLM writes (per-request lists:
input_lens, output_lens, ttfts, itls, start_times, generated_texts, errors); the import runs as a
subprocess with a history of its own, and its wall time and peak RSS (ru_maxrss of the child)
are recorded with the machine and the load average in benchmarks/results/import_large.{json,md}.

    .venv/bin/python benchmarks/import_large.py [--requests 600000] [--label TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

REQUESTS = 600_000
TIME_GOAL_S = 60.0
RSS_GOAL_MB = 300.0


def write_vllm_file(path: Path, requests: int, seed: int = 7) -> int:
    """A vLLM detailed file of `requests` rows, each list written as it is made (the writer
    holds one list's text at a time); returns its size in bytes."""
    rng = random.Random(seed)
    outs = [rng.randint(10, 16) for _ in range(requests)]
    head = {
        "date": "20261120-101500",
        "endpoint_type": "openai-chat",
        "backend": "openai-chat",
        "label": None,
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
        "num_prompts": requests,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 256,
        "duration": requests / 50,
        "completed": requests,
        "failed": 0,
        "total_input_tokens": 0,
        "total_output_tokens": sum(outs),
        "request_throughput": 50.0,
        "output_throughput": 550.0,
        "mean_ttft_ms": 120.0,
        "median_ttft_ms": 118.0,
        "p99_ttft_ms": 240.0,
    }
    words = "the of and to in is was that for it as with on by".split()
    lists = {
        "input_lens": lambda i: rng.randint(128, 4096),
        "output_lens": lambda i: outs[i],
        "ttfts": lambda i: rng.uniform(0.05, 0.3),
        "itls": lambda i: [rng.uniform(0.01, 0.03) for _ in range(outs[i] - 1)],
        "start_times": lambda i: 1763633700.0 + i / 50 + rng.random() / 100,
        "generated_texts": lambda i: " ".join(rng.choice(words) for _ in range(outs[i])),
        "errors": lambda i: "",
    }
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(head)[:-1])
        for key, make in lists.items():
            f.write(f', "{key}": [')
            for i in range(requests):
                f.write(("," if i else "") + json.dumps(make(i)))
            f.write("]")
        f.write("}")
    return path.stat().st_size


# runs the import as its own child, so that ru_maxrss is the import's alone (RUSAGE_CHILDREN of
# the caller would be the largest of every child it ever waited for)
_MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(f'peak_rss_kib={peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run_import(file: Path, home: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(seconds, peak RSS in MB, the process) of one `workbench import-results FILE`."""
    env = {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(home / "data"),
        "WORKBENCH_CONFIG_DIR": str(home / "config"),
    }
    command = [sys.executable, "-m", "workbench", "import-results", str(file)]
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURED, *command],
        capture_output=True, text=True, env=env, check=False, cwd=home,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    peak = proc.stderr.rstrip().rpartition("peak_rss_kib=")[2]
    return seconds, int(peak) / 1024, proc  # ru_maxrss is in KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=REQUESTS)
    parser.add_argument("--label", default="")
    parser.add_argument("--no-record", action="store_true", help="print only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="import-large-") as folder:
        home = Path(folder)
        file = home / "vllm_detailed.json"
        started = time.perf_counter()
        size = write_vllm_file(file, args.requests)
        print(f"wrote {size / 1e6:.0f} MB in {time.perf_counter() - started:.0f} s", flush=True)
        load_before = os.getloadavg()
        seconds, peak_mb, proc = run_import(file, home)
        load_after = os.getloadavg()
    print(proc.stdout[-2000:], proc.stderr[-2000:], sep="\n")
    figures = {
        "requests": args.requests,
        "file_mb": round(size / 1e6, 1),
        "exit_code": proc.returncode,
        "wall_s": round(seconds, 1),
        "peak_rss_mb": round(peak_mb, 1),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "goal": f"<= {TIME_GOAL_S:.0f} s and peak RSS <= {RSS_GOAL_MB:.0f} MB",
        "met": proc.returncode == 0 and seconds <= TIME_GOAL_S and peak_mb <= RSS_GOAL_MB,
    }
    print(json.dumps(figures, indent=1))
    if not args.no_record:
        lines = [f"- {k}: {v}" for k, v in figures.items()]
        markdown = (args.label + "\n\n" if args.label else "") + "\n".join(lines) + "\n"
        command = "python benchmarks/import_large.py " + " ".join(sys.argv[1:])
        data = {"label": args.label, "figures": figures, "machine": machine_record()}
        write_result("import_large", command.strip(), markdown, data)
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
