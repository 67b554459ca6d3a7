"""The model check: is the model on the server's list, and which listed ids are close."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from workbench.core.doctor import messages as msg
from workbench.core.doctor.answers import (
    Answer,
    first_bytes,
)
from workbench.core.doctor.checks import Check, Said, checked, skipped
from workbench.core.foundation.errors import (
    diagnosis,
)
from workbench.core.foundation.i18n import Phrase, data, marked, phrase
from workbench.core.foundation.results import ErrorClass

if TYPE_CHECKING:
    from workbench.core.doctor.state import Doctor


def check_model(d: Doctor, answer: Answer, auth_ok: bool | None) -> list[str] | None:
    """The server's model ids (None when it has no list)."""
    if answer.status is None or answer.status >= 300 or answer.html:
        reason = (
            phrase(msg.SKIP_MODELS_NO_LIST)
            if answer.status in (404, 405)
            else phrase(msg.SKIP_MODELS_NOT_A_LIST, outcome=answer.outcome_said())
        )
        d.add(skipped("model", reason, applies=answer.status not in (404, 405)), answer.url)
        return None
    data = answer.json()
    items = data.get("data") if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(
        isinstance(m, dict) and isinstance(m.get("id"), str) for m in items
    ):
        d.add(_not_a_list(d, answer), answer.url)
        return None
    ids = [str(m["id"]) for m in items]
    listed = ", ".join(ids[:8]) + (" …" if len(ids) > 8 else "")
    if not d.model:
        seen = phrase(msg.EV_MODELS_LISTED, count=len(ids), listed=listed)
        d.add(checked("model", True, seen), answer.url)
        return ids
    if d.model in ids:
        seen = phrase(msg.EV_MODEL_LISTED, model=d.model, count=len(ids))
        d.add(checked("model", True, seen), answer.url)
        return ids
    if isinstance(data, dict) and data.get("has_more") is True:  # Anthropic's list, paged
        more = phrase(msg.SKIP_MODEL_LIST_HAS_MORE, model=d.model, count=len(ids))
        d.add(skipped("model", more, applies=False), answer.url)
        return None
    suggestions = suggest_models(d.model, ids)
    evidence = phrase(msg.EV_MODEL_NOT_LISTED, model=d.model, count=len(ids), listed=listed)
    said = diagnosis(ErrorClass.MODEL_NOT_FOUND, "")
    fix: Said
    if len(suggestions) > 1:
        fix = phrase(
            msg.USE_FIRST_OTHERS_MODEL_IDS_MUST,
            first=suggestions[0],
            others=", ".join(repr(s) for s in suggestions[1:]),
        )
    elif suggestions:
        fix = phrase(
            msg.USE_FIRST_MODEL_IDS_MUST_MATCH,
            first=suggestions[0],
        )
    else:
        fix = marked("ErrorFix", said.fix)
    cause = [marked("ErrorFix", said.cause), Phrase(" ('{model}')", (("model", d.model),))]
    d.add(checked("model", False, evidence, cause, fix), answer.url)
    return ids


def _not_a_list(d: Doctor, answer: Answer) -> Check:
    """The model list answered 200 in a shape that is not the protocol's list."""
    cause, fix = d.spoken.unlisted or (
        msg.MODEL_LIST_NOT_OPENAI_SHAPE_DATA,
        msg.CHECK_BASE_URL_PROVIDER_OPENAI,
    )
    return checked(
        "model",
        False,
        data(f"{answer.label(d.url)} → HTTP {answer.status}: {first_bytes(answer.body, 160)}"),
        phrase(cause),
        phrase(fix),
    )


def suggest_models(model: str, ids: list[str], n: int = 3) -> list[str]:
    """Listed ids close to `model`: the same id in another case, the catalog's aliases of the
    same model, then difflib matches."""
    from workbench.core.models.catalog import load_catalog

    out: list[str] = []

    def add(candidate: str) -> None:
        if candidate in ids and candidate not in out:
            out.append(candidate)

    for candidate in ids:
        if candidate.lower() == model.lower():
            add(candidate)
    try:
        catalog = load_catalog()
    except Exception:  # a broken catalog must not break the doctor
        catalog = None
    if catalog is not None:
        info = catalog.get(model)
        if info is not None:
            for candidate in ids:
                if catalog.get(candidate) is info or candidate in (info.id, *info.aliases):
                    add(candidate)
        for close in catalog.suggest(model, n=10):
            add(close)
    lowered = {i.lower(): i for i in ids}
    for close in difflib.get_close_matches(model.lower(), list(lowered), n=n, cutoff=0.6):
        add(lowered[close])
    return out[:n]
