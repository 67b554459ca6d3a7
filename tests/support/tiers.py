"""The suite's tiers: which tests are `gui`, `integration` or `slow`, decided here, in one place.

- gui: the test uses a Qt fixture (qtbot, qapp, loop), or its file opens the app in a process
  (GUI_FILES).
- integration: the test's file needs what the fast tier does not install or start: torch and
  Triton (the kernel worker), Ray, the LiteLLM and transformers venvs (INTEGRATION_FILES).
- slow: a file whose tests take seconds each (SLOW_FILES), beside tests marked by hand.
- serial: a test whose assertion has a wall-clock upper bound (a latency, a pace, "within a
  second"): a second pytest-xdist worker on the same cores would make it fail for the load, not
  for a defect (SERIAL_FILES, SERIAL_TESTS). `scripts/test.sh` runs the others with `-n`, then
  these alone, one at a time (`--phase parallel`, then `--phase serial`).

`scripts/test.sh --fast` runs `-m "not gui and not integration and not slow"`; `scripts/test.sh`
alone runs every tier. A file every test of which a `-m` expression leaves out is not even
imported (`pytest_ignore_collect`), so the fast tier needs no torch, ray or extra venv to collect.
Deselected tests are not skipped ones: tests/support/skip_policy.py does not see them.
tests/conftest.py imports these hooks; the markers are registered in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

GUI_FIXTURES = frozenset({"qtbot", "qapp", "loop"})
# files that open the app or Qt in a child process, with no Qt fixture in this one
GUI_FILES = frozenset(
    {
        "test_cold_start.py",
        "test_desktop_entry.py",
        "test_gui_monkey.py",  # the monkey's cases run on a 1600x1000 offscreen screen
        "test_qt_feature_scan.py",
        "test_qt_sanity.py",
        "test_selftest.py",
        "test_single_instance.py",
        "test_window_fits_screen.py",  # the window on a 1024x768 offscreen screen
    }
)
INTEGRATION_FILES = frozenset(
    {
        "test_cluster.py",  # a real local Ray cluster
        "test_gateway_answers.py",  # a real LiteLLM proxy
        "test_gateway_cooldown.py",
        "test_calibration_rows.py",
        "test_litellm_conformance.py",
        "test_litellm_protocols.py",
        "test_litellm_proxy_helper.py",
        "test_local_protocols_litellm.py",
        "test_protocols_end_to_end.py",
        "test_workers.py",
        "test_transformers_serve.py",  # a real `transformers serve`
        "test_kernels_gpu.py",  # torch and Triton: the kernel worker
        "test_kernels_reference.py",
        "test_kernels_triton.py",
        "test_kernels_worker.py",
        "test_kernels_protocol.py",
        "test_kernel_run_controller.py",
        "test_kernel_preset.py",
        "test_measured_timing.py",
        "test_worker_security.py",
        "test_worker_lockout.py",
        "test_decode_span.py",
        "test_stream_reading.py",
        "test_batching.py",  # serve-local under load: hundreds of 32K requests
    }
)
# single tests of otherwise fast files, by node id (file::name)
INTEGRATION_TESTS = frozenset(
    {
        "test_bench_input.py::test_kernels_exits_3_when_rows_fail",  # the kernel worker: torch
    }
)
# files whose tests run the CLI (or a server) as a subprocess, each taking seconds
SLOW_FILES = frozenset(
    {
        "test_attention_twins.py",
        "test_cli.py",
        "test_cli_conventions.py",
        "test_cli_output.py",
        "test_client_load.py",  # 18-46 s each under load 9 (bench --workers, a saturated client)
        "test_csv_streaming.py",
        "test_doctor_protocols.py",
        "test_fidelity.py",
        "test_full_disk.py",  # 10-19 s each under load 9
        "test_gui_monkey.py",
        "test_import_atomic.py",  # 20-24 s each under load 9: a killed import, then a reimport
        "test_import_cli.py",
        "test_import_special_files.py",
        "test_json_docs.py",
        "test_model_list_limit.py",
        "test_one_plan.py",
        "test_peer_files.py",  # 6-33 s each under load 9: the real peer files through the CLI
        "test_progress_display.py",
        "test_provider_store_backups.py",
        "test_release_metadata.py",
        "test_repository_stands_alone.py",
        "test_result_files_fuzz.py",
        "test_result_import.py",
        "test_route_compare.py",
        "test_same_server_order.py",
        "test_send_time.py",
        "test_sse_property.py",
        "test_summary_cli.py",
        "test_summary_imported.py",  # 12-16 s each under load 9
        "test_terminal_output.py",
        "test_unlisted_models.py",
        "test_url_secrets.py",
    }
)
# single slow tests of otherwise fast files (all parameters of each)
SLOW_TESTS = frozenset(
    {
        "test_attention_story.py::test_at_1m_the_sparse_twins_decode_at_least_as_fast_as_gqa",
        "test_attention_story.py::test_bench_of_the_eight_twins_at_1m_runs_or_refuses_each_with_its_memory_reason",
        "test_bench_input.py::test_bench_arguments_only_ever_end_in_a_clean_exit",
        "test_capacity_failures.py::test_a_floor_whose_requests_fail_names_the_failures_and_says_fix_them_first",
        # measured with -n 2 under load 9 (benchmarks/results/test_tiers.md): 6-28 s each
        "test_bounded_import.py::test_run_settings_from_the_file_are_bounded",
        "test_capacity.py::test_capacity_flags_are_refused_without_what_they_need",
        "test_crash_reports.py::test_a_fatal_signal_is_reported_at_the_next_start",
        "test_crash_reports.py::test_a_forced_exception_shows_the_dialog_and_writes_a_crash_file_without_the_key",
        "test_error_body_bomb.py::test_a_gzip_bomb_on_a_500_is_inflated_only_up_to_the_error_body_cap",
        "test_import_cycles.py::test_the_graph_sees_the_imports_it_should",
        "test_import_cycles.py::test_the_import_graph_has_no_cycle",
        "test_json_outputs.py::test_every_json_output_parses",
        "test_leftovers.py::test_the_output_folder_is_0700_and_run_json_0600",
        "test_lengths.py::test_a_run_sends_each_request_its_drawn_sizes",
        "test_long_ids.py::test_a_real_servers_warning_and_failed_rows_cut_a_long_id",
        "test_open_loop.py::test_a_poisson_run_sends_on_its_schedule_and_shows_its_lateness",
        "test_open_loop.py::test_two_workers_send_the_single_process_schedule",
        "test_open_loop.py::test_rate_only_flags_without_a_rate_and_a_rate_without_a_stop_are_refused",
        "test_open_loop.py::test_a_cap_of_one_above_capacity_shows_queueing_from_scheduled_time_only",
        "test_qt_libraries.py::test_the_window_names_the_missing_library_and_the_apt_command",
        "test_qt_libraries.py::test_workbench_alone_says_why_and_runs_the_headless_comparison",
        "test_slo.py::test_goodput_is_counted_from_the_rows_met_and_missed",
        "test_doctor.py::test_cli_json_exit_codes_and_no_key_text",
        "test_hostile_bench.py::test_bench_with_a_hostile_model_exits_3_and_keeps_the_healthy_rows",
        "test_hostile_bench.py::test_bench_ends_a_slow_endless_stream_at_the_default_total_limit",
        "test_hostile_bench.py::test_bench_names_the_new_address_of_a_redirecting_server",
        "test_hostile_bench.py::test_bench_with_bad_usage_values_succeeds_with_estimated_usage",
        "test_hostile_streams.py::test_the_doctor_survives_a_server_that_never_stops_talking",
        "test_importers.py::test_random_ccswitch_db_rows_raise_only_config_import_error",
        "test_importers.py::test_mutated_real_json_configs_raise_only_config_import_error",
        "test_importers.py::test_random_toml_raises_only_config_import_error",
        "test_kernels_view.py::test_importing_the_view_and_window_never_imports_torch",
        "test_local_protocols.py::test_serve_local_process_takes_x_api_key_on_messages",
        "test_local_server.py::test_256_concurrent_streams",
        "test_providers.py::test_user_comments_and_layout_survive_providers_add",
        "test_run_reliability.py::test_a_locked_history_is_waited_for_without_freezing_the_measurements",
        "test_run_reliability.py::test_a_store_that_stays_locked_fails_the_run_loudly_and_every_sent_request_has_a_row",
        "test_prompts.py::test_shipped_corpus_is_what_the_generator_makes",
        "test_providers.py::test_providers_add_list_show_export_remove",
        "test_providers.py::test_bench_and_models_with_a_saved_provider_and_env_key",
    }
)


# Files whose assertions bound wall-clock times (latency, pacing, lateness, measured tokens/s),
# each with the bound that keeps it here: on 2 shared cores a neighbour worker's load, not a
# defect, would break it. A test that bounds nothing, or only from below, or only against a
# figure measured in the same run, or with seconds of slack, belongs in the parallel phase
# (docs/testing.md). Moved out in session 40 (benchmarks/results/test_tiers.md): the 1M sparse
# decode order (a 2.7x margin), test_client_load's worker tests, test_route_compare's unbounded
# tests, test_single_instance's launches, two default-limit waits with seconds of slack.
SERIAL_FILES = frozenset(
    {
        # decode speeds read by the client 2-5 % apart (median token gaps at time scale 0.5)
        "test_attention_twins.py",
        # token gaps within 10 % of the cost model alone and in a batch; a queued request's TTFT
        # at least its wait plus 0.8 of its prefill (24 ms of slack); hundreds of 32K requests
        # kept running until the last has arrived; admitted within 50 ms, or 5 ms, of a slot
        "test_batching.py",
        "test_cpu_warmup.py",  # a median under 2 ms
        "test_fidelity.py",  # TTFT within 5 ms of the server's emit time
        "test_gui_live_ttft.py",  # the live TTFT under half a 0.3 s hold of the loop
        "test_model_list_limit.py",  # bench ends within 10 s
        # a held loop's TTFT under half the hold; warming ends within 2 s and a body's tail is
        # waited for under 1 s; a running stream's tokens under 20 ms late during a burst
        "test_send_time.py",
        "test_streaming.py",  # token lag under 20 ms, TPOT 45-65 ms
        "test_wake.py",  # a timed wait wakes well within a millisecond of its moment
        "test_watchdog.py",  # the stall limit met within 0.5 s
    }
)
# Single tests with a wall-clock upper bound, in otherwise load-proof files (all parameters),
# each with the bound that keeps it here.
SERIAL_TESTS = frozenset(
    {
        # a client whose GIL a thread holds ~80 ms at a time is flagged for its loop's lateness:
        # a lower bound, but what it proves is the client's own CPU and loop (issue 28)
        "test_client_load.py::test_a_saturated_client_is_flagged",
        # median lateness of the sends under 25 ms; the sent gaps Poisson (a KS test)
        "test_open_loop.py::test_a_poisson_run_sends_on_its_schedule_and_shows_its_lateness",
        # each queued request's TTFT from its schedule grows, the one from its send does not
        "test_open_loop.py::test_a_cap_of_one_above_capacity_shows_queueing_from_scheduled_time_only",
        # the median TTFT of 8 streams at once within 5 ms of the server's own
        "test_protocols_end_to_end.py::test_rows_have_chats_columns_and_match_the_emit_log_at_concurrency_8",
        # the added TTFT and e2e within -30/+60 ms of the gateway's 150 ms delay (the runner and
        # the CLI); the chat-path baseline within 10-60 ms of its 50 ms and the direct one < 40 ms
        "test_route_compare.py::test_added_ttft_per_level_is_the_gateways_delay",
        "test_route_compare.py::test_compare_route_prints_the_added_ttft_writes_route_rows_and_a_chart",
        "test_route_compare.py::test_compare_route_json_prints_the_route_comparison_of_the_history",
        "test_route_compare.py::test_baseline_is_measured_on_the_chat_path_of_each_target",
        # the app's fds capped at its settled count + 3 races with whatever else it opens (the
        # offscreen platform's, the SDK's): flaky at load 9 even alone
        "test_single_instance.py::test_the_socket_lost_when_fds_run_out_is_re_created_and_reported",
        # each Theme of a window left alive by an earlier test of the process answers the
        # desktop's scheme switch: late in a random order it ran past the 120 s timeout
        "test_desktop_ui.py::test_system_theme_follows_the_desktop_scheme_change",
        "test_gui.py::test_replay_reproduces_recorded_token_timing",  # each token within 20 ms
        "test_knee_server.py::test_a_request_given_up_frees_its_slot_for_the_next",  # < 1.45 s
        "test_gui.py::test_stop_ends_streaming_within_a_second",
        # < 2.5 s
        "test_hostile_streams.py::test_a_broken_stream_is_a_classified_row_never_a_success",
        "test_hostile_streams.py::test_a_huge_error_body_is_read_only_in_part",  # < 1 s
        # < 1 s
        "test_hostile_streams.py::test_an_endless_stream_is_cut_at_once_and_the_server_sees_it",
        "test_kernel_run_controller.py::test_cancel_ends_a_running_job_within_a_second",
        "test_kernels_view.py::test_cancel_mid_job_ends_within_a_second",
        # < 1.5 s
        "test_kernels_view.py::test_clicking_run_fills_the_table_and_clicking_cancel_stops_the_next_run",
        "test_kernels_worker.py::test_lifecycle_job_cancel_kill_restart",  # a cancel within 1 s
        "test_local_protocols.py::test_three_protocols_pace_alike_and_say_the_same",  # < 5 ms late
        "test_local_server.py::test_counting_a_4mb_prompt_is_fast",  # < 1 s
        "test_local_server.py::test_stop_closes_open_streams_promptly",  # < 2 s
        "test_local_server.py::test_ttft_follows_the_cost_model",  # within 250 ms of it
        "test_prompts.py::test_long_prompt_cycles_with_numbered_sections_fast",  # < 0.5 s
        # TTFT within 500 ms of the toy server's first piece
        "test_protocol_registry.py::test_a_toy_protocol_added_through_the_registry_is_measured_by_bench",
        # the window never still for 0.25 s during an import, and filled within 4 s of the store
        "test_result_import_gui.py::test_importing_a_large_file_keeps_the_window_responsive",
        "test_retry_headers.py::test_a_429_is_retried_after_the_advertised_wait",  # its window
        # the loop never still for 1.2 s while the history is locked
        "test_run_reliability.py::test_a_locked_history_is_waited_for_without_freezing_the_measurements",
        "test_runner.py::test_cancel_stops_streams_quickly_and_marks_rows",  # < 1 s
        # two workers' median TTFT within 25 ms (or half) of one process's, run one after the other
        "test_workers.py::test_two_workers_give_the_same_rows_as_one_process",
    }
)
# The parallel phase's longest tests (15 s and more), seconds per test (each parameter) as measured
# under xdist (benchmarks/results/test_tiers.md, sessions 38-40): under xdist each starts first
# on a worker (tests/support/heavy_first.py), not last while the others idle.
HEAVY_TESTS = {
    # the capacity searches, measured in session 40 under -n 3 beside each other (load ~0.4):
    # real time by design (a step of N requests at R req/s lasts N / R seconds)
    # a knee of 0.48 req/s needs a minute of real time (benchmarks/results/test_tiers.md)
    "test_capacity.py::test_a_capacity_under_half_a_request_a_second_is_found_not_said_as_under": 57,  # noqa: E501
    "test_capacity_cost.py::test_two_twins_cost_in_inverse_ratio_to_their_capacities": 43,
    "test_capacity_batching.py::test_the_search_lies_within_ten_percent_of_a_dense_sweep": 40,
    "test_capacity.py::test_a_step_far_past_the_knee_ends_once_it_has_missed": 24,
    "test_gui_capacity.py::test_a_search_on_two_twins_shows_each_capacity_and_the_summary_leads_with_it": 23,  # noqa: E501
    "test_capacity.py::test_the_search_finds_a_known_capacity_within_ten_percent": 22,
    "test_capacity.py::test_capacity_per_model_and_the_summary_pdf_leads_with_it": 18,
    # measured in a whole suite under -n 2 (session 38) or at load ~5 (session 39)
    "test_gui_monkey.py::test_the_monkey_finds_nothing_surprising_for_every_seed": 33,
    # out of the serial tier in sessions 39 and 40: GQA's 1M prefill waited out (~16 s of sleep)
    "test_attention_story.py::test_at_1m_the_sparse_twins_decode_at_least_as_fast_as_gqa": 22,
    "test_attention_story.py::test_bench_of_the_eight_twins_at_1m_runs_or_refuses_each_with_its_memory_reason": 21,  # noqa: E501
    "test_kernels_worker_reprobe.py::test_a_torch_error_ends_the_progress_and_installing_torch_is_seen_at_connect": 18,  # noqa: E501
    "test_kernels_view.py::test_clicking_connect_reuses_the_worker_and_a_changed_python_restarts_it": 16,  # noqa: E501
    "test_csv_streaming.py::test_a_history_locked_mid_run_fails_the_run_loudly_and_the_csv_keeps_the_rows": 16,  # noqa: E501
    # session 40, quiet and under -n 3 alike (it waits, it does not compute): 16 s of it is the
    # network baseline reading four of the hostile server's 4-second streams
    "test_hostile_bench.py::test_bench_ends_a_slow_endless_stream_at_the_default_total_limit": 24,
}
PHASES = ("all", "parallel", "serial")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--phase",
        choices=PHASES,
        default="all",
        help="all: every selected test; parallel: leave out the `serial` ones (for -n);"
        " serial: only them (tests/support/tiers.py)",
    )


def node_name(item: pytest.Item) -> str:
    """`file.py::test_name`, every parameter of a test alike: how the lists above name tests."""
    return f"{item.path.name}::{getattr(item, 'originalname', item.name)}"


def file_markers(path: Path) -> set[str]:
    """The markers every test of this file gets (fixture-decided ones come per test)."""
    marks = set()
    if path.name in GUI_FILES:
        marks.add("gui")
    if path.name in INTEGRATION_FILES:
        marks.add("integration")
    if path.name in SLOW_FILES:
        marks.add("slow")
    if path.name in SERIAL_FILES:
        marks.add("serial")
    return marks


def has_serial_tests(path: Path) -> bool:
    return path.name in SERIAL_FILES or any(t.startswith(f"{path.name}::") for t in SERIAL_TESTS)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Do not import a file whose every test the `-m` expression leaves out (its imports may
    need what the fast tier does not install), nor, in the serial phase, a file without a
    serial test (importing every file cost that phase ~3 s for tests it then deselected)."""
    is_test_file = collection_path.suffix == ".py" and collection_path.name.startswith("test_")
    serial_phase = config.getoption("phase", "all") == "serial"
    if serial_phase and is_test_file and not has_serial_tests(collection_path):
        return True
    expression = config.getoption("markexpr")
    marks = file_markers(collection_path)
    if not expression or not marks or collection_path.suffix != ".py":
        return None
    compiled = Expression.compile(expression)
    # a test may still add gui (by its fixtures) or slow (by hand): ignore the file only when
    # the expression leaves it out whatever those add
    for extra in ({""}, {"gui"}, {"slow"}, {"gui", "slow"}):
        if compiled.evaluate(lambda name, extra=extra: name in marks | extra):  # type: ignore[misc]
            return None
    return True


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        marks = file_markers(item.path)
        node = node_name(item)
        if node in INTEGRATION_TESTS:
            marks.add("integration")
        if node in SLOW_TESTS:
            marks.add("slow")
        if node in SERIAL_TESTS:
            marks.add("serial")
        if GUI_FIXTURES & set(getattr(item, "fixturenames", ())):
            marks.add("gui")
        for name in sorted(marks):
            item.add_marker(name)
    phase = config.getoption("phase", "all")  # absent where a conftest imports no addoption
    if phase != "all":
        wanted = phase == "serial"
        left_out = [i for i in items if (i.get_closest_marker("serial") is not None) != wanted]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [i for i in items if (i.get_closest_marker("serial") is not None) == wanted]
