"""A base URL as the user pastes it, made the one the SDK wants: trimmed, with a scheme, without
credentials, and without an endpoint path an SDK appends itself (each registered protocol's path,
the model list's and the legacy completions'), each change said in words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit, urlunsplit

from workbench.core.access.providers import is_loopback, mask_url_password
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.foundation.redaction import redact, register_secret
from workbench.core.protocols.registry import protocols

# What normalisation changed, said to the user (the import preview, the doctor's evidence):
# marked for the UI's translation files in the context "BaseUrl"; {fields} are data.
_CONTEXT = "BaseUrl"
AROUND_REMOVED = QT_TRANSLATE_NOOP("BaseUrl", "removed spaces or quotes around the URL")
SCHEME_ADDED = QT_TRANSLATE_NOOP("BaseUrl", "added {scheme}:// (the URL had no scheme)")
CREDENTIALS_REMOVED = QT_TRANSLATE_NOOP(
    "BaseUrl", "removed the user name and password (never kept in a URL)"
)
ENDPOINT_REMOVED = QT_TRANSLATE_NOOP(
    "BaseUrl", "removed '{suffix}': that is an endpoint, the SDK appends it to the base URL"
)
QUERY_REMOVED = QT_TRANSLATE_NOOP(
    "BaseUrl", "removed the query string (base URLs take none; keys never go in URLs)"
)
TRAILING_SLASHES = QT_TRANSLATE_NOOP("BaseUrl", "removed trailing slashes")


@dataclass(frozen=True)
class NormalizedUrl:
    url: str
    said: tuple[Phrase, ...]  # what was changed and why, for the user to see in their language
    credentials_removed: bool = False  # a user name or password was taken out (drop mode)
    password: str = field(default="", repr=False, compare=False)  # what was taken out

    @property
    def notes(self) -> tuple[str, ...]:
        """The changes in English (the CLI's words)."""
        return tuple(str(p) for p in self.said)


class BaseUrlError(ValueError):
    """A text that cannot be a base URL; `said` is the message for the window to say in its
    language, str() its English (the CLI's words)."""

    def __init__(self, said: Phrase) -> None:
        self.said = said
        super().__init__(str(said))


class UrlCredentials(BaseUrlError):
    """A base URL with `user:password@` in it, refused where the user enters it."""


EMPTY = QT_TRANSLATE_NOOP("BaseUrl", "the base URL is empty; write it like https://host/v1")
SPACES_INSIDE = QT_TRANSLATE_NOOP(
    "BaseUrl", "'{shown}' has spaces inside it; remove them (https://host/v1)"
)
NOT_HTTP = QT_TRANSLATE_NOOP(
    "BaseUrl", "'{shown}' is not an http(s) URL; write it like https://host/v1"
)
NO_HOST = QT_TRANSLATE_NOOP("BaseUrl", "'{shown}' has no host; write it like https://host/v1")
BAD_PORT = QT_TRANSLATE_NOOP(
    "BaseUrl", "'{shown}' has an invalid port; write it like https://host:8443/v1"
)
CREDENTIALS = QT_TRANSLATE_NOOP(
    "BaseUrl",
    "'{shown}' has a user name or password in it; Attention Workbench never keeps, shows or "
    "sends credentials inside a URL. Remove the 'user:password@' part and give the key as a "
    "reference: export MY_API_KEY=<the password> and pass --api-key-env MY_API_KEY (in the "
    "app: Key from an environment variable or the OS keyring). A gateway behind HTTP Basic "
    "auth takes a header instead: --header 'Authorization=Basic ${{MY_BASIC}}', MY_BASIC "
    "holding base64 of user:password",
)


def _refused(template: str, shown: str = "") -> BaseUrlError:
    return BaseUrlError(phrase(template, context=_CONTEXT, shown=shown))


def _endpoint_suffixes() -> list[str]:
    """The paths an SDK appends to a base URL: each registered protocol's, the model list and
    the legacy completions; longest first, so /chat/completions is not cut as /completions."""
    paths = {p.path for p in protocols()} | {"/completions", "/models"}
    return sorted(paths, key=len, reverse=True)


_NO_SCHEME_USERINFO = re.compile(
    r"^(\s*[\"']?(?![a-z][a-z0-9+.\-]*://)[^\s/@:]*)(?::[^\s@]*)?@(?=[\w.\[-])", re.IGNORECASE
)


def url_credentials_fix(shown: str) -> Phrase:
    """Why a base URL with credentials is refused, and what to do instead."""
    return phrase(CREDENTIALS, context=_CONTEXT, shown=shown)


def normalize_base_url(raw: str, *, drop_credentials: bool = False) -> NormalizedUrl:
    """Trim spaces and trailing slashes; recognise a full endpoint URL pasted as the base URL.

    Raises BaseUrlError (a ValueError) with a fix when the text is not an http(s) URL. A URL
    with no scheme gets https://, or http:// for a loopback host (local servers rarely speak
    TLS). A URL with a user name or password raises UrlCredentials, or with `drop_credentials`
    (loading a file written before this rule) loses them and says so (`credentials_removed`);
    the password is registered for redaction either way.
    """
    shown = redact(_NO_SCHEME_USERINFO.sub(r"\1:***@", mask_url_password(raw)))
    text = raw.strip().strip("\"'").strip()
    notes: list[Phrase] = []
    if text != raw:
        notes.append(phrase(AROUND_REMOVED, context=_CONTEXT))
    if not text:
        raise _refused(EMPTY)
    if re.search(r"\s", text):
        raise _refused(SPACES_INSIDE, shown)
    if not re.match(r"^https?://", text, re.IGNORECASE):
        bare = _NO_SCHEME_USERINFO.sub("", text)  # user:password@host/v1 is found below
        if re.match(r"^[\w.-]+(:\d+)?(/|$)", bare):
            host = re.split(r"[:/]", bare, maxsplit=1)[0]
            scheme = "http" if is_loopback(f"http://{host}") else "https"
            text = f"{scheme}://{text}"
            notes.append(phrase(SCHEME_ADDED, context=_CONTEXT, scheme=scheme))
        else:
            raise _refused(NOT_HTTP, shown)
    parts = urlsplit(text)
    userinfo, _, host = parts.netloc.rpartition("@")
    password = unquote(userinfo.partition(":")[2])
    if userinfo:
        register_secret(password)
        if not drop_credentials:
            raise UrlCredentials(url_credentials_fix(shown))
        notes.append(phrase(CREDENTIALS_REMOVED, context=_CONTEXT))
    if not parts.hostname:
        raise _refused(NO_HOST, shown)
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number 0..65535
    except ValueError:
        raise _refused(BAD_PORT, shown) from None
    path = re.sub(r"/{2,}", "/", parts.path).rstrip("/")
    for suffix in _endpoint_suffixes():
        if path.lower().endswith(suffix):
            path = path[: -len(suffix)]
            notes.append(phrase(ENDPOINT_REMOVED, context=_CONTEXT, suffix=suffix))
            break
    if parts.query or parts.fragment:
        notes.append(phrase(QUERY_REMOVED, context=_CONTEXT))
    if parts.path != path and not any(n.template == ENDPOINT_REMOVED for n in notes):
        notes.append(phrase(TRAILING_SLASHES, context=_CONTEXT))
    return NormalizedUrl(
        urlunsplit((parts.scheme.lower(), host, path, "", "")),
        tuple(notes),
        bool(userinfo),
        password,
    )
