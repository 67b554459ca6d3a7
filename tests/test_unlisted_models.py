"""Servers that list only some of the models they serve (`transformers serve`, Ollama: only the
loaded ones): an unlisted id is asked anyway, with a warning naming what the server listed, and
suggestions come from the server's own list, never a built-in simulated model.
"""

from __future__ import annotations

import csv
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_gateway_answers import _cli, _serve

from tests.support.gateway_imitation import Imitation


@pytest.fixture
def loaded_only() -> Iterator[tuple[Imitation, str]]:
    # lists the model it has loaded; serves another one too
    imitation = Imitation(listed=["tiny-llama-gqa"], served=["tiny-llama-gqa", "tiny-llama-mha"])
    for url in _serve(imitation):
        yield imitation, url


def _bench(url: str, model: str, csv_path: Path) -> subprocess.CompletedProcess[str]:
    return _cli(
        "bench", "--base-url", url, "--model", model, "--prompt-tokens", "128",
        "--max-tokens", "4", "--no-store", "--csv", str(csv_path),
    )  # fmt: skip


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_bench_tries_an_unlisted_model_and_warns_naming_the_list(
    loaded_only: tuple[Imitation, str], tmp_path: Path
) -> None:
    imitation, url = loaded_only
    run = _bench(url, "tiny-llama-mha", tmp_path / "r.csv")
    assert run.returncode == 0, run.stderr
    assert "'tiny-llama-mha' is not on the list" in run.stderr
    assert "tiny-llama-gqa" in run.stderr  # what the server listed
    assert "tiny-llama-mha" in imitation.chat_requests
    rows = _rows(tmp_path / "r.csv")
    assert rows and all(r["model"] == "tiny-llama-mha" and not r["error_class"] for r in rows)


def test_an_unlisted_model_the_server_refuses_fails_its_row_as_not_found(
    loaded_only: tuple[Imitation, str], tmp_path: Path
) -> None:
    _imitation, url = loaded_only
    run = _bench(url, "tiny-llama-gqb", tmp_path / "r.csv")
    assert run.returncode == 3, run.stderr
    assert "'tiny-llama-gqb' is not on the list" in run.stderr
    rows = _rows(tmp_path / "r.csv")
    assert rows and all(r["error_class"] == "model_not_found" for r in rows)
    # the suggestion is the server's own id, never the failed one nor a simulated one
    suggested = run.stderr.split("Did you mean:", 1)[1].split("?", 1)[0]
    assert "tiny-llama-gqa" in suggested
    assert "tiny-llama-gqb" not in suggested and "sim-" not in suggested


def test_suggestions_never_offer_a_simulated_model_for_another_server(tmp_path: Path) -> None:
    # a server that lists nothing: the catalog is the fallback, without its simulated models
    for url in _serve(Imitation(listed=[], served=[])):
        run = _bench(url, "sim-70b-mhq", tmp_path / "r.csv")
    assert "is not on the list" in run.stderr
    assert "sim-70b-mha" not in run.stderr and "Did you mean: sim" not in run.stderr


def test_the_built_in_provider_still_refuses_an_id_it_does_not_serve(tmp_path: Path) -> None:
    proc = _cli("bench", "--model", "sim-70b-gqq", "--csv", str(tmp_path / "r.csv"), "--no-store")
    assert proc.returncode == 2
    assert "Did you mean: sim-70b-gqa" in proc.stderr


def test_doctor_says_not_listed_but_served(loaded_only: tuple[Imitation, str]) -> None:
    _imitation, url = loaded_only
    run = _cli("doctor", "--base-url", url, "--json", "--model", "tiny-llama-mha")
    checks = {c["name"]: c for c in json.loads(run.stdout)}
    assert run.returncode == 0, run.stdout
    assert checks["model"]["ok"] and "not listed, but served" in checks["model"]["evidence"]
    assert checks["stream"]["ok"] and not checks["stream"]["skipped"]


def test_doctor_fails_an_unlisted_model_the_server_does_not_serve(
    loaded_only: tuple[Imitation, str],
) -> None:
    _imitation, url = loaded_only
    run = _cli("doctor", "--base-url", url, "--json", "--model", "tiny-llama-gqb")
    checks = {c["name"]: c for c in json.loads(run.stdout)}
    assert run.returncode != 0
    assert not checks["model"]["ok"] and "tiny-llama-gqa" in checks["model"]["fix"]
    assert not checks["stream"]["ok"] and not checks["stream"]["skipped"]
