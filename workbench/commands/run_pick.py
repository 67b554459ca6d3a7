"""The one run of the history that a command names by the start of its id (`history show`,
`history delete`, `import --export-vllm`)."""

from __future__ import annotations

import sys

from workbench.core.foundation.redaction import redact
from workbench.core.foundation.terminal import printable_lines
from workbench.core.history.run_history import RunStore


def one_run(store: RunStore, wanted: str) -> str | None:
    """The one run whose id starts with `wanted`; None (the reason printed) for none or many."""
    matches = [r.run_id for r in store.runs(limit=-1) if r.run_id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    what = "no run" if not matches else f"{len(matches)} runs"
    message = (
        f"{what} in {store.path} match {wanted!r}: give more of the run id "
        "(`workbench history list` shows them)"
    )
    print(f"error: {printable_lines(redact(message))}", file=sys.stderr)
    return None
