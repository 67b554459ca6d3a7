"""Saved providers: TOML round trip, broken files, no key text anywhere, URL normalisation, and
`workbench providers` / `bench --provider` / `models --provider` as a user runs them."""

from __future__ import annotations

import csv
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import replace

import pytest

from tests.support.cli_inprocess import run_cli
from tests.support.ports import refusing_port
from tests.support.serve_local import serve_local
from workbench.core.access.keys import set_session_key
from workbench.core.access.providers import KeyRef, ModelEntry, Provider, ProxyChoice, is_loopback
from workbench.core.foundation.results import Prices
from workbench.core.protocols.base_url import normalize_base_url
from workbench.core.saved.provider_store import (
    ProviderConfigError,
    default_providers_path,
    export_providers_toml,
    get_provider,
    last_good_path,
    load_providers,
    save_providers,
)

WORKBENCH = [sys.executable, "-m", "workbench"]
KEY = "sk-test-" + "pr0v" * 8


def _providers() -> list[Provider]:
    return [
        Provider(
            "deepseek",
            "https://api.deepseek.com/v1",
            KeyRef("env", "DEEPSEEK_API_KEY"),
            headers={"X-Title": "bench", "X-Api-Key": "${OTHER_KEY}"},
            first_token_timeout_s=120.0,
            stall_timeout_s=30.0,
            total_timeout_s=600.0,
            proxy=ProxyChoice("url", "http://proxy.corp:3128"),
            verify_tls=False,
            models=(
                ModelEntry(
                    "deepseek-chat",
                    "DeepSeek V3",
                    "MLA",
                    65536,
                    Prices(0.27, 1.1, 0.07),
                ),
                ModelEntry("deepseek-reasoner"),
            ),
            source="cc-switch.db",
        ),
        Provider("my laptop", "http://127.0.0.1:8000/v1", KeyRef("session")),
        Provider("vault", "https://gw.example/v1", KeyRef("keyring", "gw-account")),
        Provider("keyless", "http://localhost:9000/v1", proxy=ProxyChoice("none")),
    ]


# ---- the store ----


def test_default_path_follows_the_config_dir_override(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CONFIG_DIR", str(tmp_path / "cfg"))
    assert default_providers_path() == tmp_path / "cfg" / "providers.toml"


def test_round_trip_through_a_real_file(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    save_providers(_providers(), path)
    loaded = load_providers(path)
    assert loaded.warning is None and not loaded.from_backup
    assert loaded.providers == _providers()
    assert last_good_path(path).read_text() == path.read_text()
    # hand-editable: plain TOML that tomllib reads, one table per provider
    data = tomllib.loads(path.read_text())
    assert data["providers"]["deepseek"]["key"] == {"source": "env", "name": "DEEPSEEK_API_KEY"}
    assert data["providers"]["my laptop"]["key"] == {"source": "session"}
    assert get_provider("vault", path).key == KeyRef("keyring", "gw-account")


def test_hand_written_shorthands_load(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    path.write_text(
        """
[providers.tao]
base_url = "https://taotoken.net/api/v1/chat/completions/"
key = "${TAOTOKEN_API_KEY}"
proxy = "none"
models = ["deepseek-v3", "kimi-k2"]

[providers.seed]
base_url = "api.example.com/v1"
api_key_env = "SEED_KEY"
proxy = "http://127.0.0.1:3128"
""",
        encoding="utf-8",
    )
    loaded = load_providers(path)
    assert loaded.warning is None
    tao, seed = loaded.providers
    assert tao.base_url == "https://taotoken.net/api/v1"
    assert tao.key == KeyRef("env", "TAOTOKEN_API_KEY")
    assert tao.proxy == ProxyChoice("none")
    assert [m.id for m in tao.models] == ["deepseek-v3", "kimi-k2"]
    assert seed.base_url == "https://api.example.com/v1"
    assert seed.key == KeyRef("env", "SEED_KEY")
    assert seed.proxy == ProxyChoice("url", "http://127.0.0.1:3128")


def test_broken_toml_names_file_and_line_and_the_last_good_copy_loads(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    save_providers(_providers(), path)
    lines = path.read_text().splitlines()
    broken_line = next(i for i, line in enumerate(lines) if line.startswith("stall_timeout_s"))
    lines[broken_line] = "stall_timeout_s = = 30"  # a hand edit gone wrong
    path.write_text("\n".join(lines) + "\n")
    loaded = load_providers(path)
    assert loaded.from_backup
    assert loaded.providers == _providers()
    assert loaded.warning is not None
    assert str(path) in loaded.warning
    assert f"line {broken_line + 1}" in loaded.warning
    assert "last good copy" in loaded.warning
    # the broken file is left as it is (the user's edit), not overwritten by loading
    assert "= = 30" in path.read_text()


@pytest.mark.parametrize(
    ("snippet", "field", "problem"),
    [
        ('key = { source = "vault", name = "X" }', "key.source", "unknown key source 'vault'"),
        ('verify_tls = "no"', "verify_tls", "expected true or false"),
        ("stall_timeout_s = -1", "stall_timeout_s", "more than 0"),
        ("first_token_timeout_s = nan", "first_token_timeout_s", "more than 0"),
        ("total_timeout_s = inf", "total_timeout_s", "more than 0"),
        ('proxy = { mode = "socks" }', "proxy.mode", "unknown proxy mode"),
        ('base_ur = "https://typo/v1"', "base_ur", "did you mean 'base_url'"),
        ("models = [{ id = 'm', context_window = 'big' }]", "models[0].context_window", "tokens"),
        ('key = { source = "env", nme = "X" }', "key.nme", "did you mean 'name'"),
        ("headers = { X-Title = 1 }", "headers.X-Title", "expected text in quotes, got a whole"),
        ("models = [{ id = 'm', prices = { input = -1 } }]", "models[0].prices.input", ">= 0"),
        ("stall_timeout_s = true", "stall_timeout_s", "expected seconds (a number), got true"),
    ],
)
def test_invalid_fields_name_provider_field_and_line(tmp_path, snippet, field, problem) -> None:
    path = tmp_path / "providers.toml"
    save_providers(_providers()[:1], path)
    path.write_text(
        path.read_text() + f'\n[providers.broken]\nbase_url = "https://b.example/v1"\n{snippet}\n',
        encoding="utf-8",
    )
    loaded = load_providers(path)
    assert loaded.from_backup and [p.name for p in loaded.providers] == ["deepseek"]
    warning = loaded.warning or ""
    assert "provider 'broken'" in warning and f"field '{field}'" in warning and problem in warning
    assert str(path) in warning and "line " in warning


def test_bad_url_is_refused_with_the_provider_named(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    path.write_text('[providers.x]\nbase_url = "ftp://files"\n', encoding="utf-8")
    loaded = load_providers(path)
    assert loaded.providers == [] and not loaded.from_backup
    assert "provider 'x', field 'base_url'" in (loaded.warning or "")
    assert "no good copy" in (loaded.warning or "").lower()


def test_no_key_text_is_ever_written(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    set_session_key("my laptop", KEY)
    path = tmp_path / "providers.toml"
    save_providers(_providers(), path)
    exported = export_providers_toml(_providers())
    for text in (path.read_text(), last_good_path(path).read_text(), exported):
        assert KEY not in text
    assert 'source = "session"' in path.read_text()
    # a literal credential in a header or as the key is refused, and the refusal does not echo it
    leaky = Provider("leaky", "https://l/v1", headers={"Authorization": f"Bearer {KEY}"})
    with pytest.raises(ProviderConfigError) as err:
        save_providers([leaky], path)
    assert KEY not in str(err.value) and "headers.Authorization" in str(err.value)
    path.write_text(f'[providers.leaky]\nbase_url = "https://l/v1"\nkey = "{KEY}"\n')
    loaded = load_providers(path)
    assert KEY not in (loaded.warning or "") and "never stored" in (loaded.warning or "")


def test_export_is_a_loadable_provider_set(tmp_path) -> None:
    text = export_providers_toml(_providers())
    path = tmp_path / "exported.toml"
    path.write_text(text)
    assert load_providers(path).providers == _providers()


def test_unknown_provider_suggests_close_names(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    save_providers(_providers(), path)
    with pytest.raises(ProviderConfigError) as err:
        get_provider("deepsek", path)
    assert "deepseek" in str(err.value)


# ---- base URLs ----


@pytest.mark.parametrize(
    ("raw", "url", "note"),
    [
        ("https://api.x.com/v1/", "https://api.x.com/v1", "trailing slashes"),
        ("https://api.x.com/v1///", "https://api.x.com/v1", "trailing slashes"),
        ("https://api.x.com/v1/chat/completions", "https://api.x.com/v1", "/chat/completions"),
        ("https://api.x.com/v1/chat/completions/", "https://api.x.com/v1", "/chat/completions"),
        ("  https://api.x.com/v1  ", "https://api.x.com/v1", "spaces"),
        ('"https://api.x.com/v1"', "https://api.x.com/v1", "quotes"),
        ("api.x.com/v1", "https://api.x.com/v1", "https://"),
        ("localhost:8000/v1", "http://localhost:8000/v1", "http://"),
        ("127.0.0.1:8000/v1/models", "http://127.0.0.1:8000/v1", "/models"),
        ("https://api.x.com/v1?api_key=abc123456", "https://api.x.com/v1", "query string"),
        ("https://api.x.com/v1", "https://api.x.com/v1", None),
    ],
)
def test_normalize_base_url(raw: str, url: str, note: str | None) -> None:
    result = normalize_base_url(raw)
    assert result.url == url
    if note is None:
        assert result.notes == ()
    else:
        assert any(note in n for n in result.notes), result.notes


@pytest.mark.parametrize(
    "raw", ["", "   ", "ftp://x/v1", "not a url", "https://api.x .com/v1", "https://h:99999/v1"]
)
def test_normalize_base_url_refuses_with_a_fix(raw: str) -> None:
    with pytest.raises(ValueError, match=r"https://host"):
        normalize_base_url(raw)


def test_a_key_pasted_into_a_url_is_not_echoed() -> None:
    with pytest.raises(ValueError) as err:
        normalize_base_url(f"{KEY} https://x")
    assert KEY not in str(err.value)


def test_is_loopback() -> None:
    assert is_loopback("http://127.0.0.1:8000/v1") and is_loopback("http://localhost/v1")
    assert is_loopback("http://[::1]:8000/v1")
    assert not is_loopback("https://api.deepseek.com/v1")


# ---- the CLI, as a user runs it ----


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command in this process (a start cost ~0.3 s CPU): what it writes is the subject."""
    return run_cli(args, env)


@pytest.fixture
def keyed_server(env: dict[str, str]) -> Iterator[str]:
    flags = ("--time-scale", "0.01", "--api-key-env", "LOCAL_KEY")
    with serve_local(*flags, env={**env, "LOCAL_KEY": KEY}) as server:
        yield server.base_url


def test_providers_add_list_show_export_remove(tmp_path, env) -> None:
    added = _run(
        ["providers", "add", "gw", "--base-url", " gw.example.com/v1/chat/completions/ ",
         "--api-key-env", "${GW_KEY}", "--model", "deepseek-chat", "--insecure"],
        env,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "https://gw.example.com/v1" in added.stdout and "/chat/completions" in added.stdout
    saved = tmp_path / "config" / "providers.toml"
    assert tomllib.loads(saved.read_text())["providers"]["gw"]["key"] == {
        "source": "env",
        "name": "GW_KEY",
    }
    listed = _run(["providers", "list"], env)
    assert listed.returncode == 0
    assert "gw" in listed.stdout and "$GW_KEY" in listed.stdout and "deepseek-chat" in listed.stdout
    assert "WARNING" in listed.stdout and "TLS" in listed.stdout
    shown = _run(["providers", "show", "gw"], env)
    assert "TLS verify:    OFF" in shown.stdout
    out = tmp_path / "export.toml"
    exported = _run(["providers", "export", str(out)], env)
    assert exported.returncode == 0 and "gw" in tomllib.loads(out.read_text())["providers"]
    pasted = _run(["providers", "add", "bad", "--base-url", "https://b/v1",
                   "--api-key-env", KEY], env)  # fmt: skip
    assert pasted.returncode == 2 and KEY not in pasted.stdout + pasted.stderr
    assert "NAME of an environment variable" in pasted.stderr
    removed = _run(["providers", "remove", "gw"], env)
    assert removed.returncode == 0
    assert "gw" not in tomllib.loads(saved.read_text())["providers"]
    assert _run(["providers", "show", "gw"], env).returncode == 2


def test_bench_and_models_with_a_saved_provider_and_env_key(tmp_path, env, keyed_server) -> None:
    save_providers(
        [
            Provider(
                "lab",
                keyed_server + "/chat/completions",  # a pasted endpoint URL: normalised on load
                KeyRef("env", "LAB_KEY"),
                headers={"X-Title": "attention-workbench-test"},
                first_token_timeout_s=45.0,
                models=(ModelEntry("sim-70b-gqa", attention="GQA-override", context_window=4096),),
            )
        ],
        tmp_path / "config" / "providers.toml",
    )
    out = tmp_path / "lab.csv"
    args = ["bench", "--provider", "lab", "--model", "sim-70b-gqa", "--model", "sim-70b-mla",
            "--prompt-tokens", "1K", "--max-tokens", "8", "--csv", str(out)]  # fmt: skip
    missing = _run(args, env)
    assert missing.returncode == 2
    assert "LAB_KEY" in missing.stderr and "export" in missing.stderr
    assert "Traceback" not in missing.stderr
    with refusing_port() as nowhere:
        keyed_env = {**env, "LAB_KEY": KEY, "HTTP_PROXY": f"http://127.0.0.1:{nowhere}"}
        proc = _run(args, keyed_env)  # a global proxy pointing nowhere must not matter for loopback
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["provider"] for r in rows} == {"lab"}
    attention = {r["model"]: r["attention"] for r in rows}
    assert attention == {"sim-70b-gqa": "GQA-override", "sim-70b-mla": "MLA"}
    models = _run(["models", "--provider", "lab"], keyed_env)
    assert models.returncode == 0, models.stderr
    assert "sim-70b-gqa" in models.stdout and "GQA-override" in models.stdout
    both = _run(["bench", "--provider", "lab", "--base-url", keyed_server, "--model", "m"], env)
    assert both.returncode == 2 and "not allowed with" in both.stderr
    for text in (proc.stdout, proc.stderr, models.stdout, missing.stderr, out.read_text()):
        assert KEY not in text
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    for path in (tmp_path / "config").rglob("*"):
        assert KEY not in path.read_text(), path


HAND_WRITTEN = """\
# My providers: keep this line (top of the file)

[providers.mine]  # my gateway, the header's comment
base_url = "https://mine.example/v1"  # after a value
# inside the table: ask Bob before changing the gateway
key = "${MINE_KEY}"
stall_timeout_s = 45  # seconds, as I typed it
"""
USER_COMMENTS = [
    "# My providers: keep this line (top of the file)",
    "# my gateway, the header's comment",
    "# after a value",
    "# inside the table: ask Bob before changing the gateway",
    "# seconds, as I typed it",
]


def test_user_comments_and_layout_survive_providers_add(tmp_path, env) -> None:
    saved = tmp_path / "config" / "providers.toml"
    saved.parent.mkdir(mode=0o700)
    saved.write_text(HAND_WRITTEN, encoding="utf-8")
    added = _run(["providers", "add", "gw", "--base-url", "https://gw.example/v1",
                  "--api-key-env", "GW_KEY"], env)  # fmt: skip
    assert added.returncode == 0, added.stderr
    text = saved.read_text(encoding="utf-8")
    assert text.startswith(HAND_WRITTEN)  # the user's provider is untouched, shorthand and all
    assert all(comment in text for comment in USER_COMMENTS)
    assert (saved.stat().st_mode & 0o777) == 0o600
    loaded = load_providers(saved)
    assert loaded.warning is None and loaded.names() == ["mine", "gw"]
    assert loaded.get("gw") == Provider("gw", "https://gw.example/v1", KeyRef("env", "GW_KEY"))
    assert last_good_path(saved).read_text(encoding="utf-8") == text


def test_an_edit_replaces_only_the_changed_value(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    mine = load_providers(path).get("mine")
    assert mine is not None
    save_providers([replace(mine, first_token_timeout_s=77.0, key=KeyRef("env", "OTHER"))], path)
    text = path.read_text(encoding="utf-8")
    assert all(comment in text for comment in USER_COMMENTS)
    assert "${MINE_KEY}" not in text and "stall_timeout_s = 45  #" in text
    assert load_providers(path).providers == [
        replace(mine, first_token_timeout_s=77.0, key=KeyRef("env", "OTHER"))
    ]


def test_a_bad_nested_value_names_its_line_field_cause_and_fix(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    path.write_text(
        '[providers.gw]\nbase_url = "https://gw.example/v1"\n\n[providers.gw.proxy]\n'
        'mode = "url"\nurl = 3128\n',
        encoding="utf-8",
    )
    warning = load_providers(path).warning or ""
    assert f"{path}: line 6: provider 'gw', field 'proxy.url'" in warning
    assert "expected a proxy URL like http://proxy:3128 in quotes, got a whole number" in warning


def test_a_file_of_comments_alone_keeps_them_and_a_url_password_is_dropped(tmp_path) -> None:
    path = tmp_path / "providers.toml"
    path.write_text("# my notes about gateways\n", encoding="utf-8")
    added = Provider("b", "https://b.example/v1", KeyRef("env", "B"))
    save_providers([added], path)
    assert path.read_text(encoding="utf-8").startswith("# my notes about gateways\n")
    path.write_text(
        '[providers.a]  # mine\nbase_url = "https://u:pw@a.example/v1"  # the gateway\n',
        encoding="utf-8",
    )
    save_providers([*load_providers(path).providers, added], path)
    text = path.read_text(encoding="utf-8")
    assert "pw@" not in text and '"https://a.example/v1"  # the gateway' in text
    assert "# mine" in text and load_providers(path).names() == ["a", "b"]
    path.write_text('providers = { a = { base_url = "https://a.example/v1" } }\n')
    save_providers([*load_providers(path).providers, added], path)  # one line: written afresh
    assert load_providers(path).names() == ["a", "b"]
