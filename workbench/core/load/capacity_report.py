"""A capacity search in words and in JSON: run.json's `capacity` section and its one sentence.

The section is what the history keeps of a search (in the run's config) and what run.json
writes (docs/json.md); the sentence is made from the section alone, so the CLI, the Summary
tab and `workbench summary` say the same thing:
"sim-70b-mla serves 11.8 req/s (±0.6) at TTFT p90 ≤ 2 s and TPOT p90 ≤ 50 ms; sim-70b-gqa
4.1 req/s (±0.2); at 32K prompts; $0.79 vs $2.22 per 1,000 requests in device time on 8 × H200
at $3.99 per device-hour". Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.load.capacity import (
    CONFIDENCE,
    FLOOR_REQUESTS,
    Rule,
    Search,
    Step,
    floor_misses,
    worst_case,
)
from workbench.core.load.slo import Objective

UNITS = {"rate": "req/s", "concurrency": "requests at once"}
CONTEXT = "Capacity"  # the sentence's translation context (the UI's .ts)
_FIGURE_WORDS = {"ttft": "TTFT", "ttfc": "TTFC", "tpot": "TPOT", "itl": "ITL", "e2e": "e2e"}


def step_json(step: Step) -> dict[str, Any]:
    return {
        "load": step.load,
        "requests": step.requests,
        "ok": step.ok,
        "holds": step.holds,
        "goodput": step.goodput,
        "met": step.met,
        "stopped": step.stopped,
        "ended_early": step.ended,
        "cost_usd": step.cost_usd,
        "errors": dict(step.errors),
        "objectives": [
            {
                "objective": t.name,
                "limit_ms": t.limit_ms,
                "within": t.within,
                "judged": t.judged,
                "observed_ms": t.observed_ms,
                "wilson_low": round(t.low, 4),
                "wilson_high": round(t.high, 4),
            }
            for t in step.terms
        ],
    }


def floor_json(search: Search) -> dict[str, Any] | None:
    """The requests sent one at a time before the sweep: what they showed, the lone e2e."""
    if search.floor is None:
        return None
    out = step_json(search.floor)
    del out["load"]  # one request in flight, not a rate
    out["holds"] = not floor_misses(search.floor)
    e2e = search.lone_e2e_s
    out["e2e_s"] = None if e2e is None else round(e2e, 4)
    return out


def model_json(
    model: str,
    search: Search,
    more_devices: str | None = None,
    device_cost: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One model's answer: the bracket, its centre and half-width, the floor, every step;
    `more_devices`: the flag that serves the model on more devices, where one exists;
    `device_cost`: the devices of its deployment and their price per device-hour
    (core/planning/device_cost.py), which its cost per 1,000 requests then comes from."""
    held, missed = search.held, search.missed
    capacity = plus_minus = None
    if held is not None and missed is not None:
        capacity, plus_minus = (held + missed) / 2, (missed - held) / 2
        if search.rule.by == "concurrency" and missed - held <= 1:  # whole requests: exact
            capacity, plus_minus = held, 0.0
    elif held is not None:
        capacity = held
    at_held = next((s for s in search.steps if s.load == held), None)
    if device_cost is not None:
        basis = "device_hours"
        per_1000 = _device_hours_per_1000(search.rule.by, at_held, device_cost)
    else:
        basis = "token_prices"
        cost = at_held.cost_usd if at_held is not None else None
        per_1000 = None if cost is None else cost * 1000
    return {
        "model": model,
        "status": search.status or "stopped",
        "capacity": capacity,
        "plus_minus": plus_minus,
        "held": held,
        "missed": missed,
        "requests": search.used,
        "cost_per_1000_usd": per_1000,
        "cost_basis": basis,
        "device_cost": None if device_cost is None else dict(device_cost),
        "floor": floor_json(search),
        "more_devices": more_devices,
        "steps": [step_json(s) for s in search.steps],
    }


def _device_hours_per_1000(
    by: str, at_held: Step | None, device_cost: Mapping[str, Any]
) -> float | None:
    """The deployment's devices x their price per hour, over the requests an hour at the load
    that held: its rate (a search by rate), or the requests/s that met the SLO at the
    concurrency that held (by concurrency). None when the price or the load is unknown."""
    price, devices = device_cost.get("usd_per_hour"), device_cost.get("devices")
    if at_held is None or not isinstance(price, int | float) or not isinstance(devices, int):
        return None
    rate = at_held.load if by == "rate" else at_held.goodput
    if not rate:
        return None
    return devices * price / (rate * 3600) * 1000


def section(
    rule: Rule,
    objectives: Sequence[Objective],
    prompt_tokens: int | None,
    answers: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    """run.json's `capacity`: the rule, the bound on cost, each model's answer, the sentence."""
    steps, requests, seconds = worst_case(rule, objectives)
    out: dict[str, Any] = {
        "by": rule.by,
        "unit": UNITS[rule.by],
        "slo": [{"objective": o.name, "limit_ms": o.limit_ms} for o in objectives],
        "confidence": CONFIDENCE,
        "tolerance": rule.tolerance,
        "range": [rule.low, rule.high],
        "follows_floor": rule.follow,
        "floor_requests": FLOOR_REQUESTS,
        "requests_per_step": rule.requests,
        "budget": rule.budget,
        "worst_case": {"steps": steps, "requests": requests, "seconds": round(seconds, 1)},
        "prompt_tokens": prompt_tokens,
        "models": list(answers),
    }
    out["sentence"] = sentence(out)
    return out


def num_text(value: float) -> str:
    if value == int(value):
        return f"{int(value):,}"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}" if value < 1 else f"{value:.2f}".rstrip("0").rstrip(".")


def _limit(ms: float) -> str:
    return f"{ms / 1000:g} s" if ms >= 1000 else f"{ms:g} ms"


def _measured(ms: float) -> str:
    """A measured figure to three significant digits: 3.06 s, 412 ms."""
    return f"{ms / 1000:.3g} s" if ms >= 1000 else f"{ms:.3g} ms"


Translate = Callable[[str, str], str]  # (context, English template) -> the UI's language


def _say(translate: Translate | None, template: str, **fields: object) -> str:
    """A template marked with QT_TRANSLATE_NOOP("Capacity", ...), in the UI's language."""
    text = translate(CONTEXT, template) if translate is not None else template
    return text.format_map(fields) if fields else text


def _objective(name: str) -> str:
    """`ttft_p90` -> "TTFT p90"."""
    figure, _, pct = name.partition("_")
    return f"{_FIGURE_WORDS.get(figure, figure)} {pct}"


def slo_words(slo: Sequence[Mapping[str, Any]], translate: Translate | None = None) -> str:
    """`ttft_p90` at 3000 ms -> "TTFT p90 ≤ 3 s", joined with "and"."""
    parts = [
        f"{_objective(str(t.get('objective', '')))} ≤ {_limit(float(t.get('limit_ms', 0)))}"
        for t in slo
    ]
    return _say(translate, QT_TRANSLATE_NOOP("Capacity", " and ")).join(parts)


def _unit(unit: str, translate: Translate | None) -> str:
    if unit == UNITS["concurrency"]:
        return _say(translate, QT_TRANSLATE_NOOP("Capacity", "requests at once"))
    return _say(translate, QT_TRANSLATE_NOOP("Capacity", "req/s")) if unit == "req/s" else unit


def answer_words(
    answer: Mapping[str, Any], unit: str, top: bool = True, translate: Translate | None = None
) -> str:
    """One model's capacity as the sentence says it, without the model's name."""
    status, held, missed = answer.get("status"), answer.get("held"), answer.get("missed")
    capacity, pm = answer.get("capacity"), answer.get("plus_minus")
    shown_unit = _unit(unit, translate)
    if capacity is not None and pm is not None:
        shown = num_text(capacity)
        places = len(shown.partition(".")[2])  # the ± to the capacity's last digit
        if pm and round(pm, places) == 0:  # or to the ±'s first: 0.30 (±0.01), not 0.3 (±0.0)
            places = max(places, 1 - math.floor(math.log10(pm)) - 1)
            shown = f"{capacity:.{places}f}"
        return f"{shown} {shown_unit} (±{pm:.{places}f})" if pm else f"{shown} {shown_unit}"
    if held is not None:
        if status == "above" and top:
            return _say(
                translate,
                QT_TRANSLATE_NOOP(
                    "Capacity", "at least {load} {unit} (the top of the range searched)"
                ),
                load=num_text(held),
                unit=shown_unit,
            )
        return _say(
            translate,
            QT_TRANSLATE_NOOP("Capacity", "at least {load} {unit}"),
            load=num_text(held),
            unit=shown_unit,
        )
    if missed is not None:
        return _say(
            translate,
            QT_TRANSLATE_NOOP("Capacity", "under {load} {unit}"),
            load=num_text(missed),
            unit=shown_unit,
        )
    return _say(translate, QT_TRANSLATE_NOOP("Capacity", "not measured"))


def _ranked(models: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    def key(answer: Mapping[str, Any]) -> float:
        value = answer.get("capacity")
        if value is None:
            value = answer.get("missed")
            return -1.0 if value is None else float(value) / 1e9  # under any that held
        return float(value)

    return sorted(models, key=key, reverse=True)


def _floor_terms(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The objectives the floor's requests showed missed (or the one that ended it)."""
    floor = answer.get("floor") or {}
    ended = floor.get("ended_early")
    return [
        t
        for t in floor.get("objectives", ())
        if t.get("objective") == ended
        or float(t.get("wilson_high", 1.0)) < float(str(t["objective"]).partition("_p")[2]) / 100
    ]


def floor_words(
    answer: Mapping[str, Any], tokens: int | None, translate: Translate | None = None
) -> str:
    """A model whose lone requests already miss, and the figure that shows it, e.g.
    "sim-70b-gqa cannot hold TTFT p90 ≤ 3 s at 32K prompts even one request at a time: alone
    its TTFT p90 is 3.06 s"."""
    terms = _floor_terms(answer)
    slo = slo_words(terms, translate)
    failed = failed_words(answer, translate)
    if failed:  # a request that fails alone is a defect to fix, not a limit to loosen
        return _say(
            translate,
            QT_TRANSLATE_NOOP("Capacity", "{model}'s requests fail even one at a time: {failed}"),
            model=answer.get("model"),
            failed=failed,
        )
    figures = []
    for t in terms:
        observed, judged = t.get("observed_ms"), int(t.get("judged", 0))
        if observed is not None:
            figures.append(
                _say(
                    translate,
                    QT_TRANSLATE_NOOP("Capacity", "its {objective} is {value}"),
                    objective=_objective(str(t["objective"])),
                    value=_measured(float(observed)),
                )
            )
        elif judged:
            figures.append(
                _say(
                    translate,
                    QT_TRANSLATE_NOOP("Capacity", "{within} of its {judged} requests within it"),
                    within=t.get("within", 0),
                    judged=judged,
                )
            )
    if not figures:
        figures = [_say(translate, QT_TRANSLATE_NOOP("Capacity", "its requests failed"))]
    fields: dict[str, object] = {
        "model": answer.get("model"),
        "slo": slo,
        "figures": _say(translate, QT_TRANSLATE_NOOP("Capacity", " and ")).join(figures),
    }
    template = QT_TRANSLATE_NOOP(
        "Capacity", "{model} cannot hold {slo} even one request at a time: alone {figures}"
    )
    if tokens is not None:
        template = QT_TRANSLATE_NOOP(
            "Capacity",
            "{model} cannot hold {slo} at {tokens} prompts even one request at a time: alone "
            "{figures}",
        )
        fields["tokens"] = tokens_label(tokens)
    return _say(translate, template, **fields)


def error_classes(errors: Mapping[str, Any]) -> str:
    """A step's failures by class, e.g. "server_error x2, stall x1"."""
    return ", ".join(f"{name} x{count}" for name, count in errors.items())


def failed_words(answer: Mapping[str, Any], translate: Translate | None = None) -> str:
    """How many of the floor's requests failed and why, e.g. "5 of its 5 requests failed
    (server_error x5)"; "" when none failed."""
    floor = answer.get("floor") or {}
    errors = floor.get("errors") or {}
    failed = int(floor.get("requests", 0)) - int(floor.get("ok", 0))
    if failed <= 0 or not errors:
        return ""
    return _say(
        translate,
        QT_TRANSLATE_NOOP("Capacity", "{failed} of its {sent} requests failed ({classes})"),
        failed=failed,
        sent=floor.get("requests"),
        classes=error_classes(errors),
    )


def floor_fix(floored: Sequence[Mapping[str, Any]], translate: Translate | None = None) -> str:
    """What to do about models that miss alone: their failures first (a search over failing
    requests measures nothing); else the flag for more devices where the provider has one
    (the built-in provider's --tp), else in general words."""
    if any(failed_words(m) for m in floored):
        return _say(
            translate,
            QT_TRANSLATE_NOOP(
                "Capacity",
                "Fix what fails first (each row's error_class and error_message say why), then "
                "search again",
            ),
        )
    flag = next((m.get("more_devices") for m in floored if m.get("more_devices")), None)
    if flag and len(floored) > 1:
        template = QT_TRANSLATE_NOOP(
            "Capacity", "Loosen the limit or serve them on more devices ({flag})"
        )
    elif flag:
        template = QT_TRANSLATE_NOOP(
            "Capacity", "Loosen the limit or serve it on more devices ({flag})"
        )
    else:
        template = QT_TRANSLATE_NOOP(
            "Capacity",
            "Loosen the limit, or serve the model faster (more devices, a faster deployment) "
            "or with shorter prompts",
        )
    return _say(translate, template, flag=flag) if flag else _say(translate, template)


def sentence(capacity: Mapping[str, Any], translate: Translate | None = None) -> str:
    """The search's answer in one sentence (the section's own, as planned or as recorded); the
    one home of its wording: with `translate` (the UI's), in the UI's language. A model whose
    requests already miss one at a time is said with its figure and what to do about it."""
    unit = str(capacity.get("unit") or UNITS["rate"])
    every = [m for m in capacity.get("models", ()) if isinstance(m, Mapping)]
    floored = [m for m in every if m.get("status") == "floor"]
    models = _ranked([m for m in every if m.get("status") != "floor"])
    if not models and not floored:
        return ""
    tokens = capacity.get("prompt_tokens")
    tokens = tokens if isinstance(tokens, int) else None
    parts = _searched(capacity, models, unit, tokens, translate) if models else []
    for index, answer in enumerate(floored):
        said_tokens = tokens if not models and index == 0 else None  # once in the sentence
        parts.append(floor_words(answer, said_tokens, translate))
    said = _say(translate, QT_TRANSLATE_NOOP("Capacity", "; ")).join(parts)
    if floored:
        said = _say(
            translate,
            QT_TRANSLATE_NOOP("Capacity", "{sentence}. {fix}"),
            sentence=said,
            fix=floor_fix(floored, translate),
        )
    return said


def _searched(
    capacity: Mapping[str, Any],
    models: Sequence[Mapping[str, Any]],
    unit: str,
    tokens: int | None,
    translate: Translate | None,
) -> list[str]:
    """The sentence's parts for the models searched past their floor."""
    first, rest = models[0], models[1:]
    name, missed = first.get("model"), first.get("missed")
    slo = slo_words(capacity.get("slo", ()), translate)
    if first.get("held") is None and missed is None:  # stopped before any load was judged
        lead = f"{name} {answer_words(first, unit, translate=translate)}"
    elif first.get("held") is None:  # no load tried held
        lead = _say(
            translate,
            QT_TRANSLATE_NOOP("Capacity", "{model} misses the SLO even at {load} {unit} at {slo}"),
            model=name,
            load=num_text(missed or 0),
            unit=_unit(unit, translate),
            slo=slo,
        )
    else:
        lead = _say(
            translate,
            QT_TRANSLATE_NOOP("Capacity", "{model} serves {answer} at {slo}"),
            model=name,
            answer=answer_words(first, unit, translate=translate),
            slo=slo,
        )
    parts = [lead]
    parts += [f"{m.get('model')} {answer_words(m, unit, False, translate)}" for m in rest]
    if tokens is not None:
        parts.append(
            _say(
                translate,
                QT_TRANSLATE_NOOP("Capacity", "at {tokens} prompts"),
                tokens=tokens_label(tokens),
            )
        )
    costs = _cost_words(models, translate)
    if costs:
        parts.append(costs)
    return parts


def _usd(value: float) -> str:
    """$1.20, or two significant digits below ten cents ($0.012): a cost never reads $0.00."""
    return f"${value:,.2f}" if value >= 0.1 or value == 0 else f"${value:.2g}"


def _basis_words(answer: Mapping[str, Any], translate: Translate | None) -> str:
    """What a model's cost per 1,000 requests was found from: its deployment's device time
    ("in device time on 8 × H200 at $3.99 per device-hour") or the catalog's token prices (a section
    written before the basis was recorded had only those)."""
    device = answer.get("device_cost")
    if answer.get("cost_basis") == "device_hours" and isinstance(device, Mapping):
        return _say(
            translate,
            QT_TRANSLATE_NOOP(
                "Capacity", "in device time on {devices} × {gpu} at {price} per device-hour"
            ),
            devices=device.get("devices"),
            gpu=device.get("gpu"),
            price=_usd(float(device.get("usd_per_hour") or 0)),
        )
    return _say(translate, QT_TRANSLATE_NOOP("Capacity", "at token prices"))


def _cost_words(models: Sequence[Mapping[str, Any]], translate: Translate | None) -> str:
    """The costs per 1,000 requests, when every model's is known: side by side ("vs") only
    when all were found on one basis (the same devices at the same price, or token prices);
    else each model's with its own basis, never one against the other."""
    costs = [m.get("cost_per_1000_usd") for m in models]
    if not all(isinstance(c, int | float) for c in costs):
        return ""
    bases = [_basis_words(m, translate) for m in models]
    if len(set(bases)) > 1:
        return _say(translate, QT_TRANSLATE_NOOP("Capacity", "; ")).join(
            _say(
                translate,
                QT_TRANSLATE_NOOP("Capacity", "{model} {cost} per 1,000 requests {basis}"),
                model=m.get("model"),
                cost=_usd(float(c or 0)),
                basis=basis,
            )
            for m, c, basis in zip(models, costs, bases, strict=True)
        )
    shown = list(dict.fromkeys(_usd(float(c or 0)) for c in costs))
    template = (
        QT_TRANSLATE_NOOP("Capacity", "{costs} per 1,000 requests each {basis}")
        if len(shown) == 1 and len(costs) > 1
        else QT_TRANSLATE_NOOP("Capacity", "{costs} per 1,000 requests {basis}")
    )
    costs_text = _say(translate, QT_TRANSLATE_NOOP("Capacity", " vs ")).join(shown)
    return _say(translate, template, costs=costs_text, basis=bases[0])


def sentence_line(capacity: Mapping[str, Any], translate: Translate | None = None) -> str:
    """The sentence as the app shows it: with its full stop ("" when there is none)."""
    said = sentence(capacity, translate)
    return (
        _say(translate, QT_TRANSLATE_NOOP("Capacity", "{sentence}."), sentence=said) if said else ""
    )


def held_rates(capacity: Mapping[str, Any] | None) -> dict[str, float]:
    """A search by rate: each model's highest rate that held (the Summary charts it there)."""
    if not capacity or capacity.get("by") != "rate":
        return {}
    models = capacity.get("models")
    return {
        str(m["model"]): float(m["held"])
        for m in (models if isinstance(models, list) else ())
        if isinstance(m, Mapping) and isinstance(m.get("held"), int | float)
    }
