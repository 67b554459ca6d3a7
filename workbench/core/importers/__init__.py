"""Importers: providers from configs that users already keep on disk.

`import_path(path)` reads a file or a home folder (`detect` says which kind) into an
`ImportResult`; `plan_save` says what saving it would do, `apply_save` does it. Readers only
read: a key found in a file stays in memory (registered for redaction) until it goes to the
OS keyring; env references stay references. Broken or unknown input raises
`ConfigImportError` naming the file and the field or line, and nothing is half-imported.

Each format's shape is a set of pydantic models checked through the one validation kit
(`_shapes.py` over `core/foundation/validation.py`): a bad value names the file, its line, the
field and what it must be; a bad value that only describes a model is dropped with a warning.

One module per config shape:
- benchmark.py      benchmark_config.json (a gateway setup guide's benchmark scripts)
- toml_client.py    the hand-written TOML client config (the same guide)
- vscode.py         VS Code settings.json with cline.openAi* (a Cline setup guide)
- ccswitch_toml.py  the provider switcher TOML with ${VAR} (the same guide)
- claude.py         Claude Code settings.json (flat and env shapes)
- cline.py          Cline providers.json + models.json, legacy globalState.json + secrets.json
- ccswitch.py       CC Switch cc-switch.db (read-only) and legacy config.json; Codex TOML
"""

from __future__ import annotations

from workbench.core.importers._base import (
    ConfigImportError,
    FoundKey,
    ImportResult,
    NothingToImport,
    is_placeholder,
    strip_jsonc,
)
from workbench.core.importers.benchmark import read_benchmark_config
from workbench.core.importers.ccswitch import (
    read_ccswitch_db,
    read_ccswitch_legacy,
    read_codex_toml,
)
from workbench.core.importers.ccswitch_toml import read_ccswitch_toml
from workbench.core.importers.claude import read_claude_settings
from workbench.core.importers.cline import read_cline_legacy, read_cline_providers
from workbench.core.importers.detect import (
    HOME,
    HOME_STORES,
    KIND_TITLES,
    READERS,
    detect,
    find_sources,
    import_path,
    merge,
)
from workbench.core.importers.save import (
    NO_KEYRING,
    PlannedKey,
    PlannedProvider,
    SavePlan,
    apply_save,
    plan_save,
)
from workbench.core.importers.toml_client import read_toml_client
from workbench.core.importers.vscode import read_vscode_settings

__all__ = [
    "HOME",
    "HOME_STORES",
    "KIND_TITLES",
    "NO_KEYRING",
    "READERS",
    "ConfigImportError",
    "FoundKey",
    "ImportResult",
    "NothingToImport",
    "PlannedKey",
    "PlannedProvider",
    "SavePlan",
    "apply_save",
    "detect",
    "find_sources",
    "import_path",
    "is_placeholder",
    "merge",
    "plan_save",
    "read_benchmark_config",
    "read_ccswitch_db",
    "read_ccswitch_legacy",
    "read_ccswitch_toml",
    "read_claude_settings",
    "read_cline_legacy",
    "read_cline_providers",
    "read_codex_toml",
    "read_toml_client",
    "read_vscode_settings",
    "strip_jsonc",
]
