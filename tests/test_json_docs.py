"""Every `--json` document validates against the JSON Schema docs/json.md gives for it.

The schemas are read from the page itself (a `<!-- schema: NAME -->` line before each fenced
block), so the page is the one home of the documents' shapes: output that drifts from it, or a
schema edited into a shape the commands do not print, fails here.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.cli_inprocess import run_cli
from tests.support.delay_gateway import delay_gateway
from tests.support.loopback import ThreadedLoop, serving_in_thread
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "json.md"
DATA = Path(__file__).parent / "data"
SCHEMA_BLOCK = re.compile(r"<!-- schema: (\w+) -->\n```json\n(.*?)\n```", re.S)
MODEL = "sim-70b-gqa"


def _schemas() -> dict[str, dict[str, Any]]:
    found = {name: json.loads(body) for name, body in SCHEMA_BLOCK.findall(PAGE.read_text("utf-8"))}
    for schema in found.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    return found


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("json-docs")
    return {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(home / "data"),
        "WORKBENCH_CONFIG_DIR": str(home / "config"),
        "MY_KEY": "sk-json-docs-secret",
    }


def _json(env: dict[str, str], *argv: str, ok: tuple[int, ...] = (0,)) -> Any:
    proc = run_cli(argv, env)  # in this process: a start cost ~0.3 s CPU, the command far less
    assert proc.returncode in ok, proc.stderr
    assert "sk-json-docs-secret" not in proc.stdout
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def local_url() -> Iterator[str]:
    """The built-in provider on a loop of its own thread, for the commands run as subprocesses."""
    with ThreadedLoop() as background:
        server = LocalServer(settings=SimSettings(time_scale=0.02))
        background.run(server.start())
        try:
            yield server.base_url
        finally:
            background.run(server.stop())


def test_the_page_gives_a_schema_for_each_command_it_lists() -> None:
    assert sorted(_schemas()) == sorted(
        [
            "run",
            "route_compare",
            "history_list",
            "history_show",
            "models",
            "providers_list",
            "doctor",
            "import",
            "import_results",
        ]
    )


def test_each_command_prints_the_document_the_page_describes(
    env: dict[str, str], local_url: str, tmp_path: Path
) -> None:
    schemas = _schemas()
    bench = ["bench", "--base-url", local_url, "--model", MODEL, "--prompt-tokens", "1K"]
    bench += ["--max-tokens", "8", "--json", "-q", "--output", str(tmp_path / "run")]
    run = _json(env, *bench)
    documents = {
        "run": run,
        "history_list": _json(env, "history", "list", "--json"),
        "history_show": _json(env, "history", "show", run["run_id"], "--json"),
        "models": _json(env, "models", "--base-url", local_url, "--json"),
        "doctor": _json(env, "doctor", "--base-url", local_url, "--model", MODEL, "--json"),
        "import": _json(
            env, "import", str(DATA / "configs" / "benchmark_config.json"), "--dry-run", "--json"
        ),
        "import_results": _json(
            env, "import-results", str(DATA / "results" / "vllm_save_result.json"), "--json"
        ),
    }
    add = ["providers", "add", "gw", "--base-url", local_url, "--api-key-env", "MY_KEY"]
    assert run_cli([*add, "--model", MODEL], env).returncode == 0
    documents["providers_list"] = _json(env, "providers", "list", "--json")
    assert json.loads((tmp_path / "run" / "run.json").read_text("utf-8")) == run
    for name, document in documents.items():
        jsonschema.validate(document, schemas[name])
    assert documents["providers_list"]["providers"][0]["key"] == "environment variable $MY_KEY"


def test_a_route_comparison_prints_the_document_the_page_describes(
    env: dict[str, str], local_url: str, tmp_path: Path
) -> None:
    with serving_in_thread(delay_gateway(local_url, 0.0)) as gateway:
        argv = ["bench", "--compare-route", local_url, gateway, "--model", MODEL, "--json"]
        argv += ["--csv", str(tmp_path / "route.csv")]
        document = _json(env, *argv, "--prompt-tokens", "1K", "--max-tokens", "8", "-q")
    jsonschema.validate(document, _schemas()["route_compare"])
    assert [level["concurrency"] for level in document["levels"]] == [1]


def test_a_document_off_the_page_is_refused() -> None:
    """The validation has teeth: a run document missing its row counts does not pass."""
    schemas = _schemas()
    with pytest.raises(jsonschema.ValidationError, match="'rows' is a required property"):
        jsonschema.validate(
            {"schema": "workbench.run/1", "run_id": "r", "config": {}, "aggregates": {}},
            schemas["run"],
        )
