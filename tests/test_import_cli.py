"""`workbench import` as a user runs it: a subprocess, the testdata in place, a temp config dir."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli_inprocess import run_cli

CONFIGS = Path(__file__).parent / "data" / "configs"  # described in data/README.md
LITERAL_KEYS = ("sk-placeholder-not-a-real-key",)
ENTRIES = sorted(p.name for p in CONFIGS.iterdir())


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        # never touch the developer's real keyring: the headless case, deterministically
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "TAOTOKEN_API_KEY": "",
    }


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`workbench import ARGS` in this process (a start cost ~0.3 s CPU)."""
    return run_cli(["import", *args], env)


def _no_keys(*texts: str) -> None:
    for text in texts:
        for key in LITERAL_KEYS:
            assert key not in text


@pytest.mark.parametrize("entry", ENTRIES)
def test_dry_run_shows_what_it_found_and_writes_nothing(
    entry: str, env: dict[str, str], tmp_path: Path
) -> None:
    proc = _run([str(CONFIGS / entry), "--dry-run"], env)
    assert proc.returncode == 0, proc.stderr
    assert "https://taotoken.net/api" in proc.stdout
    assert "Dry run: nothing saved" in proc.stdout
    assert "→" in proc.stdout  # where each key goes
    _no_keys(proc.stdout, proc.stderr)
    assert not (tmp_path / "config").exists() or not any((tmp_path / "config").iterdir())


def test_dry_run_text_details(env: dict[str, str]) -> None:
    proc = _run([str(CONFIGS / "cline_home"), "--dry-run"], env)
    out = proc.stdout
    assert "Provider taotoken  [new]" in out
    assert "deepseek-v3" in out and "MLA" in out and "64K ctx" in out  # attention from catalog
    assert "sk-***" in out  # the key, redacted: first 3 characters
    assert "cannot be saved: no OS keyring here" in out
    proc = _run([str(CONFIGS / "taotoken_config.toml"), "--dry-run"], env)
    assert "llama-3-70b" in proc.stdout and "GQA" in proc.stdout
    assert "stays env reference $TAOTOKEN_API_KEY" in proc.stdout


def test_json_output(env: dict[str, str]) -> None:
    proc = _run([str(CONFIGS / "ccswitch_home"), "--dry-run", "--json"], env)
    assert proc.returncode == 0, proc.stderr
    _no_keys(proc.stdout)
    doc = json.loads(proc.stdout)
    assert doc["kind"] == "home" and doc["dry_run"] is True and doc["saved_to"] is None
    by_name = {p["name"]: p for p in doc["providers"]}
    assert by_name["taotoken-codex"]["base_url"] == "https://taotoken.net/api/v1"
    assert by_name["taotoken-codex"]["models"][0] == {
        "id": "kimi-k2",
        "attention": "MLA",
        "context_window": 131072,
        "prices": {"input": 0.6, "output": 2.5},
        "in_catalog": True,
    }
    key = by_name["taotoken-claude"]["key"]
    assert key["kind"] == "literal" and key["shown"] == "sk-***"
    assert key["saved_as"] == "unsaved"


def test_save_writes_references_only_and_merges(env: dict[str, str], tmp_path: Path) -> None:
    providers = tmp_path / "config" / "providers.toml"
    proc = _run([str(CONFIGS / "taotoken_config.toml")], env)
    assert proc.returncode == 0, proc.stderr
    assert "Saved 1 provider(s)" in proc.stdout
    text = providers.read_text(encoding="utf-8")
    assert 'name = "TAOTOKEN_API_KEY"' in text and "https://taotoken.net/api" in text
    # a literal key with no keyring here: the provider is saved, the key is not
    proc = _run([str(CONFIGS / "cline_home")], env)
    assert proc.returncode == 0, proc.stderr
    assert "cannot be saved: no OS keyring here" in proc.stdout
    text = providers.read_text(encoding="utf-8")
    _no_keys(proc.stdout, proc.stderr, text)
    for f in (tmp_path / "config").iterdir():
        _no_keys(f.read_text(encoding="utf-8"))
    # same name and base URL: the saved provider is updated (models merged), not duplicated
    assert text.count("[providers.taotoken]") == 1
    assert "kimi-k2" in text and "llama-3-70b" in text
    # importing the same file again changes nothing
    proc = _run([str(CONFIGS / "taotoken_config.toml")], env)
    assert proc.returncode == 0


def test_broken_input_exits_2_with_file_and_line(env: dict[str, str], tmp_path: Path) -> None:
    bad = tmp_path / "cline_settings.json"
    bad.write_text(
        '{\n  "cline.openAiApiKey": "sk-placeholder-not-a-real-key",\n'
        '  "cline.openAiBaseUrl": "https://x",\n  "oops" 1\n}\n',
        encoding="utf-8",
    )
    proc = _run([str(bad), "--dry-run"], env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: cline_settings.json, line 4: not valid JSON")
    assert "Traceback" not in proc.stderr
    _no_keys(proc.stdout, proc.stderr)
    missing = tmp_path / "providers.json"
    missing.write_text('{"providers": {"openai-compatible": {"settings": {}}}}')
    proc = _run([str(missing)], env)
    assert proc.returncode == 2
    assert "providers.json: providers.openai-compatible.settings.baseUrl is missing" in (
        proc.stderr
    )
    assert not (tmp_path / "config" / "providers.toml").exists()


def test_unknown_path_exits_2(env: dict[str, str], tmp_path: Path) -> None:
    proc = _run([str(tmp_path / "nope")], env)
    assert proc.returncode == 2 and "no such file or folder" in proc.stderr
    proc = _run([str(CONFIGS.parent / "README.md")], env)  # a file, but no config
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
