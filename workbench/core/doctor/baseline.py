"""The baseline check: the network round trip that prefill speed subtracts, measured as a run
measures it (core/run/baseline.py): on the chosen protocol's request path, a 1-token streamed
request timed from sending to its first event, with `GET /models` (sent with the protocol's
key header) as the fallback. The evidence names the method used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.checks import checked, skipped
from workbench.core.foundation.i18n import data, phrase
from workbench.core.protocols.wire import model_page
from workbench.core.run.baseline import BASELINE_SAMPLES, Baseline, measure_baseline
from workbench.core.transport.clients import network_baseline_ms

if TYPE_CHECKING:
    import openai

    from workbench.core.doctor.answers import Answer
    from workbench.core.doctor.state import Doctor


async def check_baseline(d: Doctor, client: openai.AsyncOpenAI, models: Answer) -> None:
    """On the chat path when the stream check's model answered; else `GET /models` when it
    answers 200; else nothing to time."""
    served = d.stream_result
    model = served.model if served is not None and served.error_class is None else None
    listed = models.status is not None and models.status < 300 and not models.html
    if model is None and not listed:
        reason = phrase(msg.SKIP_BASELINE_NOTHING_TO_TIME)
        d.add(skipped("baseline", reason, applies=models.status not in (404, 405)))
        return
    if model is not None:
        baseline = await measure_baseline(
            client, model, BASELINE_SAMPLES, protocol=d.protocol, auth=d.auth
        )
    else:  # the list asked with the protocol's key header and version, as the checks asked it
        ms = await network_baseline_ms(
            client,
            BASELINE_SAMPLES,
            d.timeout_s,
            list_once=lambda: model_page(client, d.protocol, d.auth),
        )
        baseline = Baseline(ms, "models") if ms is not None else Baseline()
    url = d.url + ("/models" if baseline.method in (None, "models") else d.spoken.path)
    n = BASELINE_SAMPLES
    if baseline.ms is None:
        timed = (
            phrase(msg.EV_TIMED_STREAMS, model=model) if model is not None else data("GET /models")
        )
        problem = msg.SERVER_ANSWERED_CHAT_ONCE_THEN_FAILED
        if listed:
            if model is not None:
                timed = phrase(msg.EV_TIMED_STREAMS_AND_MODELS, model=model)
            problem = msg.SERVER_ANSWERED_MODELS_ONCE_THEN_FAILED
        d.add(
            checked(
                "baseline",
                False,
                phrase(msg.EV_TIMING_FAILED, timed=timed, count=n),
                phrase(problem),
                phrase(msg.RETRY_IF_REPEATS_REPORT_PROVIDER),
            ),
            url,
        )
        return
    if baseline.method != "models":
        evidence = phrase(
            msg.EV_BASELINE_STREAMS,
            count=n,
            model=model,
            ms=f"{baseline.ms:.1f}",
            method=baseline.method,
        )
    else:
        why = (
            phrase(msg.EV_PATH_GAVE_NO_EVENT, protocol=d.protocol)
            if model is not None
            else phrase(msg.EV_NO_MODEL_ANSWERED)
        )
        evidence = phrase(msg.EV_BASELINE_MODELS, count=n, ms=f"{baseline.ms:.1f}", why=why)
    d.add(checked("baseline", True, evidence), url)
