"""What a pane can pick: the built-in models, then every saved provider's models.

Apart from the Providers tab's controller so that the window's first paint does not wait for
that tab's imports (the doctor, the importers, the keyring)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from workbench.core.run.plan import LOCAL_PROVIDER

if TYPE_CHECKING:
    from workbench.ui.compare_controller import CompareController


def choices_for(session: CompareController) -> list[tuple[str, str]]:
    """Every ("provider|model", label) a pane can pick: built-in models, then saved ones."""
    built_in = QCoreApplication.translate("ProviderController", "%1, built-in")
    choices = [
        (f"{LOCAL_PROVIDER}|{m.id}", f"{m.id}  ({built_in.replace('%1', m.attention)})")
        for m in session.catalog.simulated()
    ]
    for name, provider in session.providers.items():
        for model in provider.models:
            choices.append((f"{name}|{model.id}", f"{model.id}  ({name})"))
    return choices
