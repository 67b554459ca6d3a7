"""The Providers tab: list, add, edit, remove and import providers; test them with the doctor.

The panel holds no provider logic: it builds a `Provider` from its form, hands it to the
`ProviderController` and shows what comes back. A key typed into the form lives in a password
field only until it is saved (to the OS keyring, or this session's memory); no other widget ever
shows a key's text. Errors from the core show in the status line in the core's own words.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from workbench.core.doctor import passed
from workbench.core.i18n import Phrase
from workbench.core.importers import ConfigImportError, FoundKey
from workbench.core.provider_store import check_headers, check_proxy_url
from workbench.core.providers import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    KeyRef,
    ModelEntry,
    Provider,
    ProxyChoice,
    normalize_base_url,
)
from workbench.core.secrets import KeyUnavailable, is_env_var_name, parse_env_reference, redact
from workbench.ui.provider_controller import (
    LOCAL_PROVIDER,
    DoctorReport,
    ImportPreview,
    ModelListError,
    ProviderController,
)

# What the core raises for the user's input or the world; shown in the status line. Anything
# else is a bug and goes to the app's error sink.
EXPECTED_ERRORS = (ConfigImportError, KeyUnavailable, ValueError, OSError, ModelListError)

MARKS = {"ok": "✓", "fail": "✗", "skip": "–"}
_MARK_COLORS = {"ok": "#2e7d32", "fail": "#c62828", "skip": "#808080"}
_ERROR_STYLE = "color: #c62828;"
_WARNING_STYLE = "color: #b71c1c; font-weight: bold;"
_NOTE_STYLE = "color: palette(mid);"
NAME_ROLE = Qt.ItemDataRole.UserRole


def _k(tokens: int) -> str:
    return f"{tokens // 1024}K" if tokens % 1024 == 0 else str(tokens)


class ImportPreviewDialog(QDialog):
    """What an import found and what Save will do (keys redacted); Save or Cancel."""

    def __init__(self, preview: ImportPreview, lines: list[str], parent: QWidget | None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle(self.tr("Import providers"))
        self.resize(760, 520)
        self.summary = QPlainTextEdit()
        self.summary.setReadOnly(True)
        self.summary.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.summary.setPlainText(redact("\n".join(lines)))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        intro = QLabel(
            self.tr(
                "Nothing is saved until you press Save. Keys are never written to a file: "
                "they stay environment-variable references or go to the OS keyring."
            )
        )
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.summary, 1)
        layout.addWidget(self.buttons)


def localized(phrases: tuple[Phrase, ...]) -> str:
    """A doctor's cause or fix in the UI's language."""
    return redact("".join(p.render(QCoreApplication.translate) for p in phrases))


class ProviderPanel(QWidget):
    """Providers: the built-in one first (read-only), then the saved ones, and an editor."""

    providers_changed = Signal(object)  # dict[str, Provider], after save / remove / import

    def __init__(self, controller: ProviderController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._editing: str | None = None  # the saved name of the provider in the form
        self._original: Provider | None = None  # as saved, for fields the form does not show
        self.import_dialog: ImportPreviewDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self.last_report: DoctorReport | None = None
        self._keyring_ok, self._keyring_why = controller.keyring()

        self._build()
        controller.changed.connect(self._on_controller_changed)
        if controller.session is not None:
            controller.session.local_provider_ready.connect(self._on_local_ready)
        self.refresh_list()
        if controller.warning:
            self._error(controller.warning)
        self._select(controller.providers[0].name if controller.providers else LOCAL_PROVIDER)

    # ---- building ----

    def _build(self) -> None:
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Saved providers"))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.currentItemChanged.connect(self._on_current_changed)
        self.add_button = QPushButton(self.tr("Add"))
        self.remove_button = QPushButton(self.tr("Remove"))
        self.import_button = QPushButton(self.tr("Import…"))
        menu = QMenu(self.import_button)
        menu.addAction(self.tr("From a config file…"), self._choose_import_file)
        menu.addAction(self.tr("From a folder (home or tool folder)…"), self._choose_import_folder)
        self.import_button.setMenu(menu)
        self.add_button.clicked.connect(self.new_provider)
        self.remove_button.clicked.connect(self.on_remove)
        list_buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.import_button):
            list_buttons.addWidget(button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.list, 1)
        left_layout.addLayout(list_buttons)

        # the editable fields; disabled as a whole for the built-in provider
        self.edit_box = QGroupBox(self.tr("Provider"))
        form = QFormLayout(self.edit_box)
        self.form = form
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("a short name, e.g. deepseek"))
        form.addRow(self.tr("Name"), self.name_edit)
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("https://host/v1")
        self.base_url_edit.editingFinished.connect(self._preview_url_notes)
        form.addRow(self.tr("Base URL"), self.base_url_edit)
        self.url_notes = QLabel()
        self.url_notes.setWordWrap(True)
        self.url_notes.setStyleSheet(_NOTE_STYLE)
        form.addRow("", self.url_notes)

        self.key_source = QComboBox()
        for source, label in (
            ("env", self.tr("Environment variable")),
            ("keyring", self.tr("OS keyring")),
            ("session", self.tr("This session only (typed, never saved)")),
            ("none", self.tr("No key")),
        ):
            self.key_source.addItem(label, source)
        self.key_source.currentIndexChanged.connect(self._on_key_source)
        form.addRow(self.tr("Key from"), self.key_source)
        self.key_env = QLineEdit()
        self.key_env.setPlaceholderText(self.tr("variable name, e.g. DEEPSEEK_API_KEY"))
        form.addRow(self.tr("Variable"), self.key_env)
        self.key_account = QLineEdit()
        self.key_account.setPlaceholderText(self.tr("keyring account (default: the name)"))
        form.addRow(self.tr("Account"), self.key_account)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("paste the key; it is never shown or written"))
        form.addRow(self.tr("Key"), self.key_edit)
        self.key_note = QLabel()
        self.key_note.setWordWrap(True)
        self.key_note.setStyleSheet(_NOTE_STYLE)
        form.addRow("", self.key_note)
        if not self._keyring_ok:
            model = self.key_source.model()
            index = self.key_source.findData("keyring")
            if isinstance(model, QStandardItemModel):
                item = model.item(index)
                if item is not None:
                    item.setEnabled(False)
            self.key_source.setItemData(index, self._keyring_why, Qt.ItemDataRole.ToolTipRole)

        self.headers_edit = QPlainTextEdit()
        self.headers_edit.setPlaceholderText(
            self.tr("one per line, Name: value — credentials as ${VAR}, e.g. X-Api-Key: ${MY_KEY}")
        )
        self.headers_edit.setFixedHeight(64)
        form.addRow(self.tr("Extra headers"), self.headers_edit)

        self.first_token = QDoubleSpinBox()
        self.stall = QDoubleSpinBox()
        for spin in (self.first_token, self.stall):
            spin.setRange(1.0, 3600.0)
            spin.setDecimals(0)
            spin.setSuffix(self.tr(" s"))
        timeouts = QHBoxLayout()
        timeouts.addWidget(QLabel(self.tr("first token")))
        timeouts.addWidget(self.first_token)
        timeouts.addWidget(QLabel(self.tr("stall")))
        timeouts.addWidget(self.stall)
        timeouts.addStretch(1)
        form.addRow(self.tr("Timeouts"), timeouts)

        self.proxy_mode = QComboBox()
        self.proxy_mode.setAccessibleName(self.tr("Proxy"))
        self.proxy_mode.addItem(self.tr("System (*_PROXY; loopback always direct)"), "system")
        self.proxy_mode.addItem(self.tr("None (direct)"), "none")
        self.proxy_mode.addItem(self.tr("This proxy URL"), "url")
        self.proxy_url = QLineEdit()
        self.proxy_url.setAccessibleName(self.tr("Proxy URL"))
        self.proxy_url.setPlaceholderText("http://proxy:3128")
        self.proxy_mode.currentIndexChanged.connect(self._on_proxy_mode)
        proxy = QHBoxLayout()
        proxy.addWidget(self.proxy_mode)
        proxy.addWidget(self.proxy_url, 1)
        form.addRow(self.tr("Proxy"), proxy)

        self.verify_tls = QCheckBox(self.tr("Verify TLS certificates"))
        self.verify_tls.toggled.connect(self._on_tls)
        form.addRow("", self.verify_tls)
        self.tls_warning = QLabel(
            self.tr(
                "TLS certificate verification is OFF: anyone on the network path can read the "
                "key and the traffic. Turn it back on unless this is a lab."
            )
        )
        self.tls_warning.setWordWrap(True)
        self.tls_warning.setStyleSheet(_WARNING_STYLE)
        form.addRow("", self.tls_warning)

        # models: what the server lists, checked ones are saved with the provider
        models_box = QGroupBox(self.tr("Models"))
        self.fetch_button = QPushButton(self.tr("Fetch models"))
        self.fetch_button.setToolTip(self.tr("Ask the server for its list (GET /models)"))
        self.fetch_button.clicked.connect(self.on_fetch_models)
        self.model_search = QLineEdit()
        self.model_search.setAccessibleName(self.tr("Search models"))
        self.model_search.setPlaceholderText(self.tr("Search models"))
        self.model_search.setClearButtonEnabled(True)
        self.model_search.textChanged.connect(self._filter_models)
        self.models = QListWidget()
        self.models.setAccessibleName(self.tr("Models"))
        self.models.setMinimumHeight(120)
        models_top = QHBoxLayout()
        models_top.addWidget(self.fetch_button)
        models_top.addWidget(self.model_search, 1)
        models_layout = QVBoxLayout(models_box)
        models_layout.addLayout(models_top)
        models_layout.addWidget(self.models, 1)
        models_hint = QLabel(
            self.tr("Checked models are saved with the provider and offered in the panes.")
        )
        models_hint.setStyleSheet(_NOTE_STYLE)
        models_layout.addWidget(models_hint)

        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.on_save)
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.setToolTip(
            self.tr("Run the connection doctor: proxy, DNS, TCP, TLS, /v1, key, model, stream")
        )
        self.test_button.clicked.connect(self.on_test_connection)
        actions = QHBoxLayout()
        actions.addWidget(self.save_button)
        actions.addWidget(self.test_button)
        actions.addStretch(1)

        doctor_box = QGroupBox(self.tr("Connection test"))
        self.doctor_summary = QLabel(self.tr("Not run yet."))
        self.doctor_summary.setWordWrap(True)
        self.checks_table = QTableWidget(0, 3)
        self.checks_table.setAccessibleName(self.tr("Connection checks"))
        self.checks_table.setHorizontalHeaderLabels(["", self.tr("Check"), self.tr("Result")])
        self.checks_table.verticalHeader().hide()
        self.checks_table.setWordWrap(True)
        self.checks_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.checks_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.checks_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.checks_table.setMinimumHeight(160)
        doctor_layout = QVBoxLayout(doctor_box)
        doctor_layout.addWidget(self.doctor_summary)
        doctor_layout.addWidget(self.checks_table, 1)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        editor = QWidget()
        editor_layout = QVBoxLayout(editor)
        editor_layout.addWidget(self.edit_box)
        editor_layout.addWidget(models_box, 1)
        editor_layout.addLayout(actions)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(editor)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(scroll)
        right.addWidget(doctor_box)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        self._on_key_source()
        self._on_proxy_mode()
        self._on_tls(True)

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
                item.setForeground(QBrush(QColor(_MARK_COLORS["fail"])))
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
        self._info(self.tr("New provider: fill in the base URL and where its key comes from."))

    def show_provider(self, provider: Provider, saved: bool = True) -> None:
        self._editing = provider.name if saved else None
        self._original = provider if saved else None
        self.edit_box.setEnabled(True)
        self.save_button.setEnabled(True)
        self.remove_button.setEnabled(saved)
        self.name_edit.setText(provider.name)
        self.base_url_edit.setText(provider.base_url)
        self.url_notes.clear()
        self.key_source.setCurrentIndex(max(0, self.key_source.findData(provider.key.source)))
        self.key_env.setText(provider.key.name if provider.key.source == "env" else "")
        self.key_account.setText(provider.key.name if provider.key.source == "keyring" else "")
        self.key_edit.clear()
        self.headers_edit.setPlainText(
            "\n".join(f"{name}: {value}" for name, value in provider.headers.items())
        )
        self.first_token.setValue(provider.first_token_timeout_s)
        self.stall.setValue(provider.stall_timeout_s)
        self.proxy_mode.setCurrentIndex(max(0, self.proxy_mode.findData(provider.proxy.mode)))
        self.proxy_url.setText(provider.proxy.url if provider.proxy.mode == "url" else "")
        self.verify_tls.setChecked(provider.verify_tls)
        self._on_tls(provider.verify_tls)
        self._on_key_source()
        self._fill_models([], [m.id for m in provider.models], editable=True)
        self._clear_checks()
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

    def _on_key_source(self, _index: int = 0) -> None:
        source = self.key_source.currentData()
        self.form.setRowVisible(self.key_env, source == "env")
        self.form.setRowVisible(self.key_account, source == "keyring")
        self.form.setRowVisible(self.key_edit, source in ("keyring", "session"))
        if source == "keyring":
            self.key_edit.setPlaceholderText(self.tr("paste the key; Save puts it in the keyring"))
            note = self.tr("Stored in the OS keyring, never in a file. %1").replace(
                "%1", self._keyring_why
            )
        elif source == "session":
            self.key_edit.setPlaceholderText(self.tr("paste the key; kept in memory only"))
            note = self.tr("Held in memory until the app closes; you type it again next session.")
        elif source == "env":
            note = self.tr("Read from the environment when needed; the file keeps only the name.")
        else:
            note = self.tr("For servers that need no key.")
        if not self._keyring_ok and source == "keyring":
            note = self.tr("The OS keyring is unavailable here: %1").replace(
                "%1", self._keyring_why
            )
        elif not self._keyring_ok and source == "session":
            note += " " + self.tr(
                "(No OS keyring here: to keep a key between sessions, use an environment variable.)"
            )
        self.key_note.setText(note)

    def _on_proxy_mode(self, _index: int = 0) -> None:
        self.proxy_url.setEnabled(self.proxy_mode.currentData() == "url")

    def _on_tls(self, checked: bool) -> None:
        self.tls_warning.setVisible(not checked)

    def _preview_url_notes(self) -> None:
        text = self.base_url_edit.text()
        if not text.strip():
            self.url_notes.clear()
            return
        try:
            normalized = normalize_base_url(text)
        except ValueError as exc:
            self.url_notes.setText(redact(str(exc)))
            return
        self._show_url_notes(normalized.url, normalized.notes)

    def _show_url_notes(self, url: str, notes: tuple[str, ...]) -> None:
        if not notes:
            self.url_notes.clear()
            return
        self.url_notes.setText(
            redact(self.tr("Saved as %1 — %2").replace("%1", url).replace("%2", "; ".join(notes)))
        )

    def _key_ref(self, name: str) -> KeyRef:
        source = self.key_source.currentData()
        if source == "env":
            raw = self.key_env.text().strip()
            var = parse_env_reference(raw) or raw
            if not is_env_var_name(var):
                # never echo the text: it may be the key itself, pasted into the wrong field
                raise ValueError(
                    self.tr(
                        "the key's environment variable must be a name like MY_API_KEY "
                        "(letters, digits and _); put the key itself in the variable with "
                        "export MY_API_KEY=... before starting the app"
                    )
                )
            return KeyRef("env", var)
        if source == "keyring":
            return KeyRef("keyring", self.key_account.text().strip() or name)
        if source == "session":
            return KeyRef("session")
        return KeyRef("none")

    def _headers(self, name: str) -> dict[str, str]:
        headers: dict[str, str] = {}
        for number, line in enumerate(self.headers_edit.toPlainText().splitlines(), 1):
            if not line.strip():
                continue
            header, sep, value = line.partition(":")
            if not sep or not header.strip():
                raise ValueError(
                    self.tr("extra headers, line %1: write it as Name: value").replace(
                        "%1", str(number)
                    )
                )
            headers[header.strip()] = value.strip()
        check_headers(name, headers)
        return headers

    def _proxy(self, name: str) -> ProxyChoice:
        mode = self.proxy_mode.currentData()
        if mode == "url":
            url = self.proxy_url.text().strip()
            check_proxy_url(name, url)  # refuses a password in the URL, saying where it goes
            old = self._original.proxy if self._original is not None else ProxyChoice()
            return ProxyChoice("url", url, old.password_env if old.mode == "url" else "")
        return ProxyChoice(mode)

    def provider_from_form(self) -> tuple[Provider, tuple[str, ...]]:
        """The provider as the form describes it, and what base-URL normalisation changed.

        Raises ValueError (ProviderConfigError included) in the core's words.
        """
        name = self.name_edit.text().strip()
        if not name:
            raise ValueError(self.tr("a provider needs a name"))
        normalized = normalize_base_url(self.base_url_edit.text())
        base = self._original or Provider(name, normalized.url)
        provider = replace(
            base,
            name=name,
            base_url=normalized.url,
            key=self._key_ref(name),
            headers=self._headers(name),
            first_token_timeout_s=self.first_token.value() or DEFAULT_FIRST_TOKEN_TIMEOUT_S,
            stall_timeout_s=self.stall.value() or DEFAULT_STALL_TIMEOUT_S,
            proxy=self._proxy(name),
            verify_tls=self.verify_tls.isChecked(),
            models=self._checked_models(base),
        )
        return provider, normalized.notes

    def _provider_for_network(self) -> Provider:
        if self.showing_local:
            url = self.controller.local_base_url
            if not url:
                raise ValueError(self.tr("the built-in provider has not started yet"))
            return Provider(LOCAL_PROVIDER, url, KeyRef("none"))
        return self.provider_from_form()[0]

    # ---- models ----

    def _fill_models(self, ids: list[str], checked: list[str], editable: bool) -> None:
        """The server's ids (and the checked ones it does not list) with attention and context."""
        provider = self._original
        self.models.clear()
        listed = set(ids)
        for model_id in list(ids) + [m for m in checked if m not in listed]:
            facts = self.controller.model_facts(model_id, provider)
            parts = [facts.attention or "?"]
            if facts.context_window:
                parts.append(self.tr("%1 ctx").replace("%1", _k(facts.context_window)))
            if not facts.in_catalog:
                parts.append(self.tr("not in the catalog"))
            if ids and model_id not in listed:
                parts.append(self.tr("not listed by the server"))
            item = QListWidgetItem(f"{model_id}    {' · '.join(parts)}")
            item.setData(NAME_ROLE, model_id)
            if editable:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                state = Qt.CheckState.Checked if model_id in checked else Qt.CheckState.Unchecked
                item.setCheckState(state)
            self.models.addItem(item)
        self._filter_models(self.model_search.text())

    def _checked_ids(self) -> list[str]:
        out = []
        for row in range(self.models.count()):
            item = self.models.item(row)
            flags = item.flags()
            if (
                flags & Qt.ItemFlag.ItemIsUserCheckable
                and item.checkState() == Qt.CheckState.Checked
            ):
                out.append(item.data(NAME_ROLE))
        return out

    def _checked_models(self, base: Provider) -> tuple[ModelEntry, ...]:
        return tuple(base.model(i) or ModelEntry(i) for i in self._checked_ids())

    def _filter_models(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.models.count()):
            item = self.models.item(row)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    def visible_models(self) -> list[str]:
        """The model ids the search box lets through (for tests and the status line)."""
        return [
            self.models.item(r).data(NAME_ROLE)
            for r in range(self.models.count())
            if not self.models.item(r).isHidden()
        ]

    def set_model_checked(self, model_id: str, checked: bool = True) -> None:
        for row in range(self.models.count()):
            item = self.models.item(row)
            if item.data(NAME_ROLE) == model_id:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def _doctor_model(self) -> str | None:
        checked = self._checked_ids()
        if checked:
            return checked[0]
        item = self.models.currentItem()
        return None if item is None else item.data(NAME_ROLE)

    # ---- status ----

    def _error(self, message: str | BaseException) -> None:
        self.status.setStyleSheet(_ERROR_STYLE)
        self.status.setText(redact(str(message)))

    def _info(self, message: str) -> None:
        self.status.setStyleSheet("")
        self.status.setText(redact(message))

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
        self._show_url_notes(saved.base_url, notes)
        message = self.tr("Saved '%1' to %2.").replace("%1", saved.name).replace("%2", str(path))
        message = " ".join([message, *self.controller.notices])  # a broken file kept aside
        if saved.key.source == "env":
            if not os.environ.get(saved.key.name, "").strip():
                message += " " + self.tr(
                    "Note: $%1 is not set in this app's environment yet."
                ).replace("%1", saved.key.name)
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
                self._info(self.tr("Nothing removed."))
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
        removed = self.tr("Removed '%1'.").replace("%1", name)
        self._info(" ".join([removed, *self.controller.notices]))
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
            self._info(self.tr("Reading %1…").replace("%1", str(path)))
            preview = await self.controller.preview_import(path)
            dialog = ImportPreviewDialog(preview, self.preview_lines(preview), self)
            self.import_dialog = dialog
            try:
                accepted = await self._wait_for(dialog) == QDialog.DialogCode.Accepted
            finally:
                self.import_dialog = None
                dialog.deleteLater()
            if not accepted:
                self._info(self.tr("Import cancelled: nothing saved."))
                return False
            saved_to = await self.controller.apply_import(preview)
        except EXPECTED_ERRORS as exc:
            self._error(exc)
            return False
        finally:
            self.import_button.setEnabled(True)
        names = ", ".join(p.name for p in preview.plan.providers)
        if saved_to is None:
            self._info(self.tr("Nothing new to save: %1 already saved.").replace("%1", names))
        else:
            message = self.tr("Imported %1 to %2.").replace("%1", names)
            self._info(" ".join([message.replace("%2", str(saved_to)), *self.controller.notices]))
        if preview.plan.providers:
            self._select(preview.plan.providers[0].name)
        return True

    def preview_lines(self, preview: ImportPreview) -> list[str]:
        """The preview in words: providers, base URLs, models, where each key comes from."""
        result, plan = preview.result, preview.plan
        lines = [self.tr("Found: %1 (%2)").replace("%1", result.source).replace("%2", result.kind)]
        for kind, file in result.parts:
            lines.append(self.tr("  read %1 (%2)").replace("%1", file).replace("%2", kind))
        for planned in plan.providers:
            provider = next(
                (p for p in result.providers if p.name == planned.imported_as), planned.provider
            )
            found = result.keys.get(provider.name, FoundKey.missing())
            note = "" if planned.note in ("", "new") else f" — {planned.note}"
            lines += ["", f"{planned.name}  [{planned.action}]{note}"]
            lines.append(self.tr("  base URL  %1").replace("%1", provider.base_url))
            for url_note in result.url_notes.get(provider.name, ()):
                lines.append(self.tr("            note: %1").replace("%1", url_note))
            if not provider.models:
                lines.append(self.tr("  models    (none in the file)"))
            for model in provider.models:
                facts = self.controller.model_facts(model.id, provider)
                ctx = _k(facts.context_window) if facts.context_window else "?"
                lines.append(
                    self.tr("  model     %1  %2, %3 ctx")
                    .replace("%1", model.id)
                    .replace("%2", facts.attention or "?")
                    .replace("%3", ctx)
                )
            if provider.headers:
                lines.append(self.tr("  headers   %1").replace("%1", ", ".join(provider.headers)))
            lines.append(self.tr("  key       from %1").replace("%1", found.describe()))
            key_plan = plan.key_for(planned.name)
            if key_plan is not None:
                lines.append(f"            → {key_plan.message}")
        if any(k.action in ("keyring", "unsaved") for k in plan.keys):
            lines += ["", self.tr("Keyring: %1").replace("%1", preview.keyring)]
        if result.warnings:
            lines += ["", self.tr("Warnings:")]
            lines += [f"  - {w}" for w in result.warnings]
        if not plan.changes:
            lines += ["", self.tr("Nothing new: these providers are already saved.")]
        return [redact(line) for line in lines]

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
        self._clear_checks()
        self.doctor_summary.setText(self.tr("Testing the connection…"))
        try:
            provider = self._provider_for_network()
            report = await self.controller.diagnose(
                provider, key_text=self.key_edit.text(), model=self._doctor_model()
            )
        except EXPECTED_ERRORS as exc:
            self.doctor_summary.setText(self.tr("Not run."))
            self._error(exc)
            return None
        finally:
            self.test_button.setEnabled(True)
        self.show_report(report)
        return report

    def _clear_checks(self) -> None:
        self.checks_table.setRowCount(0)
        self.doctor_summary.setText(self.tr("Not run yet."))
        self.last_report = None

    def show_report(self, report: DoctorReport) -> None:
        """One row per check: mark, name, evidence; failures add the cause and the fix."""
        self.last_report = report
        titles = self._check_titles()
        self.checks_table.setRowCount(len(report.checks))
        for row, check in enumerate(report.checks):
            state = "skip" if check.skipped else ("ok" if check.ok else "fail")
            mark = QTableWidgetItem(MARKS[state])
            mark.setForeground(QBrush(QColor(_MARK_COLORS[state])))
            mark.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            name = QTableWidgetItem(titles.get(check.name, check.name))
            name.setData(NAME_ROLE, check.name)
            name.setToolTip(check.name)
            text = check.evidence
            if state == "fail":
                cause = localized(check.cause_phrases)
                fix = localized(check.fix_phrases)
                text += "\n" + self.tr("Cause: %1").replace("%1", cause)
                text += "\n" + self.tr("Fix: %1").replace("%1", fix)
                name.setForeground(QBrush(QColor(_MARK_COLORS["fail"])))
            details = QTableWidgetItem(redact(text))
            details.setToolTip(redact(text))
            for column, item in enumerate((mark, name, details)):
                self.checks_table.setItem(row, column, item)
        self.checks_table.resizeRowsToContents()
        ran = [c for c in report.checks if not c.skipped]
        failed = [c for c in ran if not c.ok]
        skipped = len(report.checks) - len(ran)
        if passed(report.checks):
            summary = (
                self.tr("✓ All checks passed (%1 passed, %2 skipped).")
                .replace("%1", str(len(ran)))
                .replace("%2", str(skipped))
            )
        else:
            first = failed[0]
            first_fix = localized(first.fix_phrases) or localized(first.cause_phrases)
            summary = (
                self.tr("✗ %1 check(s) failed. First: %2 — %3")
                .replace("%1", str(len(failed)))
                .replace("%2", titles.get(failed[0].name, failed[0].name))
                .replace("%3", first_fix)
            )
        key = report.key_source_shown or report.key_source
        summary += "\n" + self.tr("Key: %1").replace("%1", key)
        for warning in report.warnings:
            summary += "\n" + self.tr("Warning: %1").replace("%1", warning)
        self.doctor_summary.setText(redact(summary))
        self.doctor_summary.setStyleSheet("" if not failed else _ERROR_STYLE)
        self._info(
            self.tr("Connection test: %1 passed, %2 failed, %3 skipped.")
            .replace("%1", str(len(ran) - len(failed)))
            .replace("%2", str(len(failed)))
            .replace("%3", str(skipped))
        )

    def check_row(self, name: str) -> tuple[str, str, str] | None:
        """(mark, title, details) of the check called `name` in the table."""
        for row in range(self.checks_table.rowCount()):
            title = self.checks_table.item(row, 1)
            if title is not None and title.data(NAME_ROLE) == name:
                return (
                    self.checks_table.item(row, 0).text(),
                    title.text(),
                    self.checks_table.item(row, 2).text(),
                )
        return None

    def _check_titles(self) -> dict[str, str]:
        return {
            "base_url": self.tr("Base URL"),
            "proxy": self.tr("Proxy"),
            "dns": self.tr("DNS"),
            "tcp": self.tr("TCP connection"),
            "tls": self.tr("TLS"),
            "models_path": self.tr("API path (/v1)"),
            "auth": self.tr("Key (auth)"),
            "model": self.tr("Model"),
            "stream": self.tr("Streamed reply"),
            "rate_limit": self.tr("Rate limit / quota"),
            "html": self.tr("HTML instead of JSON"),
            "baseline": self.tr("Network round trip"),
        }

    @asyncSlot()
    async def on_fetch_models(self) -> None:
        await self.fetch_models()

    async def fetch_models(self) -> list[str] | None:
        """Ask the server for its model list and show it, saved models kept checked."""
        self.fetch_button.setEnabled(False)
        self._info(self.tr("Asking the server for its models…"))
        local = self.showing_local
        try:
            provider = self._provider_for_network()
            ids = await self.controller.fetch_models(provider, key_text=self.key_edit.text())
        except EXPECTED_ERRORS as exc:
            self._error(exc)
            return None
        finally:
            self.fetch_button.setEnabled(True)
        self._fill_models(ids, [] if local else self._checked_ids(), editable=not local)
        self._info(
            self.tr("%1 model(s) listed by %2.")
            .replace("%1", str(len(ids)))
            .replace("%2", provider.base_url)
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
