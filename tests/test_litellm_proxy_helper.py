"""scripts/litellm_proxy.py when LiteLLM is missing or does not come up: the error names the
cause, the fix and the log's tail, and no process is left behind. (The proxy that does come up
is tests/test_litellm_conformance.py.) A stand-in `bin/litellm` here is a real executable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.litellm_gateway import ROOT, proxy_module

proxy = proxy_module()


def _venv_with(tmp_path: Path, script: str) -> Path:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    exe = venv / "bin" / "litellm"
    exe.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    exe.chmod(0o755)
    return venv


def test_config_routes_each_alias_to_its_upstream_with_retries_off() -> None:
    config = proxy.make_config(
        "http://127.0.0.1:9/v1", "sk-master-123", {"gw": "up+no-usage"}, router_settings={"x": 1}
    )
    (entry,) = config["model_list"]
    assert entry["model_name"] == "gw"
    assert entry["litellm_params"]["model"] == "openai/up+no-usage"
    assert entry["litellm_params"]["api_base"] == "http://127.0.0.1:9/v1"
    assert config["general_settings"]["master_key"] == "sk-master-123"
    assert config["router_settings"] == {"num_retries": 0, "x": 1}


def test_missing_litellm_names_the_install_fix(tmp_path: Path) -> None:
    with pytest.raises(proxy.LiteLLMError) as caught:
        with proxy.running_litellm(tmp_path / "nothing", "http://127.0.0.1:9/v1"):
            pass
    assert "scripts/test.sh" in str(caught.value)
    assert "WORKBENCH_LITELLM_VENV" in str(caught.value)


def test_a_proxy_that_exits_at_start_shows_its_log_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _venv_with(tmp_path, 'echo "ValueError: bad model_list entry"; exit 3')
    monkeypatch.chdir(tmp_path)  # paths as typed by hand: relative to where one stands
    with pytest.raises(proxy.LiteLLMError) as caught:
        with proxy.running_litellm("venv", "http://127.0.0.1:9/v1", workdir="w"):
            pass
    assert "exited with code 3" in str(caught.value)
    assert "ValueError: bad model_list entry" in str(caught.value)


def test_a_proxy_that_never_answers_is_stopped_after_the_limit(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    venv = _venv_with(tmp_path, f'echo $$ > "{pid_file}"; echo starting; exec sleep 60')
    with pytest.raises(proxy.LiteLLMError) as caught:
        with proxy.running_litellm(
            venv, "http://127.0.0.1:9/v1", workdir=tmp_path / "w", ready_timeout_s=1.5
        ):
            pass
    assert "did not answer" in str(caught.value) and "starting" in str(caught.value)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone with its process group
    config = (tmp_path / "w" / "litellm_config.yaml").stat()
    assert config.st_mode & 0o077 == 0  # it holds the master key


def test_run_by_hand_without_litellm_exits_2_with_the_fix(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "litellm_proxy.py"), "--venv",
         str(tmp_path / "nothing"), "--upstream", "http://127.0.0.1:9/v1"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "no LiteLLM at" in done.stderr and "scripts/test.sh" in done.stderr
    assert "Traceback" not in done.stderr
