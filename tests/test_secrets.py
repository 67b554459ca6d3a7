"""Keys: env references, the OS keyring (a real in-memory backend, and the headless failure),
session keys, and redaction of logs and error messages."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import keyring
import keyring.backend
import keyring.backends.fail
import pytest
from memory_keyring import MemoryKeyring

from workbench.core.access import keys
from workbench.core.access.keys import (
    KEYRING_SERVICE,
    KeyringUnavailable,
    KeyUnavailable,
    keyring_status,
    parse_env_reference,
    resolve_headers,
    resolve_key,
    set_session_key,
    store_in_keyring,
)
from workbench.core.access.providers import KeyRef, Provider
from workbench.core.foundation import redaction
from workbench.core.foundation.redaction import install_log_redaction, redact

KEY = "wb-test-key-7f3a9c2e1d"  # a key with no recognisable shape: only registration masks it


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


def _provider(source: str, name: str = "") -> Provider:
    return Provider("gw", "https://gw.example/v1", KeyRef(source, name))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "var"),
    [
        ("${TAOTOKEN_API_KEY}", "TAOTOKEN_API_KEY"),
        ("$MY_KEY", "MY_KEY"),
        ("env:MY_KEY", "MY_KEY"),
        ("  ${A_1}  ", "A_1"),
        ("sk-abcdef123456", None),
        ("${not closed", None),
        ("$1BAD", None),
        ("", None),
    ],
)
def test_parse_env_reference(text: str, var: str | None) -> None:
    assert parse_env_reference(text) == var


def test_env_key_resolves_strips_and_is_redacted(monkeypatch) -> None:
    monkeypatch.setenv("WB_TEST_KEY", KEY + "\n")
    assert resolve_key(_provider("env", "WB_TEST_KEY")) == KEY
    assert redact(f"failed with {KEY} in the header") == "failed with *** in the header"


def test_missing_env_key_names_the_variable_and_the_fix(monkeypatch) -> None:
    monkeypatch.delenv("WB_MISSING_KEY", raising=False)
    with pytest.raises(KeyUnavailable) as err:
        resolve_key(_provider("env", "WB_MISSING_KEY"))
    assert "WB_MISSING_KEY" in str(err.value) and "export" in str(err.value)
    monkeypatch.setenv("WB_MISSING_KEY", "   ")
    with pytest.raises(KeyUnavailable, match="is empty"):
        resolve_key(_provider("env", "WB_MISSING_KEY"))


def test_keyless_provider_has_no_key() -> None:
    assert resolve_key(_provider("none")) is None


def test_keyring_round_trip(memory_keyring: MemoryKeyring) -> None:
    ok, why = keyring_status()
    assert ok, why
    store_in_keyring("gw-account", KEY)
    assert memory_keyring.store[(KEYRING_SERVICE, "gw-account")] == KEY
    assert resolve_key(_provider("keyring", "gw-account")) == KEY
    with pytest.raises(KeyUnavailable) as err:
        resolve_key(_provider("keyring", "other-account"))
    assert "other-account" in str(err.value) and "$VAR" in str(err.value)


def test_headless_keyring_is_reported_and_never_falls_back(no_keyring, tmp_path) -> None:
    ok, why = keyring_status()
    assert not ok
    assert "no OS keyring is available here" in why and "$VAR" in why
    with pytest.raises(KeyringUnavailable) as err:
        store_in_keyring("gw-account", KEY)
    assert KEY not in str(err.value)
    with pytest.raises(KeyringUnavailable):
        resolve_key(_provider("keyring", "gw-account"))
    # nothing was written anywhere as a fallback
    assert KEY not in "".join(
        p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file()
    )


def test_session_key_lives_in_memory_only() -> None:
    provider = _provider("session")
    keys.clear_session_keys()
    with pytest.raises(KeyUnavailable, match="type it again"):
        resolve_key(provider)
    set_session_key("gw", f"  {KEY}  ")
    assert resolve_key(provider) == KEY
    keys.clear_session_keys()


def test_header_references_expand_from_env(monkeypatch) -> None:
    monkeypatch.setenv("WB_HEADER_KEY", KEY)
    provider = Provider(
        "gw", "https://gw/v1", headers={"X-Api-Key": "${WB_HEADER_KEY}", "X-Title": "bench"}
    )
    assert resolve_headers(provider) == {"X-Api-Key": KEY, "X-Title": "bench"}
    monkeypatch.delenv("WB_HEADER_KEY")
    with pytest.raises(KeyUnavailable, match="WB_HEADER_KEY"):
        resolve_headers(provider)


def test_log_lines_never_carry_a_key(monkeypatch, caplog) -> None:
    install_log_redaction()
    monkeypatch.setenv("WB_LOG_KEY", KEY)
    resolve_key(_provider("env", "WB_LOG_KEY"))
    log = logging.getLogger("workbench.test.child")
    with caplog.at_level(logging.DEBUG):
        log.warning("request with key %s failed", KEY)
        log.info("header Authorization: Bearer %s", "sk-unregistered-abcdefghijkl")
        try:
            raise RuntimeError(f"server echoed {KEY}")
        except RuntimeError:
            log.exception("boom")
    assert caplog.records
    assert KEY not in caplog.text
    assert "sk-unregistered-abcdefghijkl" not in caplog.text
    assert "***" in caplog.text
    for record in caplog.records:
        assert KEY not in record.getMessage()


def test_redaction_filter_on_a_plain_handler(monkeypatch) -> None:
    import io

    redaction.register_secret(KEY)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(redaction.RedactingFilter())
    log = logging.getLogger("workbench.test.handler")
    log.addHandler(handler)
    try:
        log.error("key=%s", KEY)
    finally:
        log.removeHandler(handler)
    assert KEY not in stream.getvalue() and "***" in stream.getvalue()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # our own advice names the header's shape: the scheme word stays, so it still reads
        (
            "the header is 'Authorization: Bearer <key>'",
            "the header is 'Authorization: Bearer <key>'",
        ),
        ("Authorization: Bearer gw-0123456789abcdef", "Authorization: Bearer ***"),
        ("authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization: Basic ***"),
        ("Authorization: gw-0123456789abcdef", "Authorization: ***"),
    ],
)
def test_an_authorization_header_masks_the_credential_not_the_scheme(text: str, shown: str) -> None:
    assert redact(text) == shown
