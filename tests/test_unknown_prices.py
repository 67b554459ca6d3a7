"""A model with no known price has an unknown cost, never $0; prices given in providers.toml
per provider and model are used. Through the real `workbench bench` against a loopback server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback import ThreadedLoop
from scripted_server import ScriptedServer, Step, chunk

from workbench.cli import main
from workbench.core.history.csv_export import read_csv
from workbench.core.history.run_history import RunStore

USAGE = {"prompt_tokens": 1000, "completion_tokens": 3, "total_tokens": 1003}
SCRIPT: list[Step] = [
    (0, chunk("", role="assistant")),
    (0, chunk("a")),
    (0.01, chunk(" b")),
    (0.01, chunk(" c", finish="stop")),
    (0, chunk(usage=USAGE)),
    (0, "[DONE]"),
]


@pytest.fixture
def gateway() -> Iterator[ScriptedServer]:
    """A gateway serving the alias `m`, a model no catalog knows."""
    with ThreadedLoop() as loop:
        server = ScriptedServer(SCRIPT)
        loop.run(server.__aenter__())
        try:
            yield server
        finally:
            loop.run(server.__aexit__())


def _bench(*target: str, csv: Path) -> int:
    args = ["bench", *target, "--model", "m", "--prompt-tokens", "128", "--max-tokens", "3"]
    return main([*args, "--csv", str(csv)])


def _table_row(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("m "))


def test_an_alias_without_prices_has_a_blank_cost_and_no_price_mark(
    gateway: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "out.csv"
    assert _bench("--base-url", gateway.base_url, csv=csv) == 0
    rows = read_csv(csv)
    assert rows and all(r["cost_usd"] == "" and r["price_known"] == "false" for r in rows)
    assert _table_row(capsys.readouterr().out).endswith("no price")
    with RunStore() as store:  # the history keeps that the price was unknown
        stored = store.results(store.runs()[0].run_id)
    assert stored and not any(r.prices.known for r in stored)


def test_prices_from_providers_toml_give_the_cost(
    gateway: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(os.environ["WORKBENCH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "providers.toml").write_text(
        f'[providers.gw]\nbase_url = "{gateway.base_url}"\n\n'
        '[[providers.gw.models]]\nid = "m"\nprices = { input = 2.0, output = 8.0 }\n',
        encoding="utf-8",
    )
    csv = tmp_path / "out.csv"
    assert _bench("--provider", "gw", csv=csv) == 0
    rows = read_csv(csv)
    # 1000 prompt tokens at $2/M and 3 output tokens at $8/M
    assert rows and all(r["price_known"] == "true" for r in rows)
    assert all(float(r["cost_usd"]) == pytest.approx((1000 * 2 + 3 * 8) / 1e6) for r in rows)
    assert "no price" not in _table_row(capsys.readouterr().out)


@pytest.mark.parametrize(("known", "shown"), [(False, "no price"), (True, "$0.00202")])
def test_the_gui_pane_shows_no_price_instead_of_zero(qapp, known: bool, shown: str) -> None:
    from workbench.core.foundation.results import UNKNOWN_PRICES, Prices, RequestResult, Target
    from workbench.core.models.catalog import load_catalog
    from workbench.ui.pane_widget import PaneWidget
    from workbench.ui.panes_model import PaneModel, PaneState

    prices = Prices(input=2.0, output=8.0) if known else UNKNOWN_PRICES
    target = Target("gw", "http://127.0.0.1:9/v1", "m", prices=prices)
    result = RequestResult(model="m", prices=prices, prompt_tokens=1000, completion_tokens=3)
    model = PaneModel(target=target, state=PaneState.DONE, result=result)
    widget = PaneWidget(0, load_catalog())
    try:
        widget.paint(model)
        assert widget.figures.text("cost") == shown
    finally:
        widget.close()
