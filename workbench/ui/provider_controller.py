"""The provider panel's controller: saved providers, imports, the doctor and model lists.

Widgets call these methods and show what comes back; they never read files, the keyring or the
network themselves (docs/architecture.md, rule 4). Network I/O runs on the app's one asyncio loop
(qasync); the keyring and config files, which may block on a desktop prompt or a slow disk, go
to the loop's executor. Errors from the core are raised as they are: their messages are already
written for the user (and redacted), and the panel shows them in its status line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import httpx2
from PySide6.QtCore import QCoreApplication, QFileSystemWatcher, QObject, QTimer, Signal

from workbench.core.access.keys import (
    KeyUnavailable,
    keyring_phrase,
    resolve_headers,
    resolve_key,
    set_session_key,
    store_in_keyring,
    unavailable,
)
from workbench.core.access.providers import Provider
from workbench.core.doctor import Check, diagnose
from workbench.core.foundation.errors import classify_exception
from workbench.core.foundation.i18n import Phrase
from workbench.core.foundation.redaction import redact
from workbench.core.importers import ImportResult, SavePlan, apply_save, import_path, plan_save
from workbench.core.models.catalog import Catalog, load_catalog
from workbench.core.protocols.registry import auth_for
from workbench.core.protocols.wire import model_page
from workbench.core.run.plan import LOCAL_PROVIDER as LOCAL_PROVIDER
from workbench.core.run.plan import ModelFacts, model_facts
from workbench.core.saved.provider_store import (
    ProviderConfigError,
    default_providers_path,
    load_providers,
    save_providers,
)
from workbench.core.transport.clients import make_client
from workbench.core.transport.provider_connection import connect
from workbench.ui.pane_choices import choices_for as choices_for

if TYPE_CHECKING:
    from workbench.ui.compare_controller import CompareController

log = logging.getLogger(__name__)

T = TypeVar("T")
WATCH_SETTLE_MS = 150  # one reload for the writes of one save (temporary file, rename)


class ModelListError(Exception):
    """The server's model list could not be had; the message is the doctor's cause and fix."""


@dataclass(frozen=True)
class ImportPreview:
    """What an import found (`result`) and what saving it would do (`plan`); nothing written."""

    result: ImportResult
    plan: SavePlan
    keyring: Phrase  # keyring_phrase()'s sentence


@dataclass(frozen=True)
class DoctorReport:
    checks: list[Check]
    key_source: str  # where the key came from, in words (never the key)
    warnings: list[Phrase] = field(default_factory=list)  # said in the UI's language
    key_source_shown: str = ""  # the same, in the UI's language


class ProviderController(QObject):
    """Owns the saved provider list; `changed` carries {name: Provider} after every write."""

    changed = Signal(object)  # dict[str, Provider]

    def __init__(
        self,
        session: CompareController | None = None,
        path: Path | None = None,
        catalog: Catalog | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.path = path or default_providers_path()
        self.catalog = catalog or (session.catalog if session is not None else load_catalog())
        self.providers: list[Provider] = []
        self.warning: str | None = None
        self.notices: list[str] = []  # what the last write kept aside (a broken file's copy)
        self.reload()
        self._watch()

    # ---- reading ----

    def reload(self) -> list[Provider]:
        """Read the providers file again; a broken file gives the last good copy and a warning."""
        found = load_providers(self.path)
        self.providers = list(found.providers)
        self.warning = redact(found.warning) if found.warning else None
        if found.warning:
            log.warning("%s", found.warning)
        return self.providers

    def _watch(self) -> None:
        """Read the file again when another program (`workbench providers add`) writes it: the
        folder is watched, as a write replaces the file (a new inode the file watch loses)."""
        self._writing = 0
        self._watcher = QFileSystemWatcher(self)
        self._settle = QTimer(self, singleShot=True, interval=WATCH_SETTLE_MS)
        self._settle.timeout.connect(self._file_changed)
        self._watcher.directoryChanged.connect(self._settle.start)
        self._watcher.fileChanged.connect(self._settle.start)
        self._rewatch()

    def _rewatch(self) -> None:
        folder = self.path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent  # no config folder yet: the CLI's first save makes it
        watched = self._watcher.files() + self._watcher.directories()
        for path in (folder, self.path.parent, self.path):
            if path.exists() and str(path) not in watched:
                self._watcher.addPath(str(path))

    def _file_changed(self) -> None:
        self._rewatch()
        if self._writing:  # our own save: it reads back and tells the window itself
            return
        before = list(self.providers)
        if self.reload() != before:  # our own saves read back the same: nothing to tell
            self.changed.emit(self.as_dict())

    def get(self, name: str) -> Provider | None:
        return next((p for p in self.providers if p.name == name), None)

    def as_dict(self) -> dict[str, Provider]:
        return {p.name: p for p in self.providers}

    @property
    def local_base_url(self) -> str | None:
        return self.session.local_base_url if self.session is not None else None

    def keyring(self) -> tuple[bool, Phrase]:
        """Whether the OS keyring can hold keys here, and the sentence that says why (not)."""
        return keyring_phrase()

    def model_facts(self, model_id: str, provider: Provider | None = None) -> ModelFacts:
        """What the panel shows beside a model id: the provider's own entry, else the catalog's."""
        return model_facts(self.catalog, model_id, provider)

    # ---- writing ----

    async def save(
        self, provider: Provider, *, previous_name: str | None = None, key_text: str = ""
    ) -> Path:
        """Save `provider` (replacing `previous_name` when it was renamed).

        A typed key goes to the OS keyring (source `keyring`) or into this session's memory
        (source `session`) before the file is written, so a saved provider never points at a
        keyring entry that does not exist. Raises ProviderConfigError, KeyringUnavailable.
        """
        name = provider.name.strip()
        if not name:
            raise ProviderConfigError(self.tr("a provider needs a name"))
        if name == LOCAL_PROVIDER:
            raise ProviderConfigError(
                self.tr("'%1' is the built-in provider's name; choose another").replace(
                    "%1", LOCAL_PROVIDER
                )
            )
        clash = self.get(name)
        if clash is not None and name != previous_name:
            raise ProviderConfigError(
                self.tr("a provider named '%1' already exists; choose another name").replace(
                    "%1", name
                )
            )
        provider = replace(provider, name=name)
        key_text = key_text.strip()
        if key_text and provider.key.source == "keyring":
            account = provider.key.name or name
            provider = replace(provider, key=replace(provider.key, name=account))
            await self._off_loop(store_in_keyring, account, key_text)
        elif key_text and provider.key.source == "session":
            set_session_key(name, key_text)
        updated = [p for p in self.providers if p.name not in (previous_name, name)]
        index = next(
            (i for i, p in enumerate(self.providers) if p.name in (previous_name, name)),
            len(self.providers),
        )
        updated.insert(min(index, len(updated)), provider)
        self.notices = []
        path = await self._write(save_providers, updated, self.path, self.notices)
        self.providers = updated
        self.warning = None
        self.changed.emit(self.as_dict())
        return path

    async def remove(self, name: str) -> Path:
        """Forget a provider (a keyring entry stays: it may serve another provider)."""
        if self.get(name) is None:
            raise ProviderConfigError(self.tr("no provider named '%1'").replace("%1", name))
        updated = [p for p in self.providers if p.name != name]
        self.notices = []
        path = await self._write(save_providers, updated, self.path, self.notices)
        self.providers = updated
        set_session_key(name, "")
        self.changed.emit(self.as_dict())
        return path

    # ---- importing ----

    async def preview_import(self, path: str | Path) -> ImportPreview:
        """Read a config file or home folder and plan the save; writes nothing.

        Raises ConfigImportError in the importer's words.
        """
        result = await self._off_loop(import_path, Path(path))
        ok, why = keyring_phrase()
        plan = plan_save(result, list(self.providers), ok)
        return ImportPreview(result, plan, why)

    async def apply_import(self, preview: ImportPreview) -> Path | None:
        """Save what the preview showed; None when there was nothing new to save."""
        if not preview.plan.changes:
            return None
        self.notices = []
        path = await self._write(apply_save, preview.plan, self.path, self.notices)
        self.providers = list(preview.plan.all_providers)
        self.warning = None
        self.changed.emit(self.as_dict())
        return path

    # ---- the network ----

    def _key_for(
        self, provider: Provider, key_text: str
    ) -> tuple[str | None, str | Phrase, str, list[Phrase]]:
        """(key, where it came from in words (a phrase when the UI can say it in its language),
        the same in the UI's language, warnings); a key that cannot be had is a warning, so the
        doctor's auth check can say what is missing."""
        if provider.name == LOCAL_PROVIDER:
            words = self.tr("no key (the built-in provider)")
            return None, words, words, []
        if key_text.strip() and provider.key.source in ("keyring", "session"):
            words = self.tr("typed into the provider form (not saved yet)")
            return key_text, words, words, []
        description = provider.key.description()
        try:
            key = resolve_key(provider)
        except KeyUnavailable as exc:
            said = unavailable(description, exc)
            return None, said, said.render(QCoreApplication.translate), [exc.phrase]
        return key, description, description.render(QCoreApplication.translate), []

    def _headers_for(self, provider: Provider) -> tuple[dict[str, str], list[Phrase]]:
        try:
            return resolve_headers(provider), []
        except KeyUnavailable as exc:
            return dict(provider.headers), [exc.phrase]

    async def diagnose(
        self, provider: Provider, *, key_text: str = "", model: str | None = None
    ) -> DoctorReport:
        """Run the connection doctor on `provider` as the form describes it (saved or not)."""
        api_key, key_source, shown, warnings = self._key_for(provider, key_text)
        headers, header_warnings = self._headers_for(provider)
        checks = await diagnose(
            provider.base_url,
            api_key,
            model,
            headers=headers,
            proxy=provider.proxy,
            verify_tls=provider.verify_tls,
            key_source=key_source,
            protocol=provider.protocol,
            auth=provider.auth,
        )
        return DoctorReport(
            checks,
            redact(str(key_source)),
            [w.map_fields(redact) for w in warnings + header_warnings],
            redact(shown),
        )

    async def fetch_models(self, provider: Provider, *, key_text: str = "") -> list[str]:
        """The ids under GET /models, sorted, asked with the provider's protocol headers (an
        Anthropic server wants `anthropic-version` and, by default, its key as `x-api-key`).

        Raises ProviderUnusable when its key or a header cannot be used (as a run does),
        ModelListError (the doctor's cause
        and fix) when the server does not answer with a list.
        """
        typed = key_text.strip() and provider.key.source in ("keyring", "session")
        connection = connect(provider, key_text.strip() if typed else None)
        client = make_client(
            connection.base_url,
            connection.api_key,
            headers=dict(connection.options.headers),
            proxy=connection.options.proxy,
            verify_tls=connection.options.verify_tls,
        )
        import openai  # loaded on first use: the SDK costs ~1 s to import

        try:
            auth = auth_for(provider.protocol, provider.auth)
            page = await asyncio.wait_for(model_page(client, provider.protocol, auth), 30)
            return sorted({m.id for m in page.data})
        except TimeoutError as exc:
            raise ModelListError(
                redact(
                    self.tr(
                        "GET /models at %1 did not answer within 30 s; run Test connection "
                        "to see where it stops"
                    ).replace("%1", provider.base_url)
                )
            ) from exc
        except (openai.APIError, httpx2.HTTPError, OSError) as exc:  # in the doctor's words
            diag = classify_exception(exc, "", streaming_started=False)
            raise ModelListError(
                redact(
                    self.tr("GET /models at %1 failed: %2")
                    .replace("%1", provider.base_url)
                    .replace("%2", diag.message)
                )
            ) from None
        finally:
            await client.close()

    # ---- plumbing ----

    async def _write(self, fn: Callable[..., T], *args: object) -> T:
        """A write of the providers file: the watch leaves it to the writer, which tells."""
        self._writing += 1
        try:
            return await self._off_loop(fn, *args)
        finally:
            self._writing -= 1

    async def _off_loop(self, fn: Callable[..., T], *args: object) -> T:
        """Blocking local work (keyring, files) in the executor, so the window keeps painting."""
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)
