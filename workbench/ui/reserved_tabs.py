"""Tabs titled from the first frame whose content is built later (after the first paint)."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QWidget


class ReservedTabs:
    """Empty tabs kept in place for widgets that come later, each under a name."""

    def __init__(self, tabs: QTabWidget) -> None:
        self.tabs = tabs
        self.empty: dict[str, QWidget] = {}

    def reserve(self, name: str) -> None:
        self.empty[name] = QWidget()
        self.tabs.addTab(self.empty[name], "")

    def place(self, name: str, widget: QWidget) -> None:
        """Put `widget` where its tab was reserved (current, if that was), else at the end."""
        reserved = self.empty.pop(name, None)
        index = self.tabs.indexOf(reserved) if reserved is not None else -1
        if reserved is None or index < 0:
            self.tabs.addTab(widget, "")
            return
        current = self.tabs.currentIndex() == index
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, widget, "")
        if current:
            self.tabs.setCurrentIndex(index)
        reserved.deleteLater()
