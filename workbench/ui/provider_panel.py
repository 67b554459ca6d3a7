"""The Providers tab: list, add, edit, remove and import providers; test them with the doctor.

The panel holds no provider logic: it builds a `Provider` from its form, hands it to the
`ProviderController` and shows what comes back. Its parts are widgets of their own: the form
(`provider_form.py`), the model list (`model_list.py`), the connection test
(`connection_test.py`) and the import preview (`import_preview.py`); the panel holds the
provider list, the actions and the status line, and wires the parts together. A key typed into
the form lives in a password field only until it is saved (to the OS keyring, or this session's
memory); no other widget ever shows a key's text. Errors from the core show in the status line
in the core's own words.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from workbench.core.access.keys import KeyUnavailable
from workbench.core.access.providers import KeyRef, ModelEntry, Provider
from workbench.core.foundation.i18n import Phrase
from workbench.core.foundation.redaction import redact
from workbench.core.importers import ConfigImportError
from workbench.ui.connection_test import ConnectionTest
from workbench.ui.import_preview import ImportPreviewDialog
from workbench.ui.live_label import Compose, LiveLabel
from workbench.ui.model_list import ModelList
from workbench.ui.provider_controller import (
    LOCAL_PROVIDER,
    DoctorReport,
    ModelListError,
    ProviderController,
)
from workbench.ui.provider_form import ProviderForm
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import follow_item_status, mark_item, show_status

# What the core raises for the user's input or the world; shown in the status line. Anything
# else is a bug and goes to the app's error sink.
EXPECTED_ERRORS = (ConfigImportError, KeyUnavailable, ValueError, OSError, ModelListError)
NAME_ROLE = Qt.ItemDataRole.UserRole


def _redacted(message: str | BaseException | Compose) -> Compose:
    """How the status line composes `message`, keys redacted: a fixed text (the core's words)
    or one composed in the language shown."""
    said = getattr(message, "phrase", None)
    if isinstance(message, BaseException) and isinstance(said, Phrase):  # marked by the core
        return lambda: redact(said.render(QCoreApplication.translate))
    if isinstance(message, (str, BaseException)):
        text = redact(str(message))
        return lambda: text
    return lambda: redact(message())


class ProviderPanel(Retranslating, QWidget):
    """Providers: the built-in one first (read-only), then the saved ones, and an editor."""

    providers_changed = Signal(object)  # dict[str, Provider], after save / remove / import

    def __init__(self, controller: ProviderController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._editing: str | None = None  # the saved name of the provider in the form
        self._original: Provider | None = None  # as saved, for fields the form does not show
        self.import_dialog: ImportPreviewDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self._keyring_ok, self._keyring_why = controller.keyring()

        self._build()
        self.retranslate()
        controller.changed.connect(self._on_controller_changed)
        if controller.session is not None:
            controller.session.local_provider_ready.connect(self._on_local_ready)
        self.refresh_list()
        if controller.warning:
            self._error(controller.warning)
        self._select(controller.providers[0].name if controller.providers else LOCAL_PROVIDER)

    # ---- building ----

    def _build(self) -> None:
        self.provider_form = ProviderForm(self._keyring_ok, self._keyring_why)
        self.edit_box = self.provider_form  # disabled as a whole for the built-in provider
        self.model_list = ModelList()
        self.model_list.fetch_button.clicked.connect(self.on_fetch_models)
        self.connection_test = ConnectionTest()
        self._expose_parts()
        self.status = LiveLabel()  # composed again on a language switch
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        editor = QWidget()
        editor_layout = QVBoxLayout(editor)
        editor_layout.addWidget(self.provider_form)
        editor_layout.addWidget(self.model_list, 1)
        editor_layout.addLayout(self._build_actions())
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(editor)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(scroll)
        right.addWidget(self.connection_test)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._build_list())
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)

    def _build_list(self) -> QWidget:
        """The providers, and Add / Remove / Import under them."""
        self.list = QListWidget()
        follow_item_status(self.list)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.currentItemChanged.connect(self._on_current_changed)
        self.add_button, self.remove_button = QPushButton(), QPushButton()
        self.import_button = QPushButton()
        menu = QMenu(self.import_button)
        self.import_file_action = menu.addAction("", self._choose_import_file)
        self.import_folder_action = menu.addAction("", self._choose_import_folder)
        self.import_button.setMenu(menu)
        self.add_button.clicked.connect(self.new_provider)
        self.remove_button.clicked.connect(self.on_remove)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.import_button):
            buttons.addWidget(button)
        left = QWidget()
        layout = QVBoxLayout(left)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        return left

    def _build_actions(self) -> QHBoxLayout:
        """Save and Test connection, under the form and the model list."""
        self.save_button = QPushButton()
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.on_save)
        self.test_button = QPushButton()
        self.test_button.clicked.connect(self.on_test_connection)
        actions = QHBoxLayout()
        actions.addWidget(self.save_button)
        actions.addWidget(self.test_button)
        actions.addStretch(1)
        return actions

    def _expose_parts(self) -> None:
        """The parts' widgets under the panel's names, as the app's scripts and tests use them."""
        form, models, test = self.provider_form, self.model_list, self.connection_test
        self.name_edit = form.name_edit
        self.base_url_edit = form.base_url_edit
        self.url_notes = form.url_notes
        self.key_source = form.key_source
        self.key_env = form.key_env
        self.key_edit = form.key_edit
        self.key_note = form.key_note
        self.headers_edit = form.headers_edit
        self.first_token = form.first_token
        self.stall = form.stall
        self.proxy_url = form.proxy_url
        self.verify_tls = form.verify_tls
        self.tls_warning = form.tls_warning
        self.fetch_button = models.fetch_button
        self.model_search = models.model_search
        self.models = models.models
        self.doctor_summary = test.doctor_summary
        self.checks_table = test.checks_table

    def retranslate(self) -> None:
        """The panel's own texts in the language installed: the list, its buttons and the
        status line; the form, the models and the connection test do their own."""
        self.list.setAccessibleName(self.tr("Saved providers"))
        self.add_button.setText(self.tr("Add"))
        self.remove_button.setText(self.tr("Remove"))
        self.import_button.setText(self.tr("Import…"))
        self.import_file_action.setText(self.tr("From a config file…"))
        self.import_folder_action.setText(self.tr("From a folder (home or tool folder)…"))
        self.save_button.setText(self.tr("Save"))
        self.test_button.setText(self.tr("Test connection"))
        self.test_button.setToolTip(
            self.tr("Run the connection doctor: proxy, DNS, TCP, TLS, /v1, key, model, stream")
        )
        self.refresh_list()  # the built-in provider's entry; the selection stays

    # ---- the list ----

    def refresh_list(self) -> None:
        """Rebuild the list: the built-in provider first, then the saved ones."""
        current = self._editing if self._editing is not None else self._selected_name()
        self.list.blockSignals(True)
        self.list.clear()
        url = self.controller.local_base_url or self.tr("starting…")
        local = QListWidgetItem(
            self.tr("%1 (built-in, read-only)\n    %2")
            .replace("%1", LOCAL_PROVIDER)
            .replace("%2", url)
        )
        local.setData(NAME_ROLE, LOCAL_PROVIDER)
        local.setToolTip(self.tr("The built-in provider: simulated models on this machine"))
        self.list.addItem(local)
        for provider in self.controller.providers:
            text = f"{provider.name}\n    {provider.base_url}"
            if not provider.verify_tls:
                text += "\n    " + self.tr("⚠ TLS verification OFF")
            item = QListWidgetItem(redact(text))
            item.setData(NAME_ROLE, provider.name)
            item.setToolTip(redact(provider.key.describe()))
            if not provider.verify_tls:
                mark_item(item, "failed")
            self.list.addItem(item)
        self.list.blockSignals(False)
        if current is not None:
            self._select(current, load=False)

    def _selected_name(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.data(NAME_ROLE)

    def _select(self, name: str, load: bool = True) -> None:
        """Make `name` the current entry; `load` shows it in the form."""
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(NAME_ROLE) == name:
                self.list.blockSignals(True)
                self.list.setCurrentItem(item)
                self.list.blockSignals(False)
                if load:
                    self._on_current_changed(item, None)
                return

    def _on_current_changed(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is None:
            return
        name = item.data(NAME_ROLE)
        if name == LOCAL_PROVIDER:
            self._show_local()
            return
        provider = self.controller.get(name)
        if provider is not None:
            self.show_provider(provider)

    def _on_local_ready(self, _url: str) -> None:
        self.refresh_list()
        if self.showing_local:
            self._show_local()

    def _on_controller_changed(self, providers: dict[str, Provider]) -> None:
        self.refresh_list()
        self.providers_changed.emit(providers)

    # ---- the form ----

    def new_provider(self) -> None:
        """An empty form for a provider that is not saved yet."""
        taken = {p.name for p in self.controller.providers} | {LOCAL_PROVIDER}
        name, n = "new-provider", 2
        while name in taken:
            name, n = f"new-provider-{n}", n + 1
        self.list.clearSelection()
        self.list.setCurrentItem(None)
        self.show_provider(Provider(name, "", KeyRef("env")), saved=False)
        self.name_edit.setFocus()
        self.name_edit.selectAll()
        self._info(
            lambda: self.tr("New provider: fill in the base URL and where its key comes from.")
        )

    def show_provider(self, provider: Provider, saved: bool = True) -> None:
        self._editing = provider.name if saved else None
        self._original = provider if saved else None
        self.edit_box.setEnabled(True)
        self.save_button.setEnabled(True)
        self.remove_button.setEnabled(saved)
        self.provider_form.show_provider(provider)
        self._fill_models([], [m.id for m in provider.models], editable=True)
        self.connection_test.clear()
        if saved and provider.load_notes:  # a password left out of a URL: how to fix it
            self._error(" ".join(provider.load_notes))

    def _show_local(self) -> None:
        self._editing = None
        self._original = None
        self.show_provider(Provider(LOCAL_PROVIDER, self.controller.local_base_url or ""), False)
        self.edit_box.setEnabled(False)
        self.save_button.setEnabled(False)
        self.remove_button.setEnabled(False)
        self._fill_models([m.id for m in self.controller.catalog.simulated()], [], False)

    @property
    def showing_local(self) -> bool:
        return self._selected_name() == LOCAL_PROVIDER and not self.edit_box.isEnabled()

    def provider_from_form(self) -> tuple[Provider, tuple[Phrase, ...]]:
        """The provider as the form and the checked models describe it, and what base-URL
        normalisation changed. Raises ValueError (ProviderConfigError included) in the core's
        words."""
        provider, notes = self.provider_form.read(self._original)
        return replace(provider, models=self.model_list.checked_models(self._original)), notes

    def _provider_for_network(self) -> Provider:
        if self.showing_local:
            url = self.controller.local_base_url
            if not url:
                raise ValueError(self.tr("the built-in provider has not started yet"))
            return Provider(LOCAL_PROVIDER, url, KeyRef("none"))
        return self.provider_from_form()[0]

    # ---- models ----

    def _fill_models(self, ids: list[str], checked: list[str], editable: bool) -> None:
        provider = self._original
        self.model_list.fill(
            ids, checked, editable, lambda model_id: self.controller.model_facts(model_id, provider)
        )

    def visible_models(self) -> list[str]:
        """The model ids the search box lets through (for tests and the status line)."""
        return self.model_list.visible_models()

    def set_model_checked(self, model_id: str, checked: bool = True) -> None:
        self.model_list.set_model_checked(model_id, checked)

    # ---- status ----

    def _error(self, message: str | BaseException | Compose) -> None:
        """An error in the status line: the core's words as they are, or a text composed in
        the language shown (again at each switch)."""
        show_status(self.status, "failed")
        self.status.show_text(_redacted(message))

    def _info(self, message: Compose) -> None:
        show_status(self.status, None)
        self.status.show_text(_redacted(message))

    # ---- actions (async: the widget awaits the controller and shows the outcome) ----

    @asyncSlot()
    async def on_save(self) -> None:
        await self.save()

    async def save(self) -> bool:
        """Save the form; False (with the reason in the status line) when it cannot be."""
        self.save_button.setEnabled(False)
        try:
            provider, notes = self.provider_from_form()
            path = await self.controller.save(
                provider, previous_name=self._editing, key_text=self.key_edit.text()
            )
        except EXPECTED_ERRORS as exc:
            self._error(exc)
            return False
        finally:
            self.save_button.setEnabled(not self.showing_local)
        self.key_edit.clear()
        saved = self.controller.get(provider.name) or provider
        self._select(saved.name, load=False)
        self.show_provider(saved)
        self.provider_form.show_url_notes(saved.base_url, notes)
        notices = list(self.controller.notices)  # a broken file kept aside
        unset = saved.key.source == "env" and not os.environ.get(saved.key.name, "").strip()

        def message() -> str:
            saved_to = self.tr("Saved '%1' to %2.").replace("%1", saved.name)
            text = " ".join([saved_to.replace("%2", str(path)), *notices])
            if unset:
                text += " " + self.tr(
                    "Note: $%1 is not set in this app's environment yet."
                ).replace("%1", saved.key.name)
            return text

        self._info(message)
        return True

    @asyncSlot()
    async def on_remove(self) -> None:
        await self.remove_selected()

    async def remove_selected(self) -> bool:
        """Ask, then forget the provider in the form; False when cancelled or not saved."""
        name = self._editing
        if name is None:
            return False
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Remove provider"),
            self.tr(
                "Remove the provider '%1'? Its key stays where it is (environment or keyring)."
            ).replace("%1", name),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.confirm_box = box
        self.remove_button.setEnabled(False)
        try:
            await self._wait_for(box)
            if box.clickedButton() is not box.button(QMessageBox.StandardButton.Yes):
                self._info(lambda: self.tr("Nothing removed."))
                return False
            await self.controller.remove(name)
        except EXPECTED_ERRORS as exc:
            self._error(exc)
            return False
        finally:
            self.confirm_box = None
            box.deleteLater()
            self.remove_button.setEnabled(self._editing is not None)
        self._editing = None
        self._select(LOCAL_PROVIDER)
        notices = list(self.controller.notices)
        self._info(lambda: " ".join([self.tr("Removed '%1'.").replace("%1", name), *notices]))
        return True

    def _choose_import_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Import providers from a config file"),
            "",
            self.tr("Configs (*.json *.jsonc *.toml *.db);;All files (*)"),
        )
        if path:
            self.on_import(path)

    def _choose_import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Import providers from a folder (e.g. your home folder)")
        )
        if folder:
            self.on_import(folder)

    @asyncSlot(str)
    async def on_import(self, path: str) -> None:
        await self.import_from(path)

    async def import_from(self, path: str) -> bool:
        """Preview what `path` holds in a dialog; save only when the user presses Save."""
        self.import_button.setEnabled(False)
        try:
            self._info(lambda: self.tr("Reading %1…").replace("%1", str(path)))
            preview = await self.controller.preview_import(path)
            dialog = ImportPreviewDialog(preview, self.controller.model_facts, self)
            self.import_dialog = dialog
            try:
                accepted = await self._wait_for(dialog) == QDialog.DialogCode.Accepted
            finally:
                self.import_dialog = None
                dialog.deleteLater()
            if not accepted:
                self._info(lambda: self.tr("Import cancelled: nothing saved."))
                return False
            saved_to = await self.controller.apply_import(preview)
        except EXPECTED_ERRORS as exc:
            self._error(exc)
            return False
        finally:
            self.import_button.setEnabled(True)
        names = ", ".join(p.name for p in preview.plan.providers)
        if saved_to is None:
            self._info(
                lambda: self.tr("Nothing new to save: %1 already saved.").replace("%1", names)
            )
        else:
            where, notices = str(saved_to), list(self.controller.notices)

            def message() -> str:
                imported = self.tr("Imported %1 to %2.").replace("%1", names)
                return " ".join([imported.replace("%2", where), *notices])

            self._info(message)
        if preview.plan.providers:
            self._select(preview.plan.providers[0].name)
        return True

    async def demo_doctor(self) -> DoctorReport | None:
        """For the docs screenshot: a gateway entry with a mistyped model id, then the doctor."""
        url = self.controller.local_base_url or ""
        self.show_provider(
            Provider("my-gateway", url, KeyRef("none"), models=(ModelEntry("sim-70b-gqq"),)),
            saved=False,
        )
        self._fill_models(["sim-70b-gqq"], ["sim-70b-gqq"], editable=True)
        return await self.test_connection()

    @asyncSlot()
    async def on_test_connection(self) -> None:
        await self.test_connection()

    async def test_connection(self) -> DoctorReport | None:
        """Run the doctor on the provider in the form and show its checks."""
        self.test_button.setEnabled(False)
        self.connection_test.clear()
        self.connection_test.show_phase(lambda: self.tr("Testing the connection…"))
        try:
            provider = self._provider_for_network()
            report = await self.controller.diagnose(
                provider, key_text=self.key_edit.text(), model=self.model_list.model_to_test()
            )
        except EXPECTED_ERRORS as exc:
            self.connection_test.show_phase(lambda: self.tr("Not run."))
            self._error(exc)
            return None
        finally:
            self.test_button.setEnabled(True)
        self.show_report(report)
        return report

    @property
    def last_report(self) -> DoctorReport | None:
        return self.connection_test.report

    def show_report(self, report: DoctorReport) -> None:
        """The report in the connection test, and its counts in the status line."""
        ok, failed, skipped = self.connection_test.show_report(report)
        self._info(
            lambda: (
                self.tr("Connection test: %1 passed, %2 failed, %3 skipped.")
                .replace("%1", str(ok))
                .replace("%2", str(failed))
                .replace("%3", str(skipped))
            )
        )

    def check_row(self, name: str) -> tuple[str, str, str] | None:
        """(mark, title, details) of the check called `name` in the table."""
        return self.connection_test.check_row(name)

    @asyncSlot()
    async def on_fetch_models(self) -> None:
        await self.fetch_models()

    async def fetch_models(self) -> list[str] | None:
        """Ask the server for its model list and show it, saved models kept checked."""
        self.fetch_button.setEnabled(False)
        self._info(lambda: self.tr("Asking the server for its models…"))
        local = self.showing_local
        try:
            provider = self._provider_for_network()
            ids = await self.controller.fetch_models(provider, key_text=self.key_edit.text())
        except EXPECTED_ERRORS as exc:
            self._error(exc)
            return None
        finally:
            self.fetch_button.setEnabled(True)
        self._fill_models(ids, [] if local else self.model_list.checked_ids(), editable=not local)
        self._info(
            lambda: (
                self.tr("%1 model(s) listed by %2.")
                .replace("%1", str(len(ids)))
                .replace("%2", provider.base_url)
            )
        )
        return ids

    # ---- plumbing ----

    async def _wait_for(self, dialog: QDialog) -> int:
        """Open `dialog` window-modal and wait for it without a nested event loop."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def done(result: int) -> None:
            if not future.done():
                future.set_result(result)

        dialog.finished.connect(done)
        dialog.open()
        return await future
