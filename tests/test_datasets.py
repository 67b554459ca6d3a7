"""`workbench bench --dataset PATH` (issue 29, item 2): each reader on files written the way
its source documents the format, shared prefixes from Mooncake hash ids, and replays through
real `workbench bench` subprocesses against a real `workbench serve-local`."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.support.cli_inprocess import run_cli
from workbench.core.datasets import DatasetError, load_dataset, rows, trace_text
from workbench.core.datasets.model import BLOCK_TOKENS
from workbench.core.foundation.results import Target
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.run.plan import Choices, build_plan
from workbench.core.scale.shards import split
from workbench.local.tokenizer import PER_MESSAGE_TOKENS, PER_REQUEST_TOKENS, count_tokens

ROOT = Path(__file__).parent.parent
WORKBENCH = [sys.executable, "-m", "workbench"]
MODEL = "sim-70b-gqa"
ONE_MESSAGE = PER_MESSAGE_TOKENS + PER_REQUEST_TOKENS  # serve-local's chat overhead

# Mooncake's trace format: one JSON object per line, timestamp in ms from the trace's start,
# hash_ids one per 512-token block
MOONCAKE = [
    {"timestamp": 0, "input_length": 1100, "output_length": 6, "hash_ids": [0, 1, 2]},
    {"timestamp": 400, "input_length": 1300, "output_length": 4, "hash_ids": [0, 1, 3]},
    {"timestamp": 900, "input_length": 600, "output_length": 9, "hash_ids": [4, 5]},
    {"timestamp": 1600, "input_length": 520, "output_length": 2, "hash_ids": [0, 6]},
]
# The Azure LLM inference trace's CSV, as the published files write it
AZURE = """TIMESTAMP,ContextTokens,GeneratedTokens
2023-11-16 18:15:46.6805900,374,7
2023-11-16 18:15:47.2805900,396,3
2023-11-16 18:15:48.1805900,879,5
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(path: Path, rows_: list[dict[str, object]]) -> Path:
    return write(path, "".join(json.dumps(r) + "\n" for r in rows_))


def azure_offsets() -> list[float]:
    stamps = [line.split(",")[0][:26] for line in AZURE.splitlines()[1:]]
    moments = [datetime.fromisoformat(s).timestamp() for s in stamps]
    return [m - moments[0] for m in moments]


# ---- the readers ----


def test_a_mooncake_trace_keeps_its_times_sizes_and_hash_ids(tmp_path: Path) -> None:
    data = load_dataset(jsonl(tmp_path / "trace.jsonl", MOONCAKE))
    assert data.kind == "mooncake" and data.timed
    assert data.offsets() == pytest.approx([0.0, 0.4, 0.9, 1.6])
    assert data.offsets(4) == pytest.approx([0.0, 0.1, 0.225, 0.4])
    assert [r.input_tokens for r in data.requests] == [1100, 1300, 600, 520]
    assert [r.output_tokens for r in data.requests] == [6, 4, 9, 2]
    assert data.requests[1].hash_ids == (0, 1, 3)


def test_equal_leading_hash_ids_give_byte_identical_prefixes(tmp_path: Path) -> None:
    data = load_dataset(jsonl(tmp_path / "trace.jsonl", MOONCAKE))
    texts = [trace_text(r, i).encode() for i, r in enumerate(data.requests)]
    two_blocks = len(" ".join(trace_text(data.requests[0], 0).split()[: 2 * BLOCK_TOKENS]))
    assert texts[0][:two_blocks] == texts[1][:two_blocks]  # hash ids 0, 1 shared
    assert texts[0][two_blocks : two_blocks + 200] != texts[1][two_blocks : two_blocks + 200]
    one_block = len(" ".join(trace_text(data.requests[0], 0).split()[:BLOCK_TOKENS]))
    assert texts[3][:one_block] == texts[0][:one_block]  # hash id 0 only
    assert texts[3][one_block : one_block + 200] != texts[0][one_block : one_block + 200]
    assert texts[2][:200] != texts[0][:200]  # hash ids 4, 5: nothing shared
    # each prompt is its input_length in tokens (the built-in provider's tokenizer)
    assert [count_tokens(t.decode()) for t in texts] == [1100, 1300, 600, 520]


def test_an_azure_trace_csv_is_due_its_distance_from_the_first_row(tmp_path: Path) -> None:
    data = load_dataset(write(tmp_path / "AzureLLMInferenceTrace_conv.csv", AZURE))
    assert data.kind == "azure-csv" and data.timed
    assert data.offsets() == pytest.approx(azure_offsets())
    assert data.offsets() == pytest.approx([0.0, 0.6, 1.5])
    assert [(r.input_tokens, r.output_tokens) for r in data.requests] == [
        (374, 7),
        (396, 3),
        (879, 5),
    ]


def test_openai_jsonl_sends_its_messages_and_max_tokens(tmp_path: Path) -> None:
    lines: list[dict[str, object]] = [
        {"messages": [{"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Hi"}]},
        {"messages": [{"role": "user", "content": "Name a colour."}], "max_tokens": 12},
        {"custom_id": "r3", "method": "POST", "url": "/v1/chat/completions",
         "body": {"messages": [{"role": "user", "content": "Batch line"}], "max_tokens": 5}},
    ]  # fmt: skip
    data = load_dataset(jsonl(tmp_path / "chat.jsonl", lines))
    assert data.kind == "chat-jsonl" and not data.timed
    assert data.requests[0].messages == (("system", "Be brief."), ("user", "Hi"))
    assert [r.output_tokens for r in data.requests] == [None, 12, 5]
    assert data.requests[2].messages == (("user", "Batch line"),)


def test_sharegpt_turns_resend_the_conversation_so_far(tmp_path: Path) -> None:
    conversations = [
        {"id": "a", "conversations": [
            {"from": "human", "value": "What is GQA?"},
            {"from": "gpt", "value": "Grouped-query attention."},
            {"from": "human", "value": "And MLA?"},
            {"from": "gpt", "value": "Latent attention."},
        ]},
        {"id": "b", "conversations": [{"from": "human", "value": "Hello"}]},
    ]  # fmt: skip
    data = load_dataset(write(tmp_path / "sharegpt.json", json.dumps(conversations)))
    assert data.kind == "sharegpt"
    assert [r.messages for r in data.requests] == [
        (("user", "What is GQA?"),),
        (("user", "What is GQA?"), ("assistant", "Grouped-query attention."), ("user", "And MLA?")),
        (("user", "Hello"),),
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"timestamp": 0, "input_length": 10, "output_length": 1}\n{"timestamp": 5,\n',
         "line 2: not JSON"),
        ('{"timestamp": 0, "input_length": 0, "output_length": 1}\n',
         "line 1: input_length must be a whole number 1..1,048,576, got 0; fix or drop"),
        ('{"input_length": 10, "output_length": 1}\n', "line 1: no timestamp; each row needs"),
        ('{"timestamp": 9, "input_length": 9, "output_length": 1}\n'
         '{"timestamp": 3, "input_length": 9, "output_length": 1}\n',
         "line 2: timestamp is before the row above; sort by timestamp"),
        ('{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": "0,1"}\n',
         "line 1: hash_ids must be a list of whole numbers"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,12,x\n",
         "line 2: GeneratedTokens must be a whole number"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,12,3\n",
         "line 2: TIMESTAMP 'yesterday' is not a date and time; write it as"),
        ('{"messages": [{"role": "user"}]}\n', "line 1: message 1 needs a role"),
        ("id,prompt\n1,hello\n", "is not a dataset this reads: give OpenAI-style JSONL"),
        ('{"prompt": "hello"}\n', "none of the known fields"),
    ],
)  # fmt: skip
def test_a_bad_row_names_its_line_the_cause_and_the_fix(
    tmp_path: Path, text: str, said: str
) -> None:
    with pytest.raises(DatasetError, match=None) as caught:
        load_dataset(write(tmp_path / "bad.txt", text))
    assert said in str(caught.value)


def test_reading_is_bounded_a_regular_file_a_byte_cap_and_a_row_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(DatasetError, match="is a folder, not a dataset file; give a dataset file"):
        load_dataset(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(DatasetError, match=r"is a FIFO \(named pipe\), not a dataset file"):
        load_dataset(fifo)  # never blocks waiting for a writer
    many = [{**row, "timestamp": i * 100} for i, row in enumerate(MOONCAKE * 50)]
    big = jsonl(tmp_path / "big.jsonl", many)
    with pytest.raises(DatasetError, match="is over 4,096 bytes; cut it to fewer rows"):
        load_dataset(big, max_bytes=4096)
    monkeypatch.setattr(rows, "MAX_ROWS", 10)
    with pytest.raises(DatasetError, match="more than 10 requests; keep the first 10 rows"):
        load_dataset(big)


def test_the_shipped_samples_are_short_seeded_traces_with_shared_prefixes(tmp_path: Path) -> None:
    shipped = ROOT / "resources" / "traces"  # this checkout's (the venv may point elsewhere)
    for name, kind in (("mooncake_sample.jsonl", "mooncake"), ("azure_sample.csv", "azure-csv")):
        data = load_dataset(shipped / name)
        assert data.kind == kind and 200 <= len(data.requests) <= 500
        assert 60 <= data.offsets()[-1] <= 120  # one to two minutes of trace
    script = ROOT / "scripts" / "make_sample_traces.py"
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True, timeout=60)
    for name in ("mooncake_sample.jsonl", "azure_sample.csv"):
        assert (tmp_path / name).read_bytes() == (shipped / name).read_bytes()
    assert "synthetic" in (shipped / "README.md").read_text(encoding="utf-8").lower()
    requests = load_dataset(shipped / "mooncake_sample.jsonl").requests
    firsts = [r.hash_ids[:2] for r in requests if len(r.hash_ids) >= 2]
    assert len(set(firsts)) < len(firsts) / 2  # most requests share a leading prefix


def test_worker_shares_send_each_row_once_and_a_trace_on_its_times(tmp_path: Path) -> None:
    target = Target("local", "http://127.0.0.1:1/v1", MODEL)
    lines: list[dict[str, object]] = [
        {"messages": [{"role": "user", "content": f"row {i}"}]} for i in range(10)
    ]
    chat = load_dataset(jsonl(tmp_path / "chat.jsonl", lines))
    plan = build_plan(
        [target], Choices(prompt_lengths=(128,), repeats=10, concurrency_levels=(4,), dataset=chat)
    )
    sent = []
    for shard in split(plan, 3):
        assert shard.plan.dataset is not None
        count_ = shard.plan.requests_at(shard.plan.concurrency_levels[0])
        sent += [shard.plan.dataset.at(i).messages[0][1] for i in range(count_)]
    assert sorted(sent) == sorted(f"row {i}" for i in range(10))
    trace = load_dataset(jsonl(tmp_path / "trace.jsonl", MOONCAKE))
    spec = ArrivalSpec(rate=1, offsets=trace.offsets(2))
    plan = build_plan([target], Choices(prompt_lengths=(1024,), arrivals=spec, dataset=trace))
    union = sorted(p for s in split(plan, 2) for p in s.plan.arrivals.own())  # type: ignore[union-attr]
    assert union == list(enumerate([0.0, 0.2, 0.45, 0.8]))
    assert plan.output_size(2) == 9 and plan.longest(1024) == 1300
    assert plan.to_config()["dataset"] == {"kind": "mooncake", "requests": 4}


def test_a_trace_schedule_is_its_times_within_the_stop_conditions() -> None:
    spec = ArrivalSpec(rate=1, offsets=(0.0, 0.5, 1.5, 3.0), duration_s=2.0)
    assert spec.schedule() == (0.0, 0.5, 1.5)
    assert ArrivalSpec(rate=1, offsets=(0.0, 0.5, 1.5), max_requests=2).schedule() == (0.0, 0.5)
    with pytest.raises(ValueError, match="in order"):
        ArrivalSpec(rate=1, offsets=(0.0, 2.0, 1.0))
    with pytest.raises(
        ValueError, match=r"0\.\.86400 s from its start; replay it faster \(--trace-speed X\)"
    ):
        ArrivalSpec(rate=1, offsets=(0.0, 90_000.0))


# ---- replays: workbench bench --dataset against workbench serve-local ----


@pytest.fixture
def server() -> Iterator[str]:
    proc = subprocess.Popen(
        [*WORKBENCH, "serve-local", "--port", "0", "--time-scale", "0.01", "--exit-with-stdin"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening at " in line, line
        yield line.split("listening at ", 1)[1].strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


def bench(url: str, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    args = ["bench", "--base-url", url, "--model", MODEL, "-q", "--workers", "1", *extra]
    return run_cli(args, env)  # in this process: a start cost ~0.3 s CPU, the run far less


def measured(path: Path) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))
    return sorted((r for r in reader if r["phase"] == "measured"), key=lambda r: int(r["repeat"]))


def test_a_mooncake_trace_replays_on_its_clock_with_its_sizes(
    tmp_path: Path, env: dict[str, str], server: str
) -> None:
    trace = jsonl(tmp_path / "trace.jsonl", MOONCAKE)
    out = tmp_path / "rows.csv"
    done = bench(server, env, "--dataset", str(trace), "--trace-speed", "4", "--csv", str(out))
    assert done.returncode == 0, done.stderr
    got = measured(out)
    assert [float(r["scheduled_s"]) for r in got] == pytest.approx(
        [row["timestamp"] / 1000 / 4 for row in MOONCAKE], abs=1e-6
    )
    assert [int(r["prompt_tokens"]) for r in got] == [
        row["input_length"] + ONE_MESSAGE for row in MOONCAKE
    ]
    assert [int(r["completion_tokens"]) for r in got] == [row["output_length"] for row in MOONCAKE]
    assert all(r["error_class"] == "" and r["dispatch_ms"] for r in got)


def test_an_azure_trace_replays_on_its_clock_with_its_sizes(
    tmp_path: Path, env: dict[str, str], server: str
) -> None:
    trace = write(tmp_path / "azure.csv", AZURE)
    out = tmp_path / "rows.csv"
    done = bench(server, env, "--dataset", str(trace), "--trace-speed", "3", "--csv", str(out))
    assert done.returncode == 0, done.stderr
    got = measured(out)
    assert [float(r["scheduled_s"]) for r in got] == pytest.approx(
        [t / 3 for t in azure_offsets()], abs=1e-6
    )
    assert [int(r["prompt_tokens"]) for r in got] == [374 + ONE_MESSAGE, 396 + ONE_MESSAGE,
                                                      879 + ONE_MESSAGE]  # fmt: skip
    assert [int(r["completion_tokens"]) for r in got] == [7, 3, 5]


def test_a_chat_jsonl_goes_closed_loop_one_request_per_line(
    tmp_path: Path, env: dict[str, str], server: str
) -> None:
    lines: list[dict[str, object]] = [
        {"messages": [{"role": "user", "content": f"question {i} " * 40}], "max_tokens": 3 + i}
        for i in range(5)
    ]
    data = jsonl(tmp_path / "chat.jsonl", lines)
    out = tmp_path / "rows.csv"
    done = bench(server, env, "--dataset", str(data), "--concurrency", "2", "--csv", str(out))
    assert done.returncode == 0, done.stderr
    got = measured(out)
    assert len(got) == 5
    assert [int(r["completion_tokens"]) for r in got] == [3, 4, 5, 6, 7]
    assert [int(r["prompt_tokens"]) for r in got] == [
        count_tokens(f"question {i} " * 40) + ONE_MESSAGE for i in range(5)
    ]


def test_a_sharegpt_file_goes_at_a_rate_one_request_per_human_turn(
    tmp_path: Path, env: dict[str, str], server: str
) -> None:
    turns = [
        {"from": "human", "value": "What is grouped query attention in short"},
        {"from": "gpt", "value": "Heads share keys and values in groups"},
        {"from": "human", "value": "And what does it save"},
    ]
    chats = [{"conversations": turns}, {"conversations": turns[:1]}]
    path = write(tmp_path / "sharegpt.json", json.dumps(chats))
    out = tmp_path / "rows.csv"
    done = bench(server, env, "--dataset", str(path), "--rate", "20", "--arrivals", "constant",
                 "--max-tokens", "4", "--csv", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = measured(out)
    assert [float(r["scheduled_s"]) for r in got] == pytest.approx([0.0, 0.05, 0.1])
    texts = [[turns[0]], turns, [turns[0]]]  # the second request resends the first turns
    assert [int(r["prompt_tokens"]) for r in got] == [
        sum(count_tokens(t["value"]) + PER_MESSAGE_TOKENS for t in sent) + PER_REQUEST_TOKENS
        for sent in texts
    ]
    assert [int(r["completion_tokens"]) for r in got] == [4, 4, 4]


@pytest.mark.parametrize(
    ("content", "extra", "said"),
    [
        ('{"timestamp": 0, "input_length": -3, "output_length": 1}\n', (),
         "line 1: input_length must be a whole number"),
        ('{"timestamp": 0, "input_length": 9, "output_length": 1}\n', ("--rate", "5"),
         "is a trace with its own clock: drop --rate"),
        ('{"messages": [{"role": "user", "content": "hi"}]}\n', ("--trace-speed", "2"),
         "has no timestamps to replay: drop --trace-speed"),
    ],
)  # fmt: skip
def test_a_bad_dataset_or_flag_exits_2_naming_the_cause_and_fix(
    tmp_path: Path, env: dict[str, str], content: str, extra: tuple[str, ...], said: str
) -> None:
    path = write(tmp_path / "data.jsonl", content)
    done = bench("http://127.0.0.1:9/v1", env, "--dataset", str(path), *extra)
    assert done.returncode == 2
    assert said in done.stderr
    alone = bench("http://127.0.0.1:9/v1", env, "--trace-speed", "2")
    assert alone.returncode == 2 and "add --dataset PATH" in alone.stderr
