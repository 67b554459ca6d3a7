"""API keys: where they come from, resolved for a provider (its key and its headers' `${VAR}`).

Every key and header value resolved here is registered for redaction (redaction.py).

Where a key lives (`KeyRef.source`):
- `env`: an environment variable, read when needed (configs' `api_key_env` and `${VAR}`);
- `keyring`: the OS keyring (service `attention-workbench`, account `KeyRef.name`);
- `session`: typed into the app and held in this process's memory only, never written;
- `none`: a keyless server.
There is no plain-text source: where no keyring exists we say so and offer an env reference.
"""

from __future__ import annotations

import os
import re

from workbench.core.access.providers import Provider
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.foundation.redaction import redact, register_secret

NO_KEY = "no-key"  # the SDK insists on a key; keyless servers ignore this one (never sent as one)
KEYRING_SERVICE = "attention-workbench"

_session_keys: dict[str, str] = {}

# What resolving a key says when it fails; {provider}, {var}, {header}, {account}, {service},
# {source} and {error} are data, {why} a phrase of its own.
ENV_NOT_SET = QT_TRANSLATE_NOOP(
    "Keys",
    "provider '{provider}': environment variable ${var} is not set; export {var}=<your key> in "
    "the shell that runs Attention Workbench (or point the provider at another variable)",
)
ENV_EMPTY = QT_TRANSLATE_NOOP(
    "Keys",
    "provider '{provider}': environment variable ${var} is empty; export {var}=<your key> in "
    "the shell that runs Attention Workbench (or point the provider at another variable)",
)
NO_KEYRING_FOR = QT_TRANSLATE_NOOP("Keys", "provider '{provider}': {why}")
KEYRING_UNREADABLE = QT_TRANSLATE_NOOP(
    "Keys",
    "provider '{provider}': the OS keyring could not be read ({error}); unlock it, or "
    "reference the key as $VAR instead",
)
KEYRING_HAS_NONE = QT_TRANSLATE_NOOP(
    "Keys",
    "provider '{provider}': the OS keyring has no key for account '{account}' (service "
    "'{service}'); store the key again from the provider editor, or reference an environment "
    "variable as $VAR instead",
)
SESSION_HAS_NONE = QT_TRANSLATE_NOOP(
    "Keys",
    "provider '{provider}': its key is typed in for one session only and this session has "
    "none; type it again, or keep it in an environment variable and reference it as $VAR",
)
UNKNOWN_SOURCE = QT_TRANSLATE_NOOP("Keys", "provider '{provider}': unknown key source '{source}'")
HEADER_VAR_NOT_SET = QT_TRANSLATE_NOOP(
    "Keys",
    "provider '{provider}': header '{header}' uses ${{{var}}}, and environment variable {var} "
    "is not set; export it in this shell first",
)
KEYRING_REFUSED = QT_TRANSLATE_NOOP(
    "Keys",
    "the OS keyring refused the key for account '{account}' ({error}); unlock it, or keep the "
    "key in an environment variable and reference it as $VAR",
)
UNAVAILABLE = QT_TRANSLATE_NOOP("Keys", "{source}: unavailable ({why})")


CONTEXT = "Keys"  # the translation context of this module's marked messages


class KeyUnavailable(LookupError):
    """A provider's key cannot be had right now; the message names where it should be and the fix.

    The message never contains key text. `phrase` is the message for the window to say in its
    language (its templates are marked below, context "Keys"); str() is its English, the CLI's.
    """

    def __init__(self, message: str | Phrase) -> None:
        self.phrase = message if isinstance(message, Phrase) else Phrase(message, context=CONTEXT)
        super().__init__(str(self.phrase))


class KeyringUnavailable(KeyUnavailable):
    """No usable OS keyring here (a headless Linux box, a locked or broken backend)."""


def key_from_env(var: str) -> str | None:
    """Read a key from an environment variable, registering it for redaction."""
    value = os.environ.get(var)
    if value:
        register_secret(value)
    return value


# ---- references ----

_ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ENV_REFERENCE = re.compile(rf"^\s*(?:\$\{{({_ENV_NAME})\}}|\$({_ENV_NAME})|env:({_ENV_NAME}))\s*$")


def parse_env_reference(text: str | None) -> str | None:
    """The variable name in `${VAR}`, `$VAR` or `env:VAR`; None when `text` is not a reference."""
    if not text:
        return None
    match = _ENV_REFERENCE.match(text)
    if not match:
        return None
    return next(g for g in match.groups() if g)


def is_env_var_name(text: str) -> bool:
    return re.fullmatch(_ENV_NAME, text) is not None


# ---- resolving ----


def set_session_key(provider_name: str, key: str) -> None:
    """Hold a typed-in key in memory for this session only; it is never written anywhere."""
    key = key.strip()
    if not key:
        _session_keys.pop(provider_name, None)
        return
    register_secret(key)
    _session_keys[provider_name] = key


def clear_session_keys() -> None:
    _session_keys.clear()


def resolve_key(provider: Provider) -> str | None:
    """The key text for `provider`, registered for redaction; None for a keyless provider.

    Raises KeyUnavailable (KeyringUnavailable for a missing keyring) naming the variable or
    account and the fix. Whitespace around a key (a stray newline from `$(cat file)`) is never
    part of it, so it is stripped.
    """
    ref = provider.key
    if ref.source == "none":
        return None
    if ref.source == "env":
        value = os.environ.get(ref.name, "")
        register_secret(value)
        if not value.strip():
            said = ENV_EMPTY if ref.name in os.environ else ENV_NOT_SET
            raise KeyUnavailable(
                phrase(said, context=CONTEXT, provider=provider.name, var=ref.name)
            )
        return value.strip()
    if ref.source == "keyring":
        ok, why = keyring_phrase()
        if not ok:
            raise KeyringUnavailable(
                phrase(NO_KEYRING_FOR, context=CONTEXT, provider=provider.name, why=why)
            )
        import keyring
        import keyring.errors

        try:
            stored = keyring.get_password(KEYRING_SERVICE, ref.name)
        except keyring.errors.KeyringError as exc:
            raise KeyringUnavailable(
                phrase(
                    KEYRING_UNREADABLE,
                    context=CONTEXT,
                    provider=provider.name,
                    error=redact(str(exc)),
                )
            ) from None
        if not stored or not stored.strip():
            raise KeyUnavailable(
                phrase(
                    KEYRING_HAS_NONE,
                    context=CONTEXT,
                    provider=provider.name,
                    account=ref.name,
                    service=KEYRING_SERVICE,
                )
            )
        register_secret(stored)
        return stored.strip()
    if ref.source == "session":
        typed = _session_keys.get(provider.name)
        if not typed:
            raise KeyUnavailable(phrase(SESSION_HAS_NONE, context=CONTEXT, provider=provider.name))
        return typed
    raise KeyUnavailable(
        phrase(UNKNOWN_SOURCE, context=CONTEXT, provider=provider.name, source=ref.source)
    )


_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def resolve_headers(provider: Provider) -> dict[str, str]:
    """The provider's extra headers with every `${VAR}` expanded from the environment.

    Expanded values are registered for redaction (a header may carry a credential). Raises
    KeyUnavailable naming the header and the variable when one is not set.
    """
    out: dict[str, str] = {}
    for header, value in provider.headers.items():

        def expand(match: re.Match[str], header: str = header) -> str:
            var = match.group(1)
            text = os.environ.get(var, "")
            if not text.strip():
                raise KeyUnavailable(
                    phrase(
                        HEADER_VAR_NOT_SET,
                        context=CONTEXT,
                        provider=provider.name,
                        header=header,
                        var=var,
                    )
                )
            register_secret(text.strip())
            return text.strip()

        out[header] = _PLACEHOLDER.sub(expand, value)
    return out


# ---- the OS keyring ----


def unavailable(source: str | Phrase, exc: KeyUnavailable) -> Phrase:
    """Where a key should have come from, and why it could not (the doctor's key source)."""
    return phrase(UNAVAILABLE, context=CONTEXT, source=source, why=exc.phrase)


def keyring_status() -> tuple[bool, str]:
    """Whether an OS keyring can hold keys here, and a sentence saying which or why not."""
    ok, why = keyring_phrase()
    return ok, str(why)


def keyring_phrase() -> tuple[bool, Phrase]:
    """keyring_status with its sentence as a Phrase, for the window to say in its language."""
    advice = phrase(
        QT_TRANSLATE_NOOP(
            "Keys", "keep the key in an environment variable and reference it as $VAR"
        ),
        context="Keys",
    )
    missing = QT_TRANSLATE_NOOP("Keys", "no OS keyring is available here ({why}); {advice}")
    try:
        import keyring
        from keyring.backends import chainer, fail
    except ImportError:
        why = phrase(QT_TRANSLATE_NOOP("Keys", "the keyring package is missing"), context="Keys")
        return False, phrase(missing, context="Keys", why=why, advice=advice)
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a broken keyring configuration must not crash the app
        return False, phrase(missing, context="Keys", why=redact(str(exc)), advice=advice)
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    unusable = (
        isinstance(backend, fail.Keyring)
        or (isinstance(backend, chainer.ChainerBackend) and not backend.backends)
        or ".null" in type(backend).__module__
    )
    if unusable:
        why = phrase(
            QT_TRANSLATE_NOOP(
                "Keys",
                "{name}: no Secret Service, KWallet, macOS Keychain or Windows Credential Locker "
                "backend",
            ),
            context="Keys",
            name=name,
        )
        return False, phrase(missing, context="Keys", why=why, advice=advice)
    return True, phrase(QT_TRANSLATE_NOOP("Keys", "OS keyring: {name}"), context="Keys", name=name)


def store_in_keyring(account: str, key: str) -> None:
    """Save `key` in the OS keyring under `account`; never falls back to a plain file.

    Raises KeyringUnavailable with the reason and the env-reference alternative.
    """
    ok, why = keyring_phrase()
    if not ok:
        raise KeyringUnavailable(why)
    key = key.strip()
    if not key:
        raise ValueError("the key is empty; nothing to store")
    register_secret(key)
    import keyring
    import keyring.errors

    try:
        keyring.set_password(KEYRING_SERVICE, account, key)
    except keyring.errors.KeyringError as exc:
        raise KeyringUnavailable(
            phrase(KEYRING_REFUSED, context=CONTEXT, account=account, error=redact(str(exc)))
        ) from None
