"""The Capacity tab in the window: its plan from the panes' models and the tab's choices.

A search is `bench --capacity`'s: the same Choices (core/run/plan.py), the same Rule (an empty
Range follows the floor, as bench without --capacity-range), the same refusal of an SLO on the
built-in provider at another time scale (core/load/slo.clock_refusal), the same
CapacityRunner (the session wraps its Runner in it for a plan with `capacity`); the "replay
the sample trace" preset runs the trace on its own clock as `bench --dataset` does
(core/run/dataset_plan.py). The progress is the requests done of at most the search's worst case
and the time elapsed: a share or an ETA of that worst case would mislead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from workbench.core.foundation.results import RequestResult
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.capacity import (
    DEFAULT_RANGE,
    MIN_RATE,
    Rule,
    parse_range,
    step_requests,
)
from workbench.core.load.capacity_lines import plan_words
from workbench.core.load.slo import clock_refusal
from workbench.core.planning.device_cost import DeviceCostError, list_price
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.dataset_plan import trace_schedule, with_dataset
from workbench.core.run.plan import LOCAL_PROVIDER, Choices, build_plan
from workbench.ui.capacity_view import CHAT_PROMPT_TOKENS, CapacityView

if TYPE_CHECKING:
    from workbench.ui.window_host import WindowHost

translate = QCoreApplication.translate


def capacity_plan(window: WindowHost, view: CapacityView) -> RunPlan:
    """The plan of the tab's choices over the panes' models; ValueError says what to fix."""
    targets = [p.target for p in window.session.panes if p.target is not None]
    if not targets:
        raise ValueError(translate("CapacityView", "choose a model in a Compare pane first"))
    slo = view.objectives()
    refused = clock_refusal(slo, window.session.builtin.time_scale, app=True)
    if refused and any(t.provider == LOCAL_PROVIDER for t in targets):  # as bench refuses
        raise ValueError(refused)
    choices = Choices(
        prompt_lengths=(CHAT_PROMPT_TOKENS,),
        max_tokens=window.prompt.max_tokens.value(),
        mode="sequential",
        slo=slo,
    )
    if view.preset.currentData() == "trace":
        if view.dataset is None:
            raise ValueError(translate("CapacityView", "choose a trace file with Dataset…"))
        timed = view.dataset.timed  # on its own clock, `speed` times faster
        trace = trace_schedule(view.dataset, view.speed.value()) if timed else None
        return build_plan(
            targets, with_dataset(choices, view.dataset, trace), window.session.catalog
        )
    given = view.range.text().strip()
    follow = not given  # empty: from the floor's rate, as bench without --capacity-range
    low, high = parse_range(given) if given else (MIN_RATE, DEFAULT_RANGE["rate"][1])
    rule = Rule(
        low=low,
        high=high,
        requests=step_requests(slo),
        tolerance=view.tolerance.value() / 100,
        follow=follow,
    )
    template = ArrivalSpec(rate=rule.start, max_requests=rule.requests)  # Poisson, seed 0
    if view.dataset is not None:  # the file's request sizes, at each rate of the search
        choices = with_dataset(choices, view.dataset)
    choices = replace(choices, capacity=rule, arrivals=template, repeats=1)
    return build_plan(targets, choices, window.session.catalog)


def start_capacity(window: WindowHost, view: CapacityView) -> None:
    from workbench.core.transport.provider_connection import ProviderUnusable  # keys, errors

    session = window.session
    if session.running:
        return
    try:
        plan = capacity_plan(window, view)
        # the field is a search's (hidden with the trace preset): bench --device-cost's price
        price = view.device_cost() if plan.capacity is not None else None
    except DeviceCostError as exc:  # its words in the window's language
        _cannot_run(view, partial(exc.phrase.render, translate))
        return
    except ValueError as exc:
        _cannot_run(view, _plan_refusal(window, view, str(exc)))
        return
    if plan.capacity is not None:
        words = plan_words(plan.capacity, plan.slo, len(plan.targets))
    else:
        words = translate("CapacityView", "Replaying %1 requests on the trace's clock").replace(
            "%1", str(plan.total_requests)
        )
    try:
        session.start_run(plan, device_cost=price)
    except ProviderUnusable as exc:  # a key or header: nothing sent, as Run all says
        _cannot_run(view, partial(exc.phrase.render, translate))
        return
    view.active = True  # the run's first event comes after this, on the loop
    view.start(words, [t.model for t in plan.targets])


def _cannot_run(view: CapacityView, why: Callable[[], str]) -> None:
    """The refusal in the status line, said anew when the user switches language."""
    view.say(lambda: translate("CapacityView", "Cannot run: %1").replace("%1", why()))


def _plan_refusal(window: WindowHost, view: CapacityView, said: str) -> Callable[[], str]:
    """What capacity_plan refused, in the language of the moment: the same check again."""

    def words() -> str:
        try:
            capacity_plan(window, view)
        except ValueError as exc:
            return str(exc)
        return said  # fixed since: the refusal as it was said

    return words


def _show_list_price(window: WindowHost, view: CapacityView) -> None:
    """The list price an empty Device price stands for, of the panes' models now."""
    models = [p.target.model for p in window.session.panes if p.target is not None]
    view.set_list_price(list_price(window.session.catalog, models))


def attach_capacity(window: WindowHost) -> CapacityView:
    """Make the tab, put it where it was reserved, and wire it to the session."""
    view = CapacityView()
    window.reserved_tabs.place("capacity", view)
    session = window.session
    view.search_requested.connect(lambda: start_capacity(window, view))
    view.stop_requested.connect(session.stop_all)
    session.capacity_event.connect(view.take)
    # the panes' models are chosen in the Compare tab: shown, this one says their list price
    view.shown.connect(lambda: _show_list_price(window, view))

    def running(on: bool) -> None:
        view.set_running(on)
        if not on:
            view.active = False

    def progress(_done: int, _total: int) -> None:
        if view.active:
            view.set_progress(session.estimate.read(time.perf_counter()))

    def opened(results: list[RequestResult]) -> None:
        """A run opened from the History: its search's charts, when it was one."""
        store = session.store
        if results and store is not None:
            found = store.run(results[0].run_id).config.get("capacity")
            if isinstance(found, dict) and found.get("models"):
                view.show_section(found)

    session.running_changed.connect(running)
    session.progress.connect(progress)
    window.history_view.open_requested.connect(opened)
    return view
