"""The baseline check: the network round trip the runner subtracts, measured as the runner does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.clients import network_baseline_ms
from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import (
    Answer,
)
from workbench.core.doctor.checks import checked, skipped
from workbench.core.i18n import phrase

if TYPE_CHECKING:
    import openai

    from workbench.core.doctor.state import Doctor


async def check_baseline(d: Doctor, client: openai.AsyncOpenAI, answer: Answer) -> None:
    if answer.status is None or answer.status >= 300 or answer.html:
        d.add(
            skipped(
                "baseline",
                "GET /models does not answer 200 here: nothing to time",
                applies=answer.status not in (404, 405),
            )
        )
        return
    samples = 3
    baseline = await network_baseline_ms(client, samples, d.timeout_s)
    if baseline is None:
        d.add(
            checked(
                "baseline",
                False,
                f"GET /models failed while timing {samples} round trips",
                phrase(msg.SERVER_ANSWERED_MODELS_ONCE_THEN_FAILED),
                phrase(msg.RETRY_IF_REPEATS_REPORT_PROVIDER),
            )
        )
        return
    d.add(checked("baseline", True, f"median of {samples} GET /models: {baseline:.1f} ms"))
