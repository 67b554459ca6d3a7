"""Importers: every testdata config imports to the providers, models and key references it
holds; keys never leave the process; broken input fails with our error, naming file and field;
another tool's store is never written."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.memory_keyring import MemoryKeyring
from workbench.core.access.keys import KEYRING_SERVICE
from workbench.core.access.providers import KeyRef, ModelEntry, Provider
from workbench.core.foundation.results import Prices
from workbench.core.importers import (
    READERS,
    ConfigImportError,
    FoundKey,
    ImportResult,
    apply_save,
    detect,
    import_path,
    is_placeholder,
    plan_save,
    read_ccswitch_db,
    read_cline_providers,
    read_vscode_settings,
    strip_jsonc,
)
from workbench.core.protocols.registry import auth_for
from workbench.core.saved.provider_store import load_providers

DATA = Path(__file__).parent / "data"
CONFIGS = DATA / "configs"  # what each file is and where it comes from: data/README.md

# The literal key text written in the testdata files (they hold no real keys).
LITERAL_KEYS = ("sk-placeholder-not-a-real-key",)
TAOTOKEN = "https://taotoken.net/api"


def _ids(provider: Provider) -> list[str]:
    return [m.id for m in provider.models]


def _only(result: ImportResult) -> Provider:
    assert len(result.providers) == 1, result.providers
    return result.providers[0]


# ---- each testdata file and folder ----------------------------------------------------------


def test_benchmark_config_json() -> None:
    path = CONFIGS / "benchmark_config.json"
    assert detect(path) == "benchmark_json"
    result = import_path(path)
    p = _only(result)
    assert (p.name, p.base_url) == ("taotoken", TAOTOKEN)
    assert p.key == KeyRef("env", "TAOTOKEN_API_KEY")
    assert result.keys["taotoken"].kind == "env"
    assert result.keys["taotoken"].env_var == "TAOTOKEN_API_KEY"
    assert p.models == (
        ModelEntry("llama-3-70b", attention="GQA", context_window=8192),
        ModelEntry("deepseek-chat", attention="MLA", context_window=65536),
    )


def test_taotoken_toml_client_config_with_timeout() -> None:
    path = CONFIGS / "taotoken_config.toml"
    assert detect(path) == "toml_client"
    result = import_path(path)
    p = _only(result)
    assert (p.name, p.base_url, p.key) == ("taotoken", TAOTOKEN, KeyRef("env", "TAOTOKEN_API_KEY"))
    assert _ids(p) == ["llama-3-70b", "deepseek-chat"]
    assert [m.attention for m in p.models] == ["GQA", "MLA"]
    assert [m.context_window for m in p.models] == [8192, 65536]
    # [request] timeout = 120 bounds the whole request and so the wait for the first token
    assert p.total_timeout_s == 120.0
    assert p.first_token_timeout_s == 120.0
    assert p.stall_timeout_s == 60.0


def test_vscode_cline_settings_jsonc() -> None:
    path = CONFIGS / "cline_settings.json"
    assert detect(path) == "vscode_cline_settings"
    result = import_path(path)
    p = _only(result)
    assert (p.name, p.base_url) == ("taotoken", TAOTOKEN)
    assert p.models == (ModelEntry("deepseek-v3", context_window=65536),)
    key = result.keys["taotoken"]
    assert key.kind == "literal" and key.secret() == LITERAL_KEYS[0]
    assert key.where == "cline_settings.json: cline.openAiApiKey"
    assert p.key == KeyRef("session", "")  # in memory until it is saved


def test_ccswitch_style_toml_with_env_reference_merges_same_gateway() -> None:
    path = CONFIGS / "ccswitch_config.toml"
    assert detect(path) == "ccswitch_toml"
    result = import_path(path)
    # [provider.taotoken] and [provider.taotoken-long] share base URL and key: one provider
    p = _only(result)
    assert (p.name, p.base_url, p.key) == ("taotoken", TAOTOKEN, KeyRef("env", "TAOTOKEN_API_KEY"))
    assert _ids(p) == ["deepseek-v3", "kimi-k2"]
    assert any("taotoken-long" in w and "merged" in w for w in result.warnings)


@pytest.mark.parametrize("name", ["claude_settings.json", "claude_settings_flat.json"])
def test_claude_settings_both_shapes(name: str) -> None:
    path = CONFIGS / name
    assert detect(path) == "claude_settings"
    result = import_path(path)
    p = _only(result)
    # Claude Code posts to ANTHROPIC_BASE_URL/v1/messages: an anthropic provider at .../v1
    assert (p.name, p.base_url, p.protocol) == ("taotoken", TAOTOKEN + "/v1", "anthropic")
    assert _ids(p) == ["claude-3-5-sonnet"]
    assert result.keys["taotoken"].kind == "literal"
    assert result.keys["taotoken"].secret() == LITERAL_KEYS[0]
    # ANTHROPIC_AUTH_TOKEN is a bearer token; the flat shape's api_key goes as x-api-key
    assert auth_for(p.protocol, p.auth) == (
        "bearer" if name == "claude_settings.json" else "x-api-key"
    )
    assert any("/v1" in str(note) for note in result.url_notes["taotoken"])
    assert not any("OpenAI" in w or "Anthropic-only" in w for w in result.warnings)


def test_claude_settings_field_names_per_shape() -> None:
    real = import_path(CONFIGS / "claude_settings.json")
    flat = import_path(CONFIGS / "claude_settings_flat.json")
    assert real.keys["taotoken"].where.endswith("env.ANTHROPIC_AUTH_TOKEN")
    assert flat.keys["taotoken"].where.endswith(": api_key")
    assert any("flat api_base/api_key shape" in w for w in flat.warnings)


def test_cline_home_providers_and_models_json() -> None:
    home = CONFIGS / "cline_home"
    assert detect(home) == "home"
    result = import_path(home)
    p = _only(result)
    assert (p.name, p.base_url) == ("taotoken", TAOTOKEN)  # name from models.json's provider
    assert p.headers == {"X-Team": "inference"}
    assert p.total_timeout_s == 120.0  # timeout: 120000 ms
    assert p.models == (
        ModelEntry("deepseek-v3", context_window=65536, prices=Prices(0.27, 1.1)),
        ModelEntry("kimi-k2", context_window=131072, prices=Prices(0.6, 2.5)),
    )
    key = result.keys["taotoken"]
    assert key.kind == "literal" and key.secret() == LITERAL_KEYS[0]
    assert key.where == "providers.json: providers.openai-compatible.settings.apiKey"
    # the same result from the file itself, and from models.json
    settings_dir = home / ".cline" / "data" / "settings"
    assert detect(settings_dir / "providers.json") == "cline_providers"
    assert import_path(settings_dir / "providers.json").providers == result.providers
    assert import_path(settings_dir / "models.json").providers == result.providers
    assert import_path(home / ".cline").providers == result.providers


def test_cline_legacy_global_state_and_secrets() -> None:
    home = CONFIGS / "cline_legacy"
    result = import_path(home)
    p = _only(result)
    assert (p.name, p.base_url) == ("taotoken", TAOTOKEN)
    assert p.models == (
        ModelEntry("deepseek-v3", context_window=65536, prices=Prices(0.27, 1.1)),
        ModelEntry("kimi-k2"),
    )
    key = result.keys["taotoken"]
    assert key.kind == "literal" and key.where == "secrets.json: openAiApiKey"
    data = home / ".cline" / "data"
    assert detect(data / "globalState.json") == "cline_legacy"
    assert import_path(data / "secrets.json").providers == result.providers


def _tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(folder.rglob("*"))
        if f.is_file()
    }


def test_ccswitch_db_imports_rows_and_universal_providers_read_only(tmp_path: Path) -> None:
    home = CONFIGS / "ccswitch_home"
    before = _tree_digest(home)
    result = import_path(home)
    assert _tree_digest(home) == before  # byte-identical, and no -journal/-wal files appear
    assert result.kind == "home"
    by_name = {p.name: p for p in result.providers}
    # the universal provider (chat) no longer merges into the Claude row (anthropic)
    assert set(by_name) == {"taotoken-codex", "taotoken-claude", "tt-universal"}
    codex, claude = by_name["taotoken-codex"], by_name["taotoken-claude"]
    assert (codex.protocol, claude.protocol) == ("chat", "anthropic")
    # the Codex row embeds a TOML string with [model_providers.custom] base_url
    assert codex.base_url == "https://taotoken.net/api/v1"
    assert _ids(codex) == ["kimi-k2"]
    assert result.keys["taotoken-codex"].where.endswith("settings_config.auth.OPENAI_API_KEY")
    assert claude.base_url == TAOTOKEN + "/v1"
    # the universal provider's models stay its own (the row itself names none)
    assert _ids(by_name["tt-universal"]) == ["claude-3-5-sonnet", "deepseek-v3"]
    assert by_name["tt-universal"].base_url == TAOTOKEN
    assert all(k.kind == "literal" for k in result.keys.values())
    # a writable copy stays byte-identical too (the directory would allow a journal)
    copy = tmp_path / "cc-switch.db"
    shutil.copyfile(home / ".cc-switch" / "cc-switch.db", copy)
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    assert [p.name for p in read_ccswitch_db(copy).providers] == [
        "taotoken-codex",
        "taotoken-claude",
        "tt-universal",
    ]
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == digest
    assert sorted(f.name for f in tmp_path.iterdir()) == ["cc-switch.db"]


def test_ccswitch_legacy_config_json() -> None:
    home = CONFIGS / "ccswitch_legacy"
    result = import_path(home)
    by_name = {p.name: p for p in result.providers}
    assert set(by_name) == {"taotoken-claude", "taotoken-codex"}
    assert by_name["taotoken-claude"].base_url == TAOTOKEN + "/v1"
    assert by_name["taotoken-claude"].protocol == "anthropic"
    assert by_name["taotoken-codex"].base_url == "https://taotoken.net/api/v1"
    assert _ids(by_name["taotoken-codex"]) == ["deepseek-v3"]
    assert {k.kind for k in result.keys.values()} == {"literal"}
    assert detect(home / ".cc-switch" / "config.json") == "ccswitch_legacy"
    assert import_path(home / ".cc-switch").providers == result.providers


def test_every_testdata_entry_is_covered() -> None:
    """Each file and store imports (a new file needs a test above) and data/README.md says
    what writes it and where it comes from."""
    entries = sorted(p.name for p in CONFIGS.iterdir())
    assert entries == [
        "benchmark_config.json",
        "ccswitch_config.toml",
        "ccswitch_home",
        "ccswitch_legacy",
        "claude_settings.json",
        "claude_settings_flat.json",
        "cline_home",
        "cline_legacy",
        "cline_settings.json",
        "taotoken_config.toml",
    ]
    for entry in entries:
        assert import_path(CONFIGS / entry).providers
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for path in sorted(CONFIGS.rglob("*")):
        if path.is_file():
            assert path.relative_to(CONFIGS).as_posix() in readme, path


# ---- keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["sk-你的TaoTokenKey", "你的_API_Key", "YOUR_KEY", "your-api-key", "<key>", "sk-xxxxxxxx"],
)
def test_placeholders_are_not_keys(text: str, tmp_path: Path) -> None:
    assert is_placeholder(text)
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps({"cline.openAiBaseUrl": "https://gw.example/v1", "cline.openAiApiKey": text}),
        encoding="utf-8",
    )
    result = import_path(path)
    key = result.keys["gw"]
    assert key.kind == "placeholder" and key.secret() is None
    assert any("placeholder" in w for w in result.warnings)


@pytest.mark.parametrize("text", ["sk-placeholder-not-a-real-key", "sk-abc123DEF456", "wb-7f3a9c"])
def test_key_shaped_text_is_a_literal(text: str) -> None:
    assert not is_placeholder(text)


@pytest.mark.parametrize(
    ("text", "var"), [("${GW_KEY}", "GW_KEY"), ("$GW_KEY", "GW_KEY"), ("env:GW_KEY", "GW_KEY")]
)
def test_env_references_in_key_fields(text: str, var: str, tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(f'[provider.gw]\nbase_url = "https://gw.example/v1"\napi_key = "{text}"\n')
    result = import_path(path)
    assert result.providers[0].key == KeyRef("env", var)


def test_found_key_never_shows_its_text() -> None:
    key = FoundKey.literal("sk-abcdefghijklmnop", "x.json: apiKey")
    for shown in (repr(key), str(key), key.describe(), key.redacted, repr(key.identity())):
        assert "abcdefghijklmnop" not in shown
    assert key.redacted == "sk-***"


def test_no_key_text_in_results_errors_or_logs(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    for entry in CONFIGS.iterdir():
        result = import_path(entry)
        shown = repr(result) + "".join(result.warnings) + repr(result.providers)
        for k in result.keys.values():
            shown += k.describe() + k.redacted
        for key in LITERAL_KEYS:
            assert key not in shown
    # an error after the key was read: the message holds no key text
    bad = tmp_path / "providers.json"
    bad.write_text(
        json.dumps(
            {
                "providers": {
                    "openai-compatible": {
                        "settings": {"apiKey": LITERAL_KEYS[0], "baseUrl": LITERAL_KEYS[0]}
                    }
                }
            }
        )
    )
    with pytest.raises(ConfigImportError) as err:
        import_path(bad)
    assert "baseUrl" in str(err.value)
    logging.getLogger("workbench").error("failed with %s", LITERAL_KEYS[0])
    text = caplog.text + str(err.value)
    for key in LITERAL_KEYS:
        assert key not in text


def test_credential_headers_are_not_imported(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "cline.openAiBaseUrl": "https://gw.example/v1",
                "cline.openAiHeaders": {
                    "X-Api-Key": "wb-secret-header-value",
                    "Authorization": "Bearer ${GW_TOKEN}",
                    "X-Team": "a",
                },
            }
        )
    )
    result = import_path(path)
    assert result.providers[0].headers == {"Authorization": "Bearer ${GW_TOKEN}", "X-Team": "a"}
    assert any("X-Api-Key" in w for w in result.warnings)


# ---- JSONC -----------------------------------------------------------------------------------


def test_jsonc_comments_inside_strings_survive(tmp_path: Path) -> None:
    text = """{
  // a comment with "quotes" and http://x
  "cline.openAiBaseUrl": "http://x.example//y/",  /* block
  comment, */ "cline.openAiModelId": "a/*b*/c//d",
  "cline.openAiApiKey": "${GW_KEY}",
  "escaped": "quote \\" // still a string",
  "list": [1, 2, /* c */ ],
}
"""
    assert json.loads(strip_jsonc(text))["escaped"] == 'quote " // still a string'
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    p = _only(read_vscode_settings(path))
    assert p.base_url == "http://x.example/y"  # normalised: double and trailing slashes
    assert _ids(p) == ["a/*b*/c//d"]


def test_jsonc_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cline_settings.json"
    path.write_text('{\n  // c\n  "cline.openAiBaseUrl": "https://x",\n  "b": ,\n}\n')
    with pytest.raises(ConfigImportError, match=r"^cline_settings\.json, line 4: not valid JSON"):
        import_path(path)
    path.write_text('{\n  "a": 1 /* never closed\n}')
    with pytest.raises(ConfigImportError, match=r"line 2: .*never closed"):
        import_path(path)


# ---- broken and unknown input ----------------------------------------------------------------


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_missing_base_url_names_the_field(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "providers.json",
        {"providers": {"openai-compatible": {"settings": {"apiKey": "${K}"}}}},
    )
    with pytest.raises(ConfigImportError) as err:
        read_cline_providers(path)
    assert str(err.value) == (
        "providers.json: providers.openai-compatible.settings.baseUrl is missing"
    )


def test_wrong_types_and_bad_urls_name_the_field(tmp_path: Path) -> None:
    path = _write(tmp_path / "benchmark_config.json", {"base_url": 42, "api_key_env": "K"})
    with pytest.raises(ConfigImportError, match=r"benchmark_config\.json.*base_url must be text"):
        import_path(path)
    path = _write(tmp_path / "b.json", {"base_url": "ftp://x", "api_key_env": "K"})
    with pytest.raises(ConfigImportError, match=r"b\.json.*base_url is not a usable base URL"):
        import_path(path)
    path = _write(tmp_path / "c.json", {"base_url": "https://x", "api_key_env": "not a var"})
    with pytest.raises(ConfigImportError, match=r"api_key_env.*not an environment variable"):
        import_path(path)


def test_a_wrong_type_names_the_file_line_field_and_what_it_must_be(tmp_path: Path) -> None:
    path = tmp_path / "taotoken.toml"
    path.write_text(
        '[provider]\nname = "tao"\nbase_url = "https://x.example/v1"\napi_key_env = 42\n'
    )
    with pytest.raises(ConfigImportError) as err:
        import_path(path)
    assert str(err.value) == (
        "taotoken.toml, line 4: provider.api_key_env must be the name of an environment "
        "variable, found a whole number"
    )
    path = _write(
        tmp_path / "benchmark_config.json",
        {"base_url": "https://x.example", "models": {"gqa": {"id": 7}}},
    )
    with pytest.raises(ConfigImportError, match=r"models\.gqa\.id must be a model id \(text\)"):
        import_path(path)
    path = tmp_path / "settings" / "providers.json"
    _write(path, {"providers": {"openai-compatible": {"settings": []}}})
    with pytest.raises(ConfigImportError) as err:
        import_path(path)
    assert str(err.value) == (
        "providers.json, line 1: providers.openai-compatible.settings must be a table/object, "
        "found a list"
    )


def test_a_bad_descriptive_value_is_left_out_with_a_warning(tmp_path: Path) -> None:
    # a model's context window, prices, attention and a header only describe it: a bad one
    # is dropped, named with its file and field, and the rest of the file is imported
    path = _write(
        tmp_path / "settings.json",
        {
            "cline.openAiBaseUrl": "https://gw.example/v1",
            "cline.openAiModelId": "m1",
            "cline.openAiModelInfo": {"contextWindow": "lots", "inputPrice": -1, "outputPrice": 2},
            "cline.openAiHeaders": {"X-Team": "a", "X-List": ["b"], "X-Port": 8080},
        },
    )
    result = import_path(path)
    provider = _only(result)
    assert provider.models[0].context_window is None
    assert provider.models[0].prices == Prices(input=0.0, output=2.0)
    assert provider.headers == {"X-Team": "a", "X-Port": "8080"}
    info = "settings.json: ignored cline.openAiModelInfo"
    assert f"{info}.contextWindow: must be a whole number >= 1, found text" in result.warnings
    assert (
        "settings.json: ignored cline.openAiModelInfo.inputPrice: must be a number >= 0, found -1"
        in result.warnings
    )
    assert (
        "settings.json: ignored cline.openAiHeaders.X-List: must be text in quotes, found a list"
        in result.warnings
    )
    path = _write(
        tmp_path / "benchmark_config.json",
        {"base_url": "https://x.example", "models": {"g": {"id": "g", "attention_type": "?"}}},
    )
    result = import_path(path)
    assert _only(result).models[0].attention is None
    assert any(
        "ignored models.g.attention_type: not an attention type" in w for w in result.warnings
    )


def test_broken_toml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "taotoken_config.toml"
    path.write_text('[provider]\nname = "x"\nbase_url = https://x\n')
    with pytest.raises(ConfigImportError, match=r"^taotoken_config\.toml, line 3: not valid TOML"):
        import_path(path)


def test_unknown_file_and_empty_folder(tmp_path: Path) -> None:
    path = _write(tmp_path / "other.json", {"hello": "world"})
    with pytest.raises(ConfigImportError, match="not a config the workbench knows"):
        detect(path)
    with pytest.raises(ConfigImportError, match="no such file or folder"):
        import_path(tmp_path / "does_not_exist")
    (tmp_path / "home").mkdir()
    with pytest.raises(ConfigImportError, match=r"looked for \.cline"):
        import_path(tmp_path / "home")
    bad_db = tmp_path / "cc-switch.db"
    bad_db.write_bytes(b"not sqlite at all" * 10)
    with pytest.raises(ConfigImportError, match=r"^cc-switch\.db: "):
        import_path(bad_db)


def test_a_broken_store_in_a_home_fails_the_whole_import(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(CONFIGS / "cline_home", home)
    _write(home / ".cc-switch" / "config.json", {"version": 2, "claude": {"providers": {"x": 1}}})
    with pytest.raises(
        ConfigImportError,
        match=r"config\.json.*claude\.providers\.x must be a table/object, found a whole number",
    ):
        import_path(home)


def test_a_home_store_with_nothing_to_import_is_skipped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(CONFIGS / "cline_legacy", home)
    _write(home / ".claude" / "settings.json", {"env": {"DISABLE_TELEMETRY": "1"}})
    result = import_path(home)
    assert [p.name for p in result.providers] == ["taotoken"]
    assert any("ANTHROPIC_BASE_URL is missing" in w for w in result.warnings)
    with pytest.raises(ConfigImportError, match="ANTHROPIC_BASE_URL is missing"):
        import_path(home / ".claude" / "settings.json")


def test_anthropic_url_in_claude_settings_is_an_anthropic_provider(tmp_path: Path) -> None:
    for url in ("https://api.anthropic.com", "https://gw.example/api/anthropic"):
        path = _write(tmp_path / "settings.json", {"env": {"ANTHROPIC_BASE_URL": url}})
        result = import_path(path)
        assert (result.providers[0].base_url, result.providers[0].protocol) == (
            url + "/v1",
            "anthropic",
        )
        assert not any("Anthropic" in w for w in result.warnings)


def test_anthropic_url_imported_as_chat_warns_and_suggests_the_protocol(tmp_path: Path) -> None:
    for url in ("https://api.anthropic.com", "https://gw.example/api/anthropic"):
        path = tmp_path / "config.toml"
        path.write_text(f'[provider.gw]\nbase_url = "{url}"\nmodel = "m"\n', encoding="utf-8")
        result = import_path(path)
        assert result.providers[0].protocol == "chat"
        assert any(
            url in w and 'protocol = "anthropic"' in w and "--protocol anthropic" in w
            for w in result.warnings
        ), result.warnings


def test_codex_wire_api_responses_becomes_a_responses_provider(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'model_provider = "gw"\nmodel = "gpt-5-codex"\n[model_providers.gw]\n'
        'base_url = "https://gw.example/v1"\nenv_key = "GW_KEY"\nwire_api = "responses"\n',
        encoding="utf-8",
    )
    assert _only(import_path(path)).protocol == "responses"
    path.write_text(path.read_text().replace('"responses"', '"chat"'), encoding="utf-8")
    assert _only(import_path(path)).protocol == "chat"


def test_home_folder_merges_and_dedupes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(CONFIGS / "cline_home", home)
    shutil.copytree(CONFIGS / "cline_legacy", home, dirs_exist_ok=True)
    shutil.copytree(CONFIGS / "ccswitch_legacy", home, dirs_exist_ok=True)
    result = import_path(home)
    names = [p.name for p in result.providers]
    assert len(names) == len(set(names))
    # Cline's current and legacy stores hold the same gateway and key: one provider
    taotoken = [p for p in result.providers if p.name == "taotoken"]
    assert len(taotoken) == 1 and "kimi-k2" in _ids(taotoken[0])
    # the CC Switch Claude entry has the same key, but speaks Anthropic's protocol at .../v1
    assert "taotoken-claude" in names
    assert "taotoken-codex" in names


# ---- saving ----------------------------------------------------------------------------------


def test_save_literal_key_goes_to_keyring_never_to_the_file(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    result = import_path(CONFIGS / "cline_home")
    plan = plan_save(result, [], keyring_available=True)
    assert [(p.name, p.action) for p in plan.providers] == [("taotoken", "new")]
    assert plan.keys[0].message == "goes to the OS keyring as account 'taotoken'"
    path = apply_save(plan, tmp_path / "providers.toml")
    text = path.read_text(encoding="utf-8")
    for key in LITERAL_KEYS:
        assert key not in text
        for f in tmp_path.iterdir():
            assert key not in f.read_text(encoding="utf-8")
    assert memory_keyring.store == {(KEYRING_SERVICE, "taotoken"): LITERAL_KEYS[0]}
    saved = load_providers(path).get("taotoken")
    assert saved is not None and saved.key == KeyRef("keyring", "taotoken")
    assert saved.headers == {"X-Team": "inference"} and saved.total_timeout_s == 120.0


def test_save_without_keyring_says_so_and_keeps_no_key(tmp_path: Path) -> None:
    result = import_path(CONFIGS / "claude_settings.json")
    plan = plan_save(result, [], keyring_available=False)
    assert plan.keys[0].action == "unsaved"
    assert plan.keys[0].message.startswith(
        "cannot be saved: no OS keyring here; export it as an environment variable and "
        "re-import, or add the provider with --api-key-env"
    )
    path = apply_save(plan, tmp_path / "providers.toml")
    saved = load_providers(path).get("taotoken")
    assert saved is not None and saved.key == KeyRef("none")
    assert LITERAL_KEYS[0] not in path.read_text(encoding="utf-8")


def test_env_reference_stays_a_reference(tmp_path: Path) -> None:
    plan = plan_save(import_path(CONFIGS / "benchmark_config.json"), [], False)
    assert plan.keys[0].message.startswith("stays env reference $TAOTOKEN_API_KEY")
    path = apply_save(plan, tmp_path / "providers.toml")
    assert load_providers(path).providers[0].key == KeyRef("env", "TAOTOKEN_API_KEY")


def test_merge_into_existing_providers(tmp_path: Path) -> None:
    result = import_path(CONFIGS / "taotoken_config.toml")
    same = Provider("taotoken", TAOTOKEN, KeyRef("env", "OLD"), models=(ModelEntry("kimi-k2"),))
    plan = plan_save(result, [same], False)
    assert [(p.name, p.action) for p in plan.providers] == [("taotoken", "update")]
    updated = plan.all_providers[0]
    assert updated.key == KeyRef("env", "TAOTOKEN_API_KEY")
    assert _ids(updated) == ["llama-3-70b", "deepseek-chat", "kimi-k2"]

    other = Provider("taotoken", "https://other.example/v1")
    plan = plan_save(result, [other], False)
    assert [(p.name, p.action) for p in plan.providers] == [("taotoken-2", "new")]
    assert [p.name for p in plan.all_providers] == ["taotoken", "taotoken-2"]

    # importing the same file twice changes nothing
    path = apply_save(plan_save(result, [], False), tmp_path / "providers.toml")
    again = plan_save(result, load_providers(path).providers, False)
    assert [p.action for p in again.providers] == ["unchanged"] and not again.changes


def test_placeholder_keeps_an_existing_key() -> None:
    result = ImportResult(
        providers=[Provider("gw", "https://gw.example/v1")],
        keys={"gw": FoundKey("placeholder", "x", placeholder="YOUR_KEY")},
        warnings=[],
        source="x",
        kind="benchmark_json",
    )
    existing = [Provider("gw", "https://gw.example/v1", KeyRef("env", "GW_KEY"))]
    plan = plan_save(result, existing, True)
    assert plan.all_providers[0].key == KeyRef("env", "GW_KEY")
    assert plan.keys[0].action == "kept"
    fresh = plan_save(result, [], True)
    assert fresh.keys[0].action == "none" and "placeholder" in fresh.keys[0].message


# ---- property-based: nothing but ConfigImportError ------------------------------------------

FILE_NAMES = [
    "benchmark_config.json",
    "taotoken_config.toml",
    "cline_settings.json",
    "ccswitch_config.toml",
    "claude_settings.json",
    "settings.json",
    "providers.json",
    "models.json",
    "globalState.json",
    "secrets.json",
    "config.json",
    "cc-switch.db",
    "config.toml",
    "noext",
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.sampled_from(["https://x.example/v1", "${K}", "sk-你的Key", "openai", "", "ftp://"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)

_TESTDATA_JSON = [
    "benchmark_config.json",
    "cline_settings.json",
    "claude_settings.json",
    "claude_settings_flat.json",
    "cline_home/.cline/data/settings/providers.json",
    "cline_home/.cline/data/settings/models.json",
    "cline_legacy/.cline/data/globalState.json",
    "ccswitch_legacy/.cc-switch/config.json",
]


def _load_jsonc(rel: str) -> dict:
    return json.loads(strip_jsonc((CONFIGS / rel).read_text(encoding="utf-8")))


def _mutations(doc: object, draw_value: st.DataObject) -> object:
    """Replace random nodes of a real config with random JSON values."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            choice = draw_value.draw(st.integers(0, 9))
            if choice == 0:
                continue
            out[k] = draw_value.draw(json_values) if choice == 1 else _mutations(v, draw_value)
        return out
    if isinstance(doc, list):
        return [_mutations(v, draw_value) for v in doc]
    if draw_value.draw(st.integers(0, 4)) == 0:
        return draw_value.draw(json_values)
    return doc


def _check_all_readers(path: Path) -> None:
    for call in [import_path, *READERS.values()]:
        try:
            result = call(path)
        except ConfigImportError:
            continue
        assert isinstance(result, ImportResult) and result.providers


_FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@_FUZZ
@given(name=st.sampled_from(FILE_NAMES), data=st.binary(max_size=300))
def test_random_bytes_raise_only_config_import_error(name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        _check_all_readers(path)


@_FUZZ
@given(name=st.sampled_from(FILE_NAMES), doc=json_values)
def test_random_json_raises_only_config_import_error(name: str, doc: object) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        _check_all_readers(path)


@_FUZZ
@given(rel=st.sampled_from(_TESTDATA_JSON), data=st.data())
def test_mutated_real_json_configs_raise_only_config_import_error(rel: str, data) -> None:
    doc = _mutations(_load_jsonc(rel), data)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / Path(rel).parent
        folder.mkdir(parents=True, exist_ok=True)
        for sibling in (CONFIGS / rel).parent.iterdir():  # models.json, secrets.json stay real
            if sibling.is_file() and sibling.suffix == ".json":
                shutil.copyfile(sibling, folder / sibling.name)
        path = folder / Path(rel).name
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        _check_all_readers(path)
        _check_all_readers(Path(tmp))


toml_keys = st.sampled_from(
    [
        "provider",
        "models",
        "request",
        "name",
        "base_url",
        "api_key",
        "api_key_env",
        "model",
        "timeout",
        "id",
        "attention",
        "context_window",
        "model_providers",
        "model_provider",
        "env_key",
        "taotoken",
        "x",
    ]
)
toml_scalars = (
    st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=True)
    | st.booleans()
    | st.text(max_size=20)
    | st.sampled_from(["https://taotoken.net/api", "${TAOTOKEN_API_KEY}", "YOUR_KEY", "ftp://x"])
)
toml_docs = st.recursive(
    toml_scalars,
    lambda inner: (
        st.dictionaries(toml_keys, inner, max_size=5) | st.lists(toml_scalars, max_size=3)
    ),
    max_leaves=25,
).filter(lambda d: isinstance(d, dict))


@_FUZZ
@given(
    name=st.sampled_from(["taotoken_config.toml", "ccswitch_config.toml", "config.toml"]),
    doc=toml_docs,
)
def test_random_toml_raises_only_config_import_error(name: str, doc: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(tomlkit.dumps(doc), encoding="utf-8")
        _check_all_readers(path)


@_FUZZ
@given(
    text=st.lists(
        st.sampled_from([*'[]{}=".,\n #/*$xa1_-', "provider", "base_url", "https://x"]),
        max_size=60,
    ).map("".join)
)
def test_toml_ish_and_jsonc_ish_text_raises_only_config_import_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("taotoken_config.toml", "cline_settings.json"):
            path = Path(tmp) / name
            path.write_text(text, encoding="utf-8")
            _check_all_readers(path)


@_FUZZ
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["claude", "codex", "gemini", "x"]), json_values | st.text(max_size=40)
        ),
        max_size=4,
    ),
    universal=st.none() | json_values | st.text(max_size=40),
)
def test_random_ccswitch_db_rows_raise_only_config_import_error(rows, universal) -> None:
    import sqlite3

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cc-switch.db"
        con = sqlite3.connect(path)
        con.execute(
            "CREATE TABLE providers(id TEXT, app_type TEXT, name TEXT, settings_config TEXT)"
        )
        con.execute("CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT)")
        for i, (app, config) in enumerate(rows):
            text = config if isinstance(config, str) else json.dumps(config)
            con.execute("INSERT INTO providers VALUES (?, ?, ?, ?)", (f"p{i}", app, "n", text))
        if universal is not None:
            value = universal if isinstance(universal, str) else json.dumps(universal)
            con.execute("INSERT INTO settings VALUES ('universal_providers', ?)", (value,))
        con.commit()
        con.close()
        _check_all_readers(path)
