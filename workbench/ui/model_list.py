"""The Providers tab's model list: what the server lists (Fetch models), searchable, and the
checked ids that are saved with the provider and offered in the panes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.access.providers import ModelEntry, Provider
from workbench.core.foundation.token_counts import tokens_label
from workbench.ui.provider_form import NOTE_STYLE
from workbench.ui.retranslate import Retranslating

ID_ROLE = Qt.ItemDataRole.UserRole


class Facts(Protocol):
    """What the list shows beside a model id (the controller's ModelFacts)."""

    @property
    def attention(self) -> str | None: ...

    @property
    def context_window(self) -> int | None: ...

    @property
    def in_catalog(self) -> bool: ...


class ModelList(Retranslating, QGroupBox):
    """Fetch button, search box and the list; checkable when the provider is editable."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._facts: dict[str, Facts] = {}  # what each listed model's line says about it
        self._listed: set[str] = set()  # the ids the server listed (empty: nothing fetched)
        self.fetch_button = QPushButton()
        self.model_search = QLineEdit()
        self.model_search.setClearButtonEnabled(True)
        self.model_search.textChanged.connect(self._filter)
        self.models = QListWidget()
        self.models.setMinimumHeight(120)
        # a model the server does not list (a gateway's alias, a list cut short) is typed in
        self.add_edit = QLineEdit()
        self.add_button = QPushButton()
        self.add_button.clicked.connect(self._add_typed)
        self.add_edit.returnPressed.connect(self._add_typed)
        self._facts_of: Callable[[str], Facts] | None = None
        top = QHBoxLayout()
        top.addWidget(self.fetch_button)
        top.addWidget(self.model_search, 1)
        typed = QHBoxLayout()
        typed.addWidget(self.add_edit, 1)
        typed.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.models, 1)
        layout.addLayout(typed)
        self.hint = QLabel()
        self.hint.setStyleSheet(NOTE_STYLE)
        layout.addWidget(self.hint)
        self.retranslate()

    def retranslate(self) -> None:
        """Every text in the language installed; the checked models and the search stay."""
        self.setTitle(self.tr("Models"))
        self.fetch_button.setText(self.tr("Fetch models"))
        self.fetch_button.setToolTip(self.tr("Ask the server for its list (GET /models)"))
        self.model_search.setAccessibleName(self.tr("Search models"))
        self.model_search.setPlaceholderText(self.tr("Search models"))
        self.models.setAccessibleName(self.tr("Models"))
        self.add_edit.setAccessibleName(self.tr("Model id to add"))
        self.add_edit.setPlaceholderText(self.tr("a model id the server does not list"))
        self.add_button.setText(self.tr("Add model"))
        self.hint.setText(
            self.tr("Checked models are saved with the provider and offered in the panes.")
        )
        for row in range(self.models.count()):
            item = self.models.item(row)
            item.setText(self._line(item.data(ID_ROLE)))
        self._filter(self.model_search.text())

    def fill(
        self, ids: list[str], checked: list[str], editable: bool, facts: Callable[[str], Facts]
    ) -> None:
        """The server's ids (and the checked ones it does not list) with attention and context."""
        self.models.clear()
        self._facts_of = facts
        for widget in (self.add_edit, self.add_button):
            widget.setEnabled(editable)
        self._listed = set(ids)
        listed = [*ids, *(m for m in checked if m not in self._listed)]
        self._facts = {model_id: facts(model_id) for model_id in listed}
        for model_id in listed:
            item = QListWidgetItem(self._line(model_id))
            item.setData(ID_ROLE, model_id)
            if editable:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                state = Qt.CheckState.Checked if model_id in checked else Qt.CheckState.Unchecked
                item.setCheckState(state)
            self.models.addItem(item)
        self._filter(self.model_search.text())

    def _add_typed(self) -> None:
        """The typed id joins the list, checked (so it is saved and offered in the panes)."""
        model_id = self.add_edit.text().strip()
        if not model_id or self._facts_of is None or not self.add_edit.isEnabled():
            return
        if model_id not in self._facts:
            self._facts[model_id] = self._facts_of(model_id)
            item = QListWidgetItem(self._line(model_id))
            item.setData(ID_ROLE, model_id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            self.models.addItem(item)
        self.set_model_checked(model_id)
        self.add_edit.clear()
        self._filter(self.model_search.text())

    def _line(self, model_id: str) -> str:
        """A model's line: its id, attention, context window and what the list knows of it."""
        found = self._facts[model_id]
        parts = [found.attention or "?"]
        if found.context_window:
            parts.append(self.tr("%1 ctx").replace("%1", tokens_label(found.context_window)))
        if not found.in_catalog:
            parts.append(self.tr("not in the catalog"))
        if self._listed and model_id not in self._listed:
            parts.append(self.tr("not listed by the server"))
        return f"{model_id}    {' · '.join(parts)}"

    def checked_ids(self) -> list[str]:
        out = []
        for row in range(self.models.count()):
            item = self.models.item(row)
            flags = item.flags()
            if (
                flags & Qt.ItemFlag.ItemIsUserCheckable
                and item.checkState() == Qt.CheckState.Checked
            ):
                out.append(item.data(ID_ROLE))
        return out

    def checked_models(self, original: Provider | None) -> tuple[ModelEntry, ...]:
        """The checked models, each with its saved entry (prices, attention) when it has one."""
        return tuple(
            (original.model(i) if original is not None else None) or ModelEntry(i)
            for i in self.checked_ids()
        )

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.models.count()):
            item = self.models.item(row)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    def visible_models(self) -> list[str]:
        """The model ids the search box lets through."""
        return [
            self.models.item(r).data(ID_ROLE)
            for r in range(self.models.count())
            if not self.models.item(r).isHidden()
        ]

    def set_model_checked(self, model_id: str, checked: bool = True) -> None:
        for row in range(self.models.count()):
            item = self.models.item(row)
            if item.data(ID_ROLE) == model_id:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def model_to_test(self) -> str | None:
        """The model the connection test asks for: the first checked, else the selected one."""
        checked = self.checked_ids()
        if checked:
            return checked[0]
        item = self.models.currentItem()
        return None if item is None else item.data(ID_ROLE)
