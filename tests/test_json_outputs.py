"""Every `--json` output is JSON, and its figures are the ones that went in: secrets are masked by
value (registered keys, key-shaped strings), never because a field's name says "token"
(issue 26: AIPerf's 41 `time_to_first_token` figures came out as `***`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli_inprocess import run_cli
from workbench.cli import build_parser, main
from workbench.core.foundation.redaction import redact_values, register_secret
from workbench.core.foundation.terminal import json_text

DATA = Path(__file__).parent / "data"
WORKBENCH = [sys.executable, "-m", "workbench"]

# every command that has --json, and a command line for it that runs here with no network
# (bench, models and doctor start the built-in local provider themselves)
JSON_COMMANDS: dict[str, list[str]] = {
    "bench": ["bench", "--model", "sim-llama-2-7b", "--prompt-tokens", "128", "--repeats", "1",
              "--warmup", "0", "--max-tokens", "4", "--time-scale", "0.01", "--json"],
    "models": ["models", "--time-scale", "0.01", "--json"],
    "doctor": ["doctor", "local", "--json", "--timeout", "30"],
    "providers list": ["providers", "list", "--json"],
    "import": ["import", "--dry-run", "--json", str(DATA / "configs" / "claude_settings.json")],
    "import-results": ["import-results", "--json",
                       str(DATA / "peers" / "aiperf-0.13.0" / "c1" / "profile_export_aiperf.json")],
    "history list": ["history", "list", "--json"],
    "history show": ["history", "show", "import-", "--json"],
}  # fmt: skip


def _json_commands(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
    found = set()
    for action in parser._actions:
        if "--json" in action.option_strings:
            found.add(prefix.strip())
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _json_commands(sub, f"{prefix} {name}")
    return found


def test_every_command_with_json_is_listed_here() -> None:
    assert _json_commands(build_parser()) == set(JSON_COMMANDS)


def test_every_json_output_parses(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }
    for name, argv in JSON_COMMANDS.items():  # import-results before history: it fills it
        # in this process (a start cost ~0.3 s CPU); bench writes results.csv in the cwd
        proc = run_cli(argv, env, cwd=tmp_path)
        assert proc.returncode in (0, 3), (name, proc.stderr)  # 3: a check failed; still JSON
        document = json.loads(proc.stdout)
        assert document is not None, name
        if name == "history show":
            figures = document["aggregates"]["sim-llama-3-70b"]
            assert isinstance(figures["median_ttft_ms"], float)
            assert "***" not in proc.stdout


names = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_"), min_size=1, max_size=30).map(
    lambda s: s + "_token"
)
figures = st.recursive(
    st.floats(allow_nan=False, allow_infinity=False) | st.integers() | st.booleans() | st.none(),
    lambda inner: (
        st.dictionaries(names | st.sampled_from(["token", "api_key", "secret"]), inner)
        | st.lists(inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(figures)
def test_a_document_of_figures_passes_through_unchanged(document) -> None:
    register_secret("sk-registered-0123456789")
    out = json_text(redact_values(document))
    assert json.loads(out) == json.loads(json.dumps(document))


@given(st.sampled_from(["time_to_first_token", "api_key", "x"]), st.floats(-1e9, 1e9))
def test_a_figure_beside_a_secret_keeps_its_value_and_the_secret_goes(name, value) -> None:
    register_secret("gw-registered-secret-42")
    document = {name: value, "url": "http://h/?key=gw-registered-secret-42", "k": "sk-abcdef123456"}
    out = json.loads(json_text(redact_values(document)))
    assert out[name] == value
    assert "gw-registered-secret-42" not in json.dumps(out) and "sk-abcdef123456" not in out["k"]


vllm_figures = st.dictionaries(
    st.sampled_from(
        [f"{s}_{m}_ms" for s in ("mean", "median", "std", "p99") for m in ("ttft", "tpot", "itl")]
        + ["duration", "request_throughput", "output_throughput", "total_output_tokens"]
    ),
    st.floats(0, 1e12, allow_nan=False, allow_infinity=False),
    min_size=1,
)


@settings(max_examples=15, deadline=None)
@given(vllm_figures)
def test_a_files_figures_come_out_of_history_show_json_unchanged(tmp_path_factory, figures) -> None:
    """End to end, in this process: a vLLM result file of any figures, imported, then shown."""
    folder = tmp_path_factory.mktemp("figures")
    os.environ["WORKBENCH_DATA_DIR"] = str(folder / "data")  # conftest restores it after
    path = folder / "result.json"
    path.write_text(json.dumps({"completed": 3, "mean_ttft_ms": 1.0, **figures}))
    assert main(["import-results", str(path)]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["history", "show", "import-", "--json"]) == 0
    [shown] = json.loads(out.getvalue())["aggregates"].values()
    for key, value in figures.items():
        assert shown[key] == value, key
