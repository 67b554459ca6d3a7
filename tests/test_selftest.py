"""`workbench --self-test` from source, as the packaged app runs it (issue 6)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
        **env,
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture(scope="module")
def self_test_without_display(tmp_path_factory: pytest.TempPathFactory) -> str:
    """`--self-test` from source with no DISPLAY and no QT_QPA_PLATFORM (a CI runner, a
    server), run once for the tests below: its stdout and stderr. The data and settings
    folders are the test's own; one that is still empty afterwards shows nothing was kept."""
    home = tmp_path_factory.mktemp("self-test")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "--self-test"],
        cwd=ROOT,
        env={
            **env,
            "WORKBENCH_DATA_DIR": str(home / "data"),
            "WORKBENCH_CONFIG_DIR": str(home / "config"),
        },
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    data = home / "data"
    # nothing of the user's is touched: the self-test keeps its history and settings to itself
    assert not data.exists() or not any(data.iterdir())
    return out


@pytest.mark.slow
def test_self_test_passes_from_source(self_test_without_display: str) -> None:
    out = self_test_without_display
    assert "self-test passed" in out
    assert "Traceback" not in out
    for what in ("models.toml", "corpus", "qtbase_zh_CN.qm", "streamed 2 panes", "CSV: 2 rows"):
        assert what in out, what
    # what a trimmed bundle must still carry (issue 31): every tab painted, a PDF written
    tabs = "Compare, Sweep, Capacity, Results, History, Summary, Providers, Kernels"
    assert f"painted every tab: {tabs}" in out
    assert "summary exported as PDF" in out


@pytest.mark.slow
def test_self_test_runs_without_any_display_variable(self_test_without_display: str) -> None:
    """No DISPLAY and no QT_QPA_PLATFORM: it goes offscreen by itself instead of aborting."""
    assert "platform offscreen" in self_test_without_display


def test_self_test_fails_with_a_reason_when_resources_are_missing(tmp_path) -> None:
    empty = tmp_path / "empty-resources"
    empty.mkdir()
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        import workbench.resources as r
        r.resources_dir = lambda: Path({str(empty)!r})
        from workbench.cli import main
        sys.exit(main(["--self-test"]))
        """
    )
    proc = _run(["-c", script], tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "self-test FAILED: model catalog unreadable" in out
    assert "models.toml" in out
    assert "Traceback" not in out


def test_self_test_fails_with_a_reason_when_a_translation_is_not_compiled(tmp_path) -> None:
    from workbench.selftest import check_translations
    from workbench.selftest_error import SelfTestError

    folder = tmp_path / "translations"
    folder.mkdir()
    assert "none of our own" in check_translations(folder)
    (folder / "workbench_xx.ts").write_text("<TS/>")
    with pytest.raises(SelfTestError, match=r"workbench_xx\.ts has no compiled workbench_xx\.qm"):
        check_translations(folder)
    (folder / "workbench_xx.qm").write_bytes(b"not a qm file at all....")
    with pytest.raises(SelfTestError, match="not a compiled Qt translation"):
        check_translations(folder)


def test_check_csv_rejects_a_wrong_row_count(tmp_path) -> None:
    from workbench.core.history.csv_export import COLUMNS
    from workbench.selftest import check_csv
    from workbench.selftest_error import SelfTestError

    path = tmp_path / "x.csv"
    path.write_text(",".join(COLUMNS) + "\r\n", encoding="utf-8")
    with pytest.raises(SelfTestError, match="0 rows, expected 2"):
        check_csv(path, 2, ["a", "b"], 32)


def test_self_test_flag_is_in_the_help() -> None:
    from workbench.cli import build_parser

    assert "--self-test" in build_parser().format_help()


@pytest.mark.slow
@pytest.mark.skipif(
    not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")),
    reason="needs dbus-run-session and gnome-keyring-daemon (apt-get install gnome-keyring)",
)
def test_keyring_store_goes_through_a_real_secret_service(tmp_path) -> None:
    """`--keyring-store`: a secret stored in gnome-keyring (its own D-Bus session and home),
    read back and deleted, through the app's keyring path (issue 31's smoke test runs it on the
    bundle, whose AES-CBC comes from OpenSSL rather than `cryptography`)."""
    unlock = "printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null"
    session = ["dbus-run-session", "--", "sh", "-c", f'{unlock}; exec "$@"', "sh"]
    proc = subprocess.run(
        [*session, sys.executable, "-m", "workbench", "--self-test", "--keyring-store"],
        cwd=ROOT,
        env={
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            "HOME": str(tmp_path),
            "XDG_DATA_HOME": str(tmp_path / "share"),
            "XDG_RUNTIME_DIR": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "ok  keyring store: a secret stored, read back and deleted" in out
    assert "SecretService" in out
