"""The Providers tab's form: a provider's name, base URL, key source, headers, timeouts, proxy
and TLS, shown from a `Provider` and read back into one.

A key typed here lives in a password field only until the panel saves it; no other widget ever
shows a key's text. Reading the form raises ValueError in the core's words (or the form's own,
for a line it cannot parse), never echoing what may be a key pasted into the wrong field.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from workbench.core.access.keys import is_env_var_name, parse_env_reference
from workbench.core.access.providers import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    AuthScheme,
    KeyRef,
    Protocol,
    Provider,
    ProxyChoice,
)
from workbench.core.foundation.i18n import Phrase
from workbench.core.foundation.i18n import data as as_data
from workbench.core.foundation.redaction import redact
from workbench.core.protocols.base_url import BaseUrlError, normalize_base_url
from workbench.core.protocols.registry import auth_for, protocol_names
from workbench.core.saved.provider_store import check_headers, check_proxy_url
from workbench.ui.live_label import LiveLabel
from workbench.ui.protocol_choice import protocol_texts
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import show_status

NOTE_STYLE = "color: palette(mid);"


class ProviderForm(Retranslating, QGroupBox):
    """The editable fields of one provider; the panel disables it for the built-in one."""

    def __init__(
        self, keyring_ok: bool, keyring_why: Phrase, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._keyring_ok, self._keyring_why = keyring_ok, keyring_why
        self.form = QFormLayout(self)
        self._build_address()
        self._build_protocol()
        self._build_key()
        self._build_headers_and_timeouts()
        self._build_proxy_and_tls()
        self.retranslate()
        self._on_proxy_mode()
        self._on_tls(True)

    # ---- building (the texts are set in retranslate) ----

    def _build_address(self) -> None:
        self.name_edit = QLineEdit()
        self._row(self.name_edit)
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("https://host/v1")
        self.base_url_edit.editingFinished.connect(self._preview_url_notes)
        self._row(self.base_url_edit)
        self.url_notes = LiveLabel()  # composed again on a language switch
        self.url_notes.setWordWrap(True)
        self.url_notes.setStyleSheet(NOTE_STYLE)
        self.form.addRow("", self.url_notes)

    def _build_protocol(self) -> None:
        self.protocol = QComboBox()
        for protocol in protocol_names():
            self.protocol.addItem("", protocol)
        self.protocol.currentIndexChanged.connect(self._on_protocol)
        self._row(self.protocol)
        self.auth = QComboBox()
        self.auth.addItem("Authorization: Bearer …", "bearer")  # header names: never translated
        self.auth.addItem("x-api-key: …", "x-api-key")
        self._row(self.auth)

    def _build_key(self) -> None:
        self.key_source = QComboBox()
        for source in ("env", "keyring", "session", "none"):
            self.key_source.addItem("", source)
        self.key_source.currentIndexChanged.connect(self._on_key_source)
        self._row(self.key_source)
        self.key_env = QLineEdit()
        self._row(self.key_env)
        self.key_account = QLineEdit()
        self._row(self.key_account)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self._row(self.key_edit)
        self.key_note = QLabel()
        self.key_note.setWordWrap(True)
        self.key_note.setStyleSheet(NOTE_STYLE)
        self.form.addRow("", self.key_note)
        if not self._keyring_ok:
            model = self.key_source.model()
            index = self.key_source.findData("keyring")
            if isinstance(model, QStandardItemModel):
                item = model.item(index)
                if item is not None:
                    item.setEnabled(False)

    def _build_headers_and_timeouts(self) -> None:
        self.headers_edit = QPlainTextEdit()
        self.headers_edit.setFixedHeight(64)
        self._row(self.headers_edit)
        self.first_token = QDoubleSpinBox()
        self.stall = QDoubleSpinBox()
        for spin in (self.first_token, self.stall):
            spin.setRange(1.0, 3600.0)
            spin.setDecimals(0)
        self.first_token_label, self.stall_label = QLabel(), QLabel()
        timeouts = QHBoxLayout()
        timeouts.addWidget(self.first_token_label)
        timeouts.addWidget(self.first_token)
        timeouts.addWidget(self.stall_label)
        timeouts.addWidget(self.stall)
        timeouts.addStretch(1)
        self.timeouts = timeouts
        self._row(timeouts)

    def _build_proxy_and_tls(self) -> None:
        self.proxy_mode = QComboBox()
        for mode in ("system", "none", "url"):
            self.proxy_mode.addItem("", mode)
        self.proxy_url = QLineEdit()
        self.proxy_url.setPlaceholderText("http://proxy:3128")
        self.proxy_mode.currentIndexChanged.connect(self._on_proxy_mode)
        proxy = QHBoxLayout()
        proxy.addWidget(self.proxy_mode)
        proxy.addWidget(self.proxy_url, 1)
        self.proxy = proxy
        self._row(proxy)
        self.verify_tls = QCheckBox()
        self.verify_tls.toggled.connect(self._on_tls)
        self.form.addRow("", self.verify_tls)
        self.tls_warning = QLabel()
        self.tls_warning.setWordWrap(True)
        show_status(self.tls_warning, "failed", bold=True)  # a danger, not a hint
        self.form.addRow("", self.tls_warning)

    # ---- texts ----

    def _row(self, field: QWidget | QHBoxLayout) -> None:
        """A row with a label of its own (the field's name for a screen reader), its text set
        in retranslate."""
        label = QLabel()
        if isinstance(field, QWidget):
            label.setBuddy(field)  # as addRow(text, field) does; a label widget gets none
        self.form.addRow(label, field)

    def _label(self, field: QWidget | QHBoxLayout, text: str) -> None:
        cast(QLabel, self.form.labelForField(field)).setText(text)

    def _item_texts(self, combo: QComboBox, texts: dict[str, str]) -> None:
        """The items' texts by their data; the chosen item stays chosen."""
        for data, text in texts.items():
            combo.setItemText(combo.findData(data), text)

    def retranslate(self) -> None:
        """Every text of the form in the language installed; the values typed stay."""
        self.setTitle(self.tr("Provider"))
        if not self._keyring_ok:  # the disabled keyring choice says why
            index = self.key_source.findData("keyring")
            self.key_source.setItemData(index, self._keyring_said(), Qt.ItemDataRole.ToolTipRole)
        self._label(self.name_edit, self.tr("Name"))
        self.name_edit.setPlaceholderText(self.tr("a short name, e.g. deepseek"))
        self._label(self.base_url_edit, self.tr("Base URL"))
        self._retranslate_protocol()
        self._retranslate_key()
        self.headers_edit.setPlaceholderText(
            self.tr("one per line, Name: value — credentials as ${VAR}, e.g. X-Api-Key: ${MY_KEY}")
        )
        self._label(self.headers_edit, self.tr("Extra headers"))
        for spin in (self.first_token, self.stall):
            spin.setSuffix(self.tr(" s"))
        self.first_token_label.setText(self.tr("first token"))
        self.stall_label.setText(self.tr("stall"))
        self._label(self.timeouts, self.tr("Timeouts"))
        self._retranslate_proxy_and_tls()

    def _retranslate_protocol(self) -> None:
        self.protocol.setAccessibleName(self.tr("Protocol"))
        self._item_texts(self.protocol, protocol_texts())
        self._label(self.protocol, self.tr("Protocol"))
        self.auth.setAccessibleName(self.tr("Auth header"))
        self.auth.setToolTip(
            self.tr("How the key is sent; it follows the protocol unless you change it")
        )
        self._label(self.auth, self.tr("Auth header"))

    def _retranslate_key(self) -> None:
        self._item_texts(
            self.key_source,
            {
                "env": self.tr("Environment variable"),
                "keyring": self.tr("OS keyring"),
                "session": self.tr("This session only (typed, never saved)"),
                "none": self.tr("No key"),
            },
        )
        self._label(self.key_source, self.tr("Key from"))
        self.key_env.setPlaceholderText(self.tr("variable name, e.g. DEEPSEEK_API_KEY"))
        self._label(self.key_env, self.tr("Variable"))
        self.key_account.setPlaceholderText(self.tr("keyring account (default: the name)"))
        self._label(self.key_account, self.tr("Account"))
        self.key_edit.setPlaceholderText(self.tr("paste the key; it is never shown or written"))
        self._label(self.key_edit, self.tr("Key"))
        self._on_key_source()  # the key field's placeholder and the note of the chosen source

    def _retranslate_proxy_and_tls(self) -> None:
        self.proxy_mode.setAccessibleName(self.tr("Proxy"))
        self._item_texts(
            self.proxy_mode,
            {
                "system": self.tr("System (*_PROXY; loopback always direct)"),
                "none": self.tr("None (direct)"),
                "url": self.tr("This proxy URL"),
            },
        )
        self.proxy_url.setAccessibleName(self.tr("Proxy URL"))
        self._label(self.proxy, self.tr("Proxy"))
        self.verify_tls.setText(self.tr("Verify TLS certificates"))
        self.tls_warning.setText(
            self.tr(
                "TLS certificate verification is OFF: anyone on the network path can read the "
                "key and the traffic. Turn it back on unless this is a lab."
            )
        )

    # ---- showing ----

    def show_provider(self, provider: Provider) -> None:
        """Every field from `provider`; the key field starts empty."""
        self.name_edit.setText(provider.name)
        self.base_url_edit.setText(provider.base_url)
        self.url_notes.clear()
        self.protocol.setCurrentIndex(max(0, self.protocol.findData(provider.protocol)))
        auth = auth_for(provider.protocol, provider.auth)
        self.auth.setCurrentIndex(max(0, self.auth.findData(auth)))
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

    def _on_protocol(self, _index: int = 0) -> None:
        # a new protocol brings its own convention (x-api-key for Anthropic, else a bearer token)
        self.auth.setCurrentIndex(max(0, self.auth.findData(auth_for(self._protocol(), None))))

    def _on_key_source(self, _index: int = 0) -> None:
        source = self.key_source.currentData()
        self.form.setRowVisible(self.key_env, source == "env")
        self.form.setRowVisible(self.key_account, source == "keyring")
        self.form.setRowVisible(self.key_edit, source in ("keyring", "session"))
        if source == "keyring":
            self.key_edit.setPlaceholderText(self.tr("paste the key; Save puts it in the keyring"))
        elif source == "session":
            self.key_edit.setPlaceholderText(self.tr("paste the key; kept in memory only"))
        self.key_note.setText(self._key_note(source))

    def _keyring_said(self) -> str:
        """Why the keyring can (not) hold keys, in the language installed."""
        return self._keyring_why.render(QCoreApplication.translate)

    def _key_note(self, source: str) -> str:
        """Where a key from `source` lives, and what the missing keyring changes."""
        if source == "keyring":
            note = self.tr("Stored in the OS keyring, never in a file. %1").replace(
                "%1", self._keyring_said()
            )
        elif source == "session":
            note = self.tr("Held in memory until the app closes; you type it again next session.")
        elif source == "env":
            note = self.tr("Read from the environment when needed; the file keeps only the name.")
        else:
            note = self.tr("For servers that need no key.")
        if not self._keyring_ok and source == "keyring":
            note = self.tr("The OS keyring is unavailable here: %1").replace(
                "%1", self._keyring_said()
            )
        elif not self._keyring_ok and source == "session":
            note += " " + self.tr(
                "(No OS keyring here: to keep a key between sessions, use an environment variable.)"
            )
        return note

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
        except ValueError as exc:  # the core's words, in the window's language when it has them
            said = exc.said if isinstance(exc, BaseUrlError) else as_data(exc)
            self.url_notes.show_text(lambda: redact(said.render(QCoreApplication.translate)))
            return
        self.show_url_notes(normalized.url, normalized.said)

    def show_url_notes(self, url: str, notes: tuple[Phrase, ...]) -> None:
        """What base-URL normalisation changed, beside the field, in the language shown."""
        if not notes:
            self.url_notes.clear()
            return

        def compose() -> str:
            said = "; ".join(n.render(QCoreApplication.translate) for n in notes)
            return redact(self.tr("Saved as %1 — %2").replace("%1", url).replace("%2", said))

        self.url_notes.show_text(compose)

    # ---- reading ----

    def read(self, original: Provider | None) -> tuple[Provider, tuple[Phrase, ...]]:
        """The provider as the form describes it (fields it does not show, models included,
        kept from `original`), and what base-URL normalisation changed.

        Raises ValueError (ProviderConfigError included) in the core's words.
        """
        name = self.name_edit.text().strip()
        if not name:
            raise ValueError(self.tr("a provider needs a name"))
        normalized = normalize_base_url(self.base_url_edit.text())
        provider = replace(
            original or Provider(name, normalized.url),
            name=name,
            base_url=normalized.url,
            key=self._key_ref(name),
            headers=self._headers(name),
            first_token_timeout_s=self.first_token.value() or DEFAULT_FIRST_TOKEN_TIMEOUT_S,
            stall_timeout_s=self.stall.value() or DEFAULT_STALL_TIMEOUT_S,
            proxy=self._proxy(name, original),
            verify_tls=self.verify_tls.isChecked(),
            protocol=self._protocol(),
            auth=self._auth(original),
        )
        return provider, normalized.said

    def _protocol(self) -> Protocol:
        chosen = self.protocol.currentData()
        return chosen if chosen in protocol_names() else "chat"

    def _auth(self, original: Provider | None) -> AuthScheme | None:
        """The chosen header; None when it is the protocol's own, so providers.toml stays short
        and a hand-edited protocol brings its own (a value written there by hand is kept)."""
        chosen: AuthScheme = "x-api-key" if self.auth.currentData() == "x-api-key" else "bearer"
        if original is not None and original.auth == chosen:
            return chosen
        return None if chosen == auth_for(self._protocol(), None) else chosen

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

    def _proxy(self, name: str, original: Provider | None) -> ProxyChoice:
        mode = self.proxy_mode.currentData()
        if mode == "url":
            url = self.proxy_url.text().strip()
            check_proxy_url(name, url)  # refuses a password in the URL, saying where it goes
            old = original.proxy if original is not None else ProxyChoice()
            return ProxyChoice("url", url, old.password_env if old.mode == "url" else "")
        return ProxyChoice(mode)
