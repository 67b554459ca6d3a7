"""Ray's token file (`ray start --head` writes ~/.ray/auth_token 0644): `bench --cluster`, which
sends the token it finds, first makes the file owner-only, as every secret of ours is. No Ray
is needed: the file is found before Ray is imported."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from workbench.core.scale import cluster


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX file modes")
def test_a_token_file_others_may_read_is_made_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = tmp_path / "auth_token"
    token.write_text("a" * 32)
    token.chmod(0o644)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(token))
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    cluster._token_auth_when_available()
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert os.environ["RAY_AUTH_MODE"] == "token"
    assert token.read_text() == "a" * 32  # the token itself untouched


def test_the_token_is_tightened_even_when_the_user_chose_the_auth_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = tmp_path / "auth_token"
    token.write_text("b" * 32)
    token.chmod(0o640)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(token))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    cluster._token_auth_when_available()
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert os.environ["RAY_AUTH_MODE"] == "disabled"
