"""The provider protocol as a user configures it: providers.toml (round trip keeping the
user's comment, a bad value named with file, line and the allowed words), a saved anthropic
provider measured by `bench --provider` without any flag, `--protocol` refused when unknown,
and an old history's rows read as chat."""

from __future__ import annotations

import csv
import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from tests.loopback import ThreadedLoop
from tests.protocol_server import ANTHROPIC_MODELS, ProtocolServer
from workbench.cli import main
from workbench.core.access.providers import ModelEntry
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunStore
from workbench.core.protocols.registry import auth_for
from workbench.core.saved.provider_store import (
    ProviderConfigError,
    default_providers_path,
    load_providers,
    parse_providers_toml,
    save_providers,
)

KEY = "sk-ant-api03-config-test-not-real-0123"


def _write(text: str) -> Path:
    path = default_providers_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_protocol_round_trips_through_providers_toml_keeping_comments() -> None:
    path = _write(
        "[providers.claude-gw]\n"
        "# Claude Code's gateway: keep this note\n"
        'base_url = "https://gw.example/v1"\n'
        'protocol = "anthropic"  # as Claude Code speaks\n'
        'auth = "bearer"\n'
        "\n"
        "[providers.plain]\n"
        'base_url = "https://plain.example/v1"\n'
        'protocol = "chat"  # written by hand, the default\n'
    )
    loaded = {p.name: p for p in load_providers(path).providers}
    gw = loaded["claude-gw"]
    assert (gw.protocol, gw.auth, auth_for(gw.protocol, gw.auth)) == (
        "anthropic",
        "bearer",
        "bearer",
    )
    assert (
        loaded["plain"].protocol == "chat"
        and auth_for(loaded["plain"].protocol, loaded["plain"].auth) == "bearer"
    )
    changed = dataclasses.replace(gw, models=(ModelEntry("claude-sonnet-4-5"),))
    save_providers([changed, loaded["plain"]], path)
    text = path.read_text(encoding="utf-8")
    assert "# Claude Code's gateway: keep this note" in text
    assert 'protocol = "anthropic"  # as Claude Code speaks' in text
    assert 'protocol = "chat"  # written by hand, the default' in text
    again = {p.name: p for p in load_providers(path).providers}
    assert again["claude-gw"].protocol == "anthropic"
    assert [m.id for m in again["claude-gw"].models] == ["claude-sonnet-4-5"]
    # a new provider is written with its protocol, and without it when it is chat
    fresh = dataclasses.replace(gw, name="fresh", auth=None, protocol="responses")
    save_providers([*again.values(), fresh], path)
    reloaded = {p.name: p for p in load_providers(path).providers}
    assert reloaded["fresh"].protocol == "responses" and reloaded["fresh"].auth is None


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("protocol", "messages", "chat, responses, anthropic"),
        ("auth", "basic", "bearer, x-api-key"),
    ],
)
def test_an_unknown_protocol_or_auth_names_file_line_field_and_the_allowed_words(
    tmp_path: Path, field: str, value: str, allowed: str
) -> None:
    path = tmp_path / "providers.toml"
    text = f'[providers.gw]\nbase_url = "https://gw.example/v1"\n{field} = "{value}"\n'
    with pytest.raises(ProviderConfigError) as raised:
        parse_providers_toml(text, path)
    message = str(raised.value)
    assert str(path) in message and "line 3" in message
    assert f"field '{field}'" in message and f"'{value}'" in message and allowed in message
    assert (raised.value.line, raised.value.field) == (3, field)


def test_bench_on_a_saved_anthropic_provider_needs_no_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CFG_TEST_KEY", KEY)
    models = {"/v1/models": (200, "application/json", json.dumps(ANTHROPIC_MODELS))}
    out_csv = tmp_path / "run.csv"
    with ThreadedLoop() as background:
        srv = ProtocolServer({"/v1/messages": "anthropic_text.sse"}, models)
        background.run(srv.__aenter__())
        try:
            _write(
                f'[providers.gw]\nbase_url = "{srv.base_url}"\nprotocol = "anthropic"\n'
                'key = "${CFG_TEST_KEY}"\n'
            )
            code = main(["bench", "--provider", "gw", "--model", "claude-sonnet-4-5",
                         "--max-tokens", "16", "--csv", str(out_csv), "--no-store"])  # fmt: skip
        finally:
            background.run(srv.__aexit__())
    out = capsys.readouterr()
    assert code == 0, out.err
    with out_csv.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["protocol"] == "anthropic" and r["error_class"] == "" for r in rows)
    assert all(h.get("x-api-key") == KEY for h in srv.headers)
    assert KEY not in out.out + out.err


@pytest.mark.parametrize("command", ["bench", "models", "doctor"])
def test_an_unknown_protocol_flag_is_refused_with_the_choices(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--base-url", "http://127.0.0.1:9/v1", "--protocol", "messages"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--protocol" in err and "chat" in err and "anthropic" in err and "responses" in err


def test_protocol_help_gives_the_default_and_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    protocol = text[text.index("--protocol {chat,responses,anthropic}", 100) :][:600]
    assert "Default: the saved provider's protocol, else chat" in protocol
    assert "--protocol anthropic --model" in protocol


def test_rows_of_an_older_history_read_as_chat(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        store.record(RequestResult(model="m", run_id=run_id, request_id="old"))
    conn = sqlite3.connect(db)  # as schema 2 left it: no protocol column
    conn.execute("ALTER TABLE requests DROP COLUMN protocol")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    with RunStore(db) as store:
        (row,) = store.results(run_id)
        assert store.query("PRAGMA user_version")[0][0] == 3
    assert row.protocol == "chat"
