"""A capacity search as the terminal says it: the plan and its bound before anything is sent,
the sweep's start after a floor, a line per floor and step as each ends, and the table of every
model's answer at the end (commands/bench.py, commands/progress.py; the Capacity tab shows the
plan too). The section and its sentence are capacity_report's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from workbench.core.load.capacity import (
    CONFIDENCE,
    CONFIRMATIONS,
    FLOOR_REQUESTS,
    Rule,
    step_seconds,
    worst_case,
)
from workbench.core.load.capacity_report import (
    UNITS,
    answer_words,
    error_classes,
    failed_words,
    num_text,
)
from workbench.core.load.slo import Objective


def plan_words(rule: Rule, objectives: Sequence[Objective], models: int) -> str:
    """The search's rule and its bounded cost (its floor included), said before anything is
    sent."""
    steps, requests, seconds = worst_case(rule, objectives)
    unit = UNITS[rule.by]
    minutes = f" and about {seconds / 60:.1f} min" if rule.by == "rate" else ""
    per_model = f"at most {steps} steps, {requests:,} requests{minutes} per model"
    total = f" ({models} models: {requests * models:,} requests)" if models > 1 else ""
    budget = f"; capped at {rule.budget:,} requests per model" if rule.budget else ""
    if rule.follow:
        lowest = step_seconds(rule, rule.low) / 60
        sweep = (
            f"x{2} steps from the lone request's rate (1 / its e2e), down to "
            f"{num_text(rule.low)} {unit} at most (a step there takes {lowest:.1f} min)"
        )
    else:
        sweep = f"x{2} steps from {num_text(rule.start)}"
    return (
        f"Capacity search by {rule.by}, {num_text(rule.low)}..{num_text(rule.high)} {unit}: "
        f"{FLOOR_REQUESTS} requests one at a time first (a model that misses the SLO alone "
        f"is not searched further), then {sweep}, then bisection to within "
        f"{rule.tolerance:.0%}; {rule.requests} requests a step, each objective's share "
        f"within its limit shown at {CONFIDENCE:.0%} confidence (Wilson), a step that "
        f"cannot tell run again at its load (at most {CONFIRMATIONS} a search); "
        f"{per_model}{total}{budget}"
    )


def sweep_words(rule: Rule, objectives: Sequence[Objective], start: float) -> str:
    """After a model's floor: where its sweep starts and the most it can still take (the
    bound said up front, now that the start is known)."""
    steps, requests, seconds = worst_case(replace(rule, follow=False, begin=start), objectives)
    drain = max((o.limit_ms for o in objectives), default=0.0) / 1000
    seconds -= FLOOR_REQUESTS * drain  # the floor is done
    minutes = f" and about {seconds / 60:.1f} min" if rule.by == "rate" else ""
    return (
        f"the sweep starts at {num_text(start)} {UNITS[rule.by]}: at most {steps - 1} more steps, "
        f"{requests - FLOOR_REQUESTS:,} requests{minutes}"
    )


def floor_line(floor: Mapping[str, Any]) -> str:
    """The floor of one model's search: whether its requests one at a time held, each
    objective's count within its limit, and the lone e2e."""
    terms = ", ".join(
        f"{t['objective']} {t['within']}/{t['judged']} within"
        + (f" (p {t['observed_ms']:,.0f} ms)" if t["observed_ms"] is not None else "")
        for t in floor["objectives"]
        if t["judged"]
    )
    e2e = floor.get("e2e_s")
    verdict = "holds" if floor["holds"] else "misses: not searched further"
    return (
        f"one at a time: {verdict}"
        + (f"; {terms}" if terms else "")
        + _failed_part(floor)
        + (f"; alone e2e {e2e:.2f} s" if e2e else "")
    )


def step_words(step: Mapping[str, Any], unit: str) -> str:
    """One step: its load, whether it held, and each objective's count within its limit."""
    terms = ", ".join(
        f"{t['objective']} {t['within']}/{t['judged']} within"
        + (f" (p {t['observed_ms']:,.0f} ms)" if t["observed_ms"] is not None else "")
        for t in step["objectives"]
        if t["judged"]  # a step ended before any request finished has no count to show
    )
    verdict = "holds" if step["holds"] else "misses"
    if step.get("ended_early"):
        verdict += (
            f" (ended early: {step['ended_early']} could no longer hold; "
            f"{step.get('stopped', 0)} in flight cancelled)"
        )
    return (
        f"{num_text(step['load'])} {unit}: {verdict}" + (f"; {terms}" if terms else "")
    ) + _failed_part(step)


def _failed_part(step: Mapping[str, Any]) -> str:
    """The failures of a step or floor, e.g. "; 2 failed (server_error x2)"; "" for none."""
    errors = step.get("errors") or {}
    failed = sum(int(n) for n in errors.values())
    return f"; {failed} failed ({error_classes(errors)})" if failed else ""


def table(capacity: Mapping[str, Any]) -> str:
    """Each model's answer, its floor and its steps, for the terminal."""
    unit = str(capacity.get("unit"))
    lines = []
    for m in capacity.get("models", ()):
        answer = answer_words(m, unit)
        if m["status"] == "floor":
            answer = "fails alone" if failed_words(m) else "misses alone"
        lines.append(f"{m['model']}: {answer} [{m['status']}, {m['requests']} requests]")
        if m.get("floor"):
            lines.append(f"  {floor_line(m['floor'])}")
        lines += [f"  {step_words(s, unit)}" for s in m.get("steps", ())]
    sentence_text = capacity.get("sentence")
    return "\n".join(lines + ([f"\n{sentence_text}."] if sentence_text else []))
