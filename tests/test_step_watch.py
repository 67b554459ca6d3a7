"""A capacity step's outcome is decided as soon as enough of its requests are known to miss
(core/load/step_watch.py), by the same Wilson rule that judges a whole step: once it could only
be shown missed (a step that could still end undecided runs on, as the search may confirm it)."""

from __future__ import annotations

from tests.support.request_rows import MS, cancelled_row
from tests.support.request_rows import measured_row as _row
from workbench.core.foundation.metrics import derive
from workbench.core.load.capacity import judge
from workbench.core.load.send_lead import MAX_LEAD_NS
from workbench.core.load.slo import parse_slo
from workbench.core.load.step_watch import StepWatch


def test_a_step_is_decided_exactly_when_the_rest_within_could_not_save_it() -> None:
    slo = parse_slo("ttft_p90:500ms")
    planned = 50
    for misses in range(planned):
        watch = StepWatch(slo, planned)
        rows = [_row(i, 900.0) for i in range(misses)]
        for row in rows:
            watch.finished(row, derive(row))
        best = rows + [_row(planned + i, 100.0) for i in range(planned - misses)]
        step = judge(1.0, [(r, derive(r)) for r in best], slo)
        shown_missed = step.shown and not step.holds
        assert (watch.decided(0) is not None) == shown_missed, misses


def test_waiting_requests_count_once_past_a_growing_limit_only() -> None:
    slo = parse_slo("ttft_p90:500ms,tpot_p90:20ms")
    watch = StepWatch(slo, 50)  # 50 at p90: ten known misses and it can only be shown missed
    for i in range(11):
        watch.started(f"w{i}", 0)
    watch.answered("w0")  # its first token came: its TTFT is known, no longer growing
    (ttft, tpot) = slo
    # a request may start up to MAX_LEAD_NS before it is due (built ahead): not yet past
    assert watch.known_misses(ttft, 500 * MS + MAX_LEAD_NS) == 0
    assert watch.known_misses(ttft, 600 * MS + MAX_LEAD_NS) == 10  # w1..w10 cannot make 500 ms
    assert watch.known_misses(tpot, 600 * MS + MAX_LEAD_NS) == 0  # TPOT does not grow waiting
    assert watch.decided(600 * MS + MAX_LEAD_NS) == "ttft_p90"
    assert watch.decided(400 * MS) is None


def test_a_failed_request_misses_and_a_one_token_answer_is_not_held_to_tpot() -> None:
    slo = parse_slo("tpot_p90:20ms")
    watch = StepWatch(slo, 50)
    failed, short = _row(1, 100.0, ok=False), _row(2, 100.0, tokens=1)
    for row in (failed, short):
        watch.started(row.request_id, 0)
        watch.finished(row, derive(row))
    assert watch.known_misses(slo[0], 10**12) == 1


def test_a_step_ended_before_any_request_finished_says_so_without_empty_counts() -> None:
    from workbench.core.load.capacity_lines import step_words
    from workbench.core.load.capacity_report import step_json

    slo = parse_slo("ttft_p90:3s")
    cancelled = cancelled_row(1)
    step = judge(5.66, [(cancelled, derive(cancelled))], slo, None, ended="ttft_p90")
    said = step_words(step_json(step), "req/s")
    assert (
        said
        == "5.66 req/s: misses (ended early: ttft_p90 could no longer hold; 1 in flight cancelled)"
    )


def test_a_step_ended_early_under_load_has_no_percentile_its_floor_keeps_one() -> None:
    """The requests a step cuts are those still in flight, under load its slowest: the finished
    ones' p90 (300 ms here) reads under the 500 ms limit of a step that missed. One at a time
    (the floor), a request cut short is no slower than the rest: its percentile stands."""
    from workbench.core.load.capacity_lines import step_words
    from workbench.core.load.capacity_report import step_json

    slo = parse_slo("ttft_p90:500ms")
    finished = [_row(i, 300.0) for i in range(12)] + [_row(12, 900.0)]
    cut = [cancelled_row(20 + i) for i in range(6)]
    rows = [(r, derive(r)) for r in finished + cut]
    step = judge(8.0, rows, slo, None, ended="ttft_p90")
    assert not step.holds and step.stopped == 6
    assert step.terms[0].observed_ms is None
    assert "(p " not in step_words(step_json(step), "req/s")
    floor = judge(1, rows, slo, None, ended="ttft_p90", one_at_a_time=True)
    assert floor.terms[0].observed_ms is not None and 300 <= floor.terms[0].observed_ms <= 900
    whole = judge(8.0, [(r, derive(r)) for r in finished], slo)  # nothing cut: measured
    assert whole.terms[0].observed_ms is not None
