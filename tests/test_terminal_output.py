"""Text from servers and from files never drives the terminal: model ids, provider names and
messages with ANSI/OSC escapes, C1 controls or bidi overrides reach stdout and stderr as
visible escapes (`\\x1b`), through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.support.cli_inprocess import run_cli
from tests.support.loopback import serving_in_thread
from workbench.core.foundation.terminal import escape_quoted, printable, printable_lines

WORKBENCH = [sys.executable, "-m", "workbench"]
TITLE = "m\x1b]0;pwned\x07"  # OSC: retitles the terminal
RED = "\x1b[31mred"  # CSI: recolours it
C1 = "c1\x9b2J"  # an 8-bit CSI: clears the screen on terminals that honour C1
BIDI = "gpt\u202e4-lfs"  # a right-to-left override: shows another id than it is
HOSTILE_IDS = [TITLE, RED, C1, BIDI]
FORBIDDEN = ["\x1b", "\x07", "\x9b", "\u202e"]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command in this process (a start cost ~0.3 s CPU): what it prints is the subject."""
    return run_cli(args, env)


def _assert_inert(text: str) -> None:
    for char in FORBIDDEN:
        assert char not in text, f"{char!r} reached the terminal"


@pytest.fixture
def hostile_server() -> Iterator[str]:
    """A server whose /v1/models lists ids with escapes, and whose answers quote them."""

    async def models(_request: web.Request) -> web.Response:
        data = [{"id": i, "object": "model"} for i in HOSTILE_IDS]
        return web.json_response({"object": "list", "data": data})

    async def chat(_request: web.Request) -> web.Response:
        message = f"model {RED} does not exist {TITLE}"
        return web.json_response({"error": {"message": message}}, status=404)

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    with serving_in_thread(app) as base_url:
        yield base_url


def test_printable_shows_every_control_as_an_escape() -> None:
    assert printable(TITLE) == "m\\x1b]0;pwned\\x07"
    assert printable(C1) == "c1\\x9b2J" and printable(BIDI) == "gpt\\u202e4-lfs"
    assert printable("a\tb\nc\x7f") == "a\\x09b\\x0ac\\x7f"
    assert printable("深度求索 DeepSeek-V3 ü") == "深度求索 DeepSeek-V3 ü"  # text stays text
    assert printable_lines("one\x1b[2J\ntwo") == "one\\x1b[2J\ntwo"
    document = json.dumps({"id": C1 + BIDI + "\x7f"}, ensure_ascii=False)
    escaped = escape_quoted(document)
    _assert_inert(escaped)
    assert json.loads(escaped) == json.loads(document)  # the same value, written safely


def test_models_prints_hostile_ids_inert(hostile_server, env) -> None:
    done = _run(["models", "--base-url", hostile_server], env)
    assert done.returncode == 0, done.stderr
    _assert_inert(done.stdout + done.stderr)
    assert "m\\x1b]0;pwned\\x07" in done.stdout and "gpt\\u202e4-lfs" in done.stdout
    assert f"{len(HOSTILE_IDS)} model(s)" in done.stdout


def test_doctor_prints_hostile_ids_and_messages_inert(hostile_server, env) -> None:
    human = _run(["doctor", "--base-url", hostile_server, "--model", "nope"], env)
    as_json = _run(["doctor", "--base-url", hostile_server, "--model", "nope", "--json"], env)
    for done in (human, as_json):
        assert "Traceback" not in done.stderr
        _assert_inert(done.stdout + done.stderr)
    assert "\\x1b" in human.stdout  # the ids it lists as close matches, visible
    checks = json.loads(as_json.stdout)  # still JSON: C1 and bidi as \\u escapes
    assert any(RED in c["evidence"] or TITLE in c["evidence"] for c in checks)


def test_providers_list_show_and_export_print_a_hand_edited_file_inert(tmp_path, env) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "providers.toml").write_text(
        '[providers."evil\\u001b]0;pwned\\u0007"]\n'
        'base_url = "https://evil.example/v1"\n'
        'models = ["\\u001b[31mred", "gpt\\u202e4-lfs", "c1\\u009b2J"]\n'
        'source = "\\u001b[2Jcleared"\n',
        encoding="utf-8",
    )
    name = "evil\x1b]0;pwned\x07"
    listed = _run(["providers", "list"], env)
    shown = _run(["providers", "show", name], env)
    exported = _run(["providers", "export"], env)
    for done in (listed, shown, exported):
        assert done.returncode == 0, done.stderr
        _assert_inert(done.stdout + done.stderr)
    assert "evil\\x1b]0;pwned\\x07" in listed.stdout and "\\x1b[31mred" in shown.stdout
    assert tomllib.loads(exported.stdout)["providers"][name]["source"] == "\x1b[2Jcleared"
    # the file we write is as inert as what we print
    added = _run(["providers", "add", "plain", "--base-url", "https://plain.example/v1"], env)
    assert added.returncode == 0, added.stderr
    _assert_inert((config / "providers.toml").read_text(encoding="utf-8"))


def test_import_prints_what_a_file_says_inert(tmp_path, env) -> None:
    config = tmp_path / "benchmark_config.json"
    config.write_text(
        json.dumps(
            {
                "base_url": "https://gw.example/v1",
                "api_key_env": "GW_KEY",
                "models": [{"id": RED}, {"id": BIDI}, {"id": C1}],
            }
        ),
        encoding="utf-8",
    )
    text = _run(["import", str(config), "--dry-run"], env)
    as_json = _run(["import", str(config), "--dry-run", "--json"], env)
    for done in (text, as_json):
        assert done.returncode == 0, done.stderr
        _assert_inert(done.stdout + done.stderr)
    assert "\\x1b[31mred" in text.stdout
    ids = [m["id"] for m in json.loads(as_json.stdout)["providers"][0]["models"]]
    assert ids == [RED, BIDI, C1]  # JSON readers still get the ids exactly


def test_bench_shows_hostile_ids_and_errors_as_escapes(
    hostile_server: str, env: dict[str, str], tmp_path: Path
) -> None:
    # each listed id is served (its chat answer is a 404 that quotes escapes): the per-request
    # error lines, the summary table and an unknown id's suggestions all stay inert
    models = [arg for model in (TITLE, RED) for arg in ("--model", model)]
    csv_path = str(tmp_path / "r.csv")
    run = _run(["bench", "--base-url", hostile_server, *models, "--csv", csv_path], env)
    assert run.returncode == 3, run.stderr
    assert "does not exist" in run.stderr and "m\\x1b]0;pwned\\x07" in run.stdout
    _assert_inert(run.stdout + run.stderr)
    unknown = _run(
        # a new CSV: an existing one is refused (issue 16, no silent overwrite)
        ["bench", "--base-url", hostile_server, "--model", "nope", "--csv", csv_path + "2"],
        env,
    )
    # an unlisted id is tried anyway (issue 13), with a warning that names the listed ids
    assert unknown.returncode == 3 and "'nope' is not on the list" in unknown.stderr
    _assert_inert(unknown.stdout + unknown.stderr)
