"""The one progress estimate (core/planning/progress_estimate.py) that the CLI and the window show.

Issue 25 item 7: "ETA 0 s, 95 %" at 3.2 s, then 80 %, then 96 %; a 128K run held "96 %, ETA 1 s"
for 7 s while one model was still in prefill. Issue 27: three estimators, each its own figure.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.planning.progress_estimate import ProgressEstimate

SWEEP = [1024 * 2**i for i in range(8)]  # 1K → 128K, one request each
BUDGET = 256


def _seconds(prompt: int) -> tuple[float, float]:
    """A prefill-bound server: 20K prompt tokens/s; 256 output tokens at 400 tok/s."""
    return prompt / 20_000, BUDGET / 400


def test_a_sweep_eta_sees_the_long_prompts_still_to_come() -> None:
    est = ProgressEstimate([(p, BUDGET) for p in SWEEP], started=0.0)
    now = 0.0
    for i, prompt in enumerate(SWEEP[:5]):  # 1K..16K done, one after the other
        ttft, decode = _seconds(prompt)
        est.sent(str(i), prompt, now)
        now += ttft + decode
        est.finished(str(i), prompt, BUDGET, ttft, decode)
    truth = sum(sum(_seconds(p)) for p in SWEEP[5:])
    straight = now / 5 * 3  # every request alike: what the runner's Progress.eta_s said
    assert straight < truth / 3
    reading = est.read(now)
    assert reading.eta_s == pytest.approx(truth, rel=0.05)
    assert reading.done == 5 and reading.total == 8


def test_a_long_prefill_moves_the_share_and_never_completes_it_early() -> None:
    """The 128K request of a 1K,128K run: its prefill is most of the run's time."""
    est = ProgressEstimate([(1024, 64), (131072, 64)], started=0.0)
    est.sent("a", 1024, 0.0)
    est.finished("a", 1024, 64, ttft_s=0.1, decode_s=0.5)
    est.sent("b", 131072, 0.6)  # expected prefill: 128 × 0.1 s = 12.8 s
    shares = [est.read(0.6 + t).percent for t in range(0, 40)]
    assert shares == sorted(shares)
    assert shares[1] < shares[6] < shares[12] < 96  # it moves with the prefill's clock
    assert max(shares) < 100  # still in prefill at 40 s: never 100 %
    est.streamed("b", 32)
    assert est.read(41.0).percent > shares[-1]
    est.finished("b", 131072, 64, ttft_s=40.0, decode_s=1.0)
    last = est.read(42.0)
    assert last.percent == 100 and last.eta_s == 0


def test_a_quick_failure_first_does_not_say_eta_0_s() -> None:
    est = ProgressEstimate([(4096, 64)] * 4, started=0.0)
    for i in range(4):
        est.sent(str(i), 4096, 0.0)
    est.finished("0", 4096, 64)  # refused at once: no TTFT, says nothing of the server's speed
    reading = est.read(0.1)
    assert reading.eta_s is None and 25 <= reading.percent < 100


def test_the_eta_is_the_straight_line_of_the_weighted_work_and_does_not_leap() -> None:
    est = ProgressEstimate([(4096, 64)] * 10, started=0.0)
    for i in range(10):
        est.sent(str(i), 4096, float(i))
        est.streamed(str(i), 64)
        est.finished(str(i), 4096, 64, ttft_s=0.2, decode_s=0.8)
        if i == 3:
            first = est.read(4.0).eta_s
            assert first == pytest.approx(6.0)
    slow = ProgressEstimate([(4096, 64)] * 10, started=0.0)
    for i in range(3):
        slow.sent(str(i), 4096, float(i))
        slow.finished(str(i), 4096, 64, ttft_s=0.2, decode_s=0.8)
    before = slow.read(3.0).eta_s
    assert before is not None
    slow.sent("3", 4096, 3.0)  # a slow request: nothing finishes for 3 s
    after = slow.read(6.0).eta_s
    assert after is not None and after < before + 3.0  # not the raw straight line's leap


EVENT = st.one_of(
    st.tuples(st.just("send"), st.integers(0, 7), st.sampled_from([1024, 32768, 131072])),
    st.tuples(st.just("token"), st.integers(0, 7), st.integers(1, 40)),
    st.tuples(st.just("finish"), st.integers(0, 7), st.floats(0.0, 5.0)),
    st.tuples(st.just("wait"), st.integers(0, 0), st.floats(0.0, 20.0)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(EVENT, max_size=60))
def test_any_sequence_of_events_never_goes_backwards_and_ends_at_100(events) -> None:
    lengths = [1024, 32768, 131072, 1024, 32768, 131072, 1024, 32768]
    est = ProgressEstimate([(n, 128) for n in lengths], started=0.0)
    now, last, prompts = 0.0, 0.0, {}
    finished: set[int] = set()
    for kind, i, value in events:
        if kind == "send" and i not in finished:
            prompts[i] = lengths[i]
            est.sent(str(i), lengths[i], now)
        elif kind == "token":
            est.streamed(str(i), int(value))
        elif kind == "finish" and i not in finished:
            finished.add(i)
            ttft = value if value > 0 else None
            est.finished(str(i), lengths[i], 128, ttft, value / 2 if ttft else None)
        elif kind == "wait":
            now += value
        reading = est.read(now)
        assert last <= reading.fraction <= 1.0
        assert reading.eta_s is None or reading.eta_s >= 0
        last = reading.fraction
    for i in range(8):
        if i not in finished:
            est.finished(str(i), lengths[i], 128, 1.0, 1.0)
    final = est.read(now + 1)
    assert final.fraction == 1.0 and final.percent == 100 and final.eta_s == 0


def test_the_window_never_shows_progress_going_backwards(qapp, loop, tmp_path, qtbot) -> None:
    """The real window on the built-in provider: two 64K prefills in turn, sampled each frame."""
    from gui_driver import click_action, make_window, run_for, set_panes

    window = make_window(loop, tmp_path, time_scale=0.2)
    samples: list[tuple[int, str]] = []

    def sample() -> None:
        if window.session.running and window.progress_bar.maximum():
            samples.append((window.progress_bar.value(), window.eta.text()))

    try:
        set_panes(window, ["sim-70b-mla", "sim-70b-gqa"])
        window.mode.setCurrentIndex(window.mode.findData("sequential"))
        window.prompt.set_tokens(65536)
        window.prompt.max_tokens.setValue(8)
        window.session.frame.connect(sample)
        click_action(window, qtbot, window.run_action)
        final = run_for(loop, window.session._task)
        assert final.status == "finished"
    finally:
        window.close()
        loop.run_until_complete(window.session.close())
    values = [v for v, _ in samples]
    assert len(set(values)) > 10, values  # it moved during the prefills, not in two jumps
    assert values == sorted(values), values
    for value, text in samples:  # the label's share is the bar's: one reading
        shown = int(text.split(" · ")[1].removesuffix(" %"))
        assert shown == value // 10, (value, text)
