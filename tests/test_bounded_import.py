"""`workbench import-results` on hostile files: each is a clear error (exit 2) at once, within a
1 GiB address space and a time limit, never a hang, a MemoryError or a traceback.

Every case runs the real command in a subprocess, with RLIMIT_AS set before it starts: a reader
that trusted st_size read /dev/zero until memory ran out, a FIFO blocked forever, a YAML alias
bomb grew past 4 GB, and deep nesting or 1e308 gave tracebacks.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workbench.core.system.bounded_read import AliasRefused, TooDeep, _yaml_load_pure, yaml_load

FIXTURES = Path(__file__).resolve().parent / "data" / "results"
ADDRESS_SPACE = 1 << 30  # 1 GiB: Python and the app need about a third of it
DEEP = 200_000


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _import(tmp_path: Path, *paths: Path, seconds: float = 60) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "workbench", "import-results", *map(str, paths)],
        capture_output=True, text=True, timeout=seconds, check=False, env=env, cwd=tmp_path,
        preexec_fn=_limited,
    )  # fmt: skip


def _refused(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr, proc.stderr[-2000:]
    for word in words:
        assert word in proc.stderr, proc.stderr[-2000:]


def _vllm(**changes: object) -> dict:
    doc = json.loads((FIXTURES / "vllm_save_detailed.json").read_text())
    doc.update(changes)
    return doc


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_link_to_an_endless_device_is_refused_at_once(tmp_path, device) -> None:
    link = tmp_path / "z.json"
    link.symlink_to(device)
    _refused(_import(tmp_path, link, seconds=30), "character device", "pass the result file")


def test_a_fifo_is_refused_without_blocking(tmp_path) -> None:
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)  # nobody writes: opening it for reading the usual way waits forever
    _refused(_import(tmp_path, fifo, seconds=30), "FIFO", str(fifo))


def test_bytes_are_counted_not_taken_from_st_size() -> None:
    from workbench.core.system.bounded_read import TooLarge, read_bounded

    status = Path("/proc/self/status")  # a regular file whose st_size is 0
    if not status.exists():
        pytest.skip("no /proc here")
    assert status.stat().st_size == 0
    assert b"Name:" in read_bounded(status, 1 << 20)
    with pytest.raises(TooLarge, match="more than 100 bytes"):
        read_bounded(status, 100)


@pytest.mark.parametrize("shape", ["json", "jsonl", "yaml"])
def test_nesting_200k_deep_is_a_clear_error(tmp_path, shape) -> None:
    deep = "[" * DEEP + "]" * DEEP
    text = {
        "json": '{"ttfts": ' + deep + "}",
        "jsonl": '{"metadata": {}}\n{"metadata": ' + deep + "}\n",
        "yaml": "benchmarks: " + deep + "\n",
    }[shape]
    path = tmp_path / f"deep.{shape}"
    path.write_text(text)
    _refused(_import(tmp_path, path), "nested deeper than any result file")


def test_a_yaml_alias_bomb_is_refused(tmp_path) -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    doc = {k: v for k, v in _vllm().items() if not isinstance(v, list)}
    lines += [f"{key}: {json.dumps(value)}" for key, value in doc.items() if key != "label"]
    lines.append("label: *a9")  # 9**10 strings: gigabytes once copied into the run config
    path = tmp_path / "vllm.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size < 4000
    _refused(_import(tmp_path, path), "YAML alias", "write the value out in full")


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # an alias: refused on its line
        "x: " + "[" * 64 + "]" * 64,  # 65 nodes deep: refused
        "x: " + "[" * 63 + "1" + "]" * 63,  # a scalar at 65: refused
        "x: " + "[" * 62 + "1" + "]" * 62,  # 64 deep: read
        "[" * DEEP + "]" * DEEP,
        "model: m\nttfts: [0.1, 0.2]\nnested: {a: [1, {b: c}]}\n",
        "a: [1, 2",  # not YAML: PyYAML's own error
    ],
)
def test_libyaml_and_the_pure_python_yaml_reader_agree(text: str) -> None:
    """yaml_load takes libyaml's loader when PyYAML has it (6x faster), else the pure-Python
    one: both refuse the same documents, for the same reason, and read the rest alike."""
    assert getattr(yaml, "CSafeLoader", None) is not None  # the test group's PyYAML has it

    def outcome(read) -> tuple[str, object]:
        try:
            return "read", read(text)
        except (AliasRefused, TooDeep, yaml.YAMLError) as error:
            return type(error).__name__, None

    assert outcome(yaml_load) == outcome(_yaml_load_pure)


def test_a_ttft_of_1e308_names_the_field(tmp_path) -> None:
    doc = _vllm()
    doc["ttfts"][0] = 1e308
    path = tmp_path / "vllm.json"
    path.write_text(json.dumps(doc))
    _refused(_import(tmp_path, path), "field 'ttfts[0]'", "out of range")


def test_run_settings_from_the_file_are_bounded(tmp_path) -> None:
    nested: object = "x"
    for _ in range(40):
        nested = [nested]
    for name, label in (("long", "x" * 200_000), ("nested", nested)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(_vllm(label=label)))
        _refused(_import(tmp_path, path), "settings.label", "no run setting or name is that large")
    long_model = tmp_path / "model.json"
    long_model.write_text(json.dumps(_vllm(model_id="m" * 100_000)))
    _refused(_import(tmp_path, long_model), "model is longer than 4,096 characters")
    small = tmp_path / "small.json"
    small.write_text(json.dumps(_vllm(label="a normal label")))
    proc = _import(tmp_path, small)
    assert proc.returncode == 0, proc.stderr
