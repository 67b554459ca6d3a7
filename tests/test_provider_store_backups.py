"""providers.toml never loses a provider silently, with real files and the real CLI:

- the last-good copy is refreshed only by a load that kept everything;
- a file cut short at a section boundary (it still parses) warns, naming what it lost and
  where the backup is, and the backup keeps them, through later saves too;
- a file that cannot be loaded is kept as providers.toml.broken-<time> before a save replaces
  it (or, when no copy can be made, it is not replaced);
- deeply nested arrays are a clean error naming the file, a FIFO does not hang the load;
- every file is 0600 in a 0700 folder.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.cli_inprocess import run_cli
from workbench.core.access.providers import KeyRef, ModelEntry, Provider
from workbench.core.saved.provider_store import (
    last_good_path,
    load_providers,
    save_providers,
)

WORKBENCH = [sys.executable, "-m", "workbench"]


def _providers() -> list[Provider]:
    return [
        Provider("alpha", "https://alpha.example/v1", KeyRef("env", "ALPHA_KEY"),
                 models=(ModelEntry("a1"),)),
        Provider("beta", "https://beta.example/v1", KeyRef("keyring", "beta")),
        Provider("gamma", "https://gamma.example/v1"),
    ]  # fmt: skip


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "config"


@pytest.fixture
def env(tmp_path: Path, config: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(config),
    }


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command in this process (a start cost ~0.3 s CPU): what it writes is the subject."""
    return run_cli(args, env)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _cut_before(text: str, section: str) -> str:
    """The file as a crash or a bad copy leaves it: everything before `[providers.<section>`."""
    return text[: text.index(f"[providers.{section}")]


def test_a_full_load_refreshes_the_last_good_copy(config) -> None:
    path = config / "providers.toml"
    save_providers(_providers(), path)
    edited = path.read_text().replace("https://gamma.example/v1", "https://gamma2.example/v1")
    path.write_text(edited)
    loaded = load_providers(path)
    assert loaded.warning is None and loaded.lost == ()
    assert last_good_path(path).read_text() == edited


def test_a_file_cut_at_a_section_boundary_says_what_it_lost(config, env) -> None:
    path = config / "providers.toml"
    save_providers(_providers(), path)
    backup = last_good_path(path)
    whole = backup.read_text()
    path.write_text(_cut_before(path.read_text(), "beta"))  # still valid TOML: only alpha
    loaded = load_providers(path)
    assert [p.name for p in loaded.providers] == ["alpha"] and not loaded.from_backup
    assert loaded.lost == ("beta", "gamma")
    warning = loaded.warning or ""
    assert "'beta', 'gamma'" in warning and str(backup) in warning
    assert backup.read_text() == whole  # the backup still has all three
    listed = _run(["providers", "list"], env)
    assert listed.returncode == 0
    assert "'beta', 'gamma'" in listed.stderr and str(backup) in listed.stderr
    # adding a provider now must not cost the backup the lost ones either
    added = _run(["providers", "add", "delta", "--base-url", "https://delta.example/v1"], env)
    assert added.returncode == 0, added.stderr
    assert backup.read_text() == whole
    assert load_providers(path).lost == ("beta", "gamma")
    # put back from the backup: the next load is whole again and refreshes the copy
    save_providers([*load_providers(backup).providers, *load_providers(path).providers[1:]], path)
    again = load_providers(path)
    assert again.warning is None and [p.name for p in again.providers][-1] == "delta"
    assert "delta" in backup.read_text()


def test_removing_on_purpose_is_not_a_loss(config, env) -> None:
    path = config / "providers.toml"
    save_providers(_providers(), path)
    removed = _run(["providers", "remove", "beta"], env)
    assert removed.returncode == 0, removed.stderr
    loaded = load_providers(path)
    assert loaded.warning is None and [p.name for p in loaded.providers] == ["alpha", "gamma"]
    assert "beta" not in last_good_path(path).read_text()


def test_an_invalid_section_loads_the_backup_and_names_what_it_lacks(config) -> None:
    path = config / "providers.toml"
    save_providers(_providers()[:1], path)
    backup = last_good_path(path)
    before = backup.read_text()
    path.write_text(
        path.read_text()
        + '\n[providers.fresh]\nbase_url = "https://fresh.example/v1"\n'
        + '\n[providers.typo]\nbase_url = "https://typo.example/v1"\nverify_tls = "yes"\n'
    )
    loaded = load_providers(path)
    assert loaded.from_backup and [p.name for p in loaded.providers] == ["alpha"]
    warning = loaded.warning or ""
    assert "provider 'typo', field 'verify_tls'" in warning and str(backup) in warning
    assert "'fresh'" in warning and "'typo'" in warning  # not in the copy: not loaded
    assert backup.read_text() == before


@pytest.mark.parametrize(
    "content",
    [b"[providers.x\nbase_url = ", b"\xff\xfe not utf-8 at all \x00\x01"],
    ids=["unparseable", "not-utf8"],
)
def test_providers_add_keeps_a_broken_file_before_replacing_it(config, env, content) -> None:
    config.mkdir()
    path = config / "providers.toml"
    path.write_bytes(content)
    added = _run(["providers", "add", "gw", "--base-url", "https://gw.example/v1"], env)
    assert added.returncode == 0, added.stderr
    copies = sorted(config.glob("providers.toml.broken-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == content
    assert str(copies[0]) in added.stderr
    assert _mode(copies[0]) == 0o600
    assert [p.name for p in load_providers(path).providers] == ["gw"]
    # a save over a good file keeps no further copy
    assert (
        _run(["providers", "add", "gw2", "--base-url", "https://b.example/v1"], env).returncode == 0
    )
    assert len(list(config.glob("providers.toml.broken-*"))) == 1
    # broken again, now with a last good copy: the CLI refuses and leaves the file as it is
    path.write_bytes(content)
    refused = _run(["providers", "add", "gw3", "--base-url", "https://c.example/v1"], env)
    assert refused.returncode == 2 and path.read_bytes() == content
    # the app saves on top of the last good copy: the broken file gets a copy of its own
    notices: list[str] = []
    save_providers(load_providers(path).providers, path, notices)
    copies = sorted(config.glob("providers.toml.broken-*"))
    assert len(copies) == 2 and all(c.read_bytes() == content for c in copies)
    assert len(notices) == 1 and any(str(c) in notices[0] for c in copies)


def test_a_providers_path_that_cannot_be_copied_is_not_replaced(config, env) -> None:
    (config / "providers.toml").mkdir(parents=True)  # a folder where the file should be
    added = _run(["providers", "add", "gw", "--base-url", "https://gw.example/v1"], env)
    assert added.returncode == 2
    assert "could not be copied aside" in added.stderr and "Traceback" not in added.stderr
    assert (config / "providers.toml").is_dir()


def test_deeply_nested_arrays_are_a_clean_error_naming_the_file(config, env) -> None:
    config.mkdir()
    path = config / "providers.toml"
    depth = 10_000
    path.write_text(
        f'[providers.x]\nbase_url = "https://x/v1"\nmodels = {"[" * depth}{"]" * depth}\n'
    )
    loaded = load_providers(path)
    assert loaded.providers == [] and str(path) in (loaded.warning or "")
    assert "nested too deeply" in (loaded.warning or "")
    listed = _run(["providers", "list"], env)
    assert listed.returncode == 0 and "nested too deeply" in listed.stderr
    assert "Traceback" not in listed.stderr and "RecursionError" not in listed.stderr


def test_a_fifo_as_providers_file_does_not_hang(config) -> None:
    config.mkdir()
    path = config / "providers.toml"
    os.mkfifo(path)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(load_providers(path)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert found, "loading a FIFO as providers.toml hung"
    loaded = found[0]
    assert loaded.providers == [] and "not a regular file" in (loaded.warning or "")  # type: ignore[attr-defined]


def test_files_are_owner_only_in_an_owner_only_folder(config, env, tmp_path) -> None:
    path = config / "providers.toml"
    save_providers(_providers(), path)
    assert _mode(config) == 0o700
    assert _mode(path) == 0o600 and _mode(last_good_path(path)) == 0o600
    exported = tmp_path / "out" / "set.toml"
    done = _run(["providers", "export", str(exported)], env)
    assert done.returncode == 0, done.stderr
    assert _mode(exported) == 0o600 and _mode(exported.parent) == 0o700
    # an existing export target that others could read is replaced by an owner-only file
    shared = tmp_path / "shared.toml"
    shared.write_text("old")
    shared.chmod(0o644)
    assert _run(["providers", "export", str(shared)], env).returncode == 0
    assert _mode(shared) == 0o600 and "alpha" in shared.read_text()


def test_the_config_folder_of_an_older_version_is_tightened(config, env) -> None:
    config.mkdir(mode=0o755)
    config.chmod(0o755)
    assert (
        _run(["providers", "add", "gw", "--base-url", "https://gw.example/v1"], env).returncode == 0
    )
    assert _mode(config) == 0o700 and _mode(config / "providers.toml") == 0o600
