"""The model catalog: resources/models.toml through workbench.core.models.catalog."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kernels_bridge.shape_sets import per_device_shape, twin_set
from kernels_bridge.variants import kv_bytes_per_token, kv_bytes_per_token_per_device
from workbench.core.foundation.results import Prices
from workbench.core.models.catalog import Catalog, ModelInfo, load_catalog
from workbench.resources import resource

KIB = 1024


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _get(catalog: Catalog, name: str) -> ModelInfo:
    model = catalog.get(name)
    assert model is not None, name
    return model


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("deepseek-chat", "deepseek-v3"),
        ("deepseek-reasoner", "deepseek-v3"),
        ("DeepSeek-V3", "deepseek-v3"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("deepseek-v2", "deepseek-v2"),
        ("moonshotai/Kimi-K2-Instruct", "kimi-k2"),
        ("meta-llama/Llama-3-70B-Instruct", "llama-3-70b"),
        ("meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.1-70b"),
        ("llama-3-8b", "llama-3-8b"),
        ("llama3.1-8b", "llama-3.1-8b"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("mistralai/Mistral-7B-v0.1", "mistral-7b"),
        ("tiiuae/falcon-7b", "falcon-7b"),
        ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"),
        ("SIM-70B-GLA", "sim-70b-gla"),
    ],
)
def test_lookup_by_alias_case_and_vendor_prefix(catalog: Catalog, name: str, model_id: str):
    assert _get(catalog, name).id == model_id


def test_unknown_model_gives_none_and_suggestions(catalog: Catalog):
    assert catalog.get("gpt-4o") is None
    assert catalog.get("") is None
    assert catalog.get("deepseek-v3.2-exp") is None  # a different attention (DSA), not guessed
    assert "deepseek-v3" in catalog.suggest("deepseek-v4")
    assert catalog.suggest("llama-3-7b", n=2)[0].startswith("llama-3")
    assert len(catalog.suggest("sim-70b", n=3)) <= 3


def test_real_model_shapes_reproduce_attention_md(catalog: Catalog):
    assert kv_bytes_per_token(_get(catalog, "llama-2-7b").shape) == 512 * KIB
    assert kv_bytes_per_token(_get(catalog, "llama-3-8b").shape) == 128 * KIB
    assert kv_bytes_per_token(_get(catalog, "llama-3-70b").shape) == 320 * KIB
    assert kv_bytes_per_token(_get(catalog, "deepseek-v2").shape) / KIB == 67.5
    assert round(kv_bytes_per_token(_get(catalog, "deepseek-v3").shape) / KIB, 1) == 68.6
    assert round(kv_bytes_per_token(_get(catalog, "kimi-k2").shape) / KIB, 1) == 68.6
    falcon = _get(catalog, "falcon-7b")
    assert (falcon.attention, falcon.shape.q_heads, falcon.shape.head_dim) == ("MQA", 71, 64)
    assert _get(catalog, "mistral-7b").shape.sliding_window == 4096
    assert _get(catalog, "kimi-k2").shape.q_heads == 64
    assert _get(catalog, "deepseek-v3").shape.layers == 61


def test_twins_share_weights_and_differ_only_in_attention(catalog: Catalog):
    kinds = ("mha", "mqa", "gqa", "gta", "mla", "gla", "nsa", "moba")
    every = [_get(catalog, f"sim-70b-{k}") for k in kinds]
    assert [t.attention for t in every] == ["MHA", "MQA", "GQA", "GTA", "MLA", "GLA", "NSA", "MoBA"]
    # the kernel sweep's twin shapes are the catalog's, so each twin joins the H200 CSV
    assert {s.names[0]: s.shape for s in twin_set()} == {
        t.id: per_device_shape(t.shape, 2) for t in every
    }
    twins = [every[i] for i in (0, 2, 4, 5)]  # MHA, GQA, MLA, GLA: the per-device figures
    for t in every:
        assert t.simulated and t.deployment is not None
        assert (t.total_params, t.active_params) == (70_000_000_000, 70_000_000_000)
        assert (t.shape.layers, t.shape.q_heads, t.shape.head_dim) == (80, 64, 128)
        assert t.deployment.gpu == "H200"
        assert (t.deployment.tensor_parallel, t.deployment.pipeline_parallel) == (2, 4)
        assert t.deployment.weight_bytes_per_param == 2
        assert t.deployment.batch == 1
    per_dev = {t.attention: kv_bytes_per_token_per_device(t.shape, 2) for t in twins}
    assert round(per_dev["MHA"] / 1e6, 2) == 1.31
    assert round(per_dev["GQA"] / 1e3) == 164
    assert round(per_dev["MLA"] / 1e3) == 92
    assert round(per_dev["GLA"] / 1e3) == 51
    assert round(kv_bytes_per_token_per_device(twins[1].shape, 8) / 1e3) == 41
    assert round(kv_bytes_per_token_per_device(twins[2].shape, 8) / 1e3) == 92


def test_simulated_models_cover_every_attention_family(catalog: Catalog):
    sims = {m.id: m for m in catalog.simulated()}
    for required in (
        "sim-llama-2-7b",
        "sim-llama-3-70b",
        "sim-falcon-7b",
        "sim-deepseek-v3",
        "sim-kimi-k2",
        "sim-70b-mha",
        "sim-70b-gqa",
        "sim-70b-mla",
        "sim-70b-gla",
    ):
        assert required in sims
    assert {m.attention for m in sims.values()} >= {"MHA", "MQA", "GQA", "MLA", "GLA"}
    v3 = sims["sim-deepseek-v3"]
    assert v3.deployment is not None
    assert (v3.deployment.gpu, v3.deployment.tensor_parallel) == ("H200", 8)
    assert v3.deployment.weight_bytes_per_param == 1
    assert (v3.total_params, v3.active_params) == (671_000_000_000, 37_000_000_000)
    # a simulated model is priced like the real model it mimics, so demo costs read true
    assert sims["sim-deepseek-v3"].prices == catalog.get("deepseek-v3").prices
    assert sims["sim-llama-3-70b"].prices == catalog.get("llama-3.1-70b").prices
    assert not any(m.simulated for m in catalog.models() if m.id not in sims)


def test_real_models_have_list_prices_and_windows(catalog: Catalog):
    for m in catalog.models():
        assert m.context_window > 0 and m.notes
        if not m.simulated:
            assert m.prices.input > 0 and m.prices.output > 0, m.id
            assert m.deployment is None
    ds = _get(catalog, "deepseek-chat")
    assert ds.prices.cached_input is not None and ds.prices.cached_input < ds.prices.input


def test_with_overrides_changes_prices_and_window_only(catalog: Catalog):
    new = catalog.with_overrides(
        {"deepseek-chat": {"input": 0.27, "output": 1.1, "cached_input": 0.07}},
    ).with_overrides(
        {"DeepSeek-V3": {"context_window": 65536}, "kimi-k2": {"prices": {"input": 1}}}
    )
    ds = _get(new, "deepseek-v3")
    assert ds.prices == Prices(0.27, 1.1, 0.07)
    assert ds.context_window == 65536
    assert _get(new, "kimi-k2").prices.input == 1.0
    assert _get(new, "kimi-k2").prices.output == _get(catalog, "kimi-k2").prices.output
    assert _get(catalog, "deepseek-v3").context_window == 131072  # the original is untouched
    with pytest.raises(ValueError, match="unknown model 'gpt-9'"):
        catalog.with_overrides({"gpt-9": {"input": 1}})
    with pytest.raises(ValueError, match="unknown"):
        catalog.with_overrides({"deepseek-v3": {"layers": 3}})
    with pytest.raises(ValueError, match=">= 0"):
        catalog.with_overrides({"deepseek-v3": {"input": -1}})


def test_overrides_file(tmp_path: Path):
    overrides = tmp_path / "overrides.toml"
    overrides.write_text('["llama-3-70b"]\ninput = 0.59\noutput = 0.79\n')
    cat = load_catalog(overrides_path=overrides)
    assert _get(cat, "llama-3-70b").prices == Prices(0.59, 0.79, None)
    missing = load_catalog(overrides_path=tmp_path / "not-yet.toml")
    assert _get(missing, "llama-3-70b").prices.input == 0.88
    overrides.write_text('["nope-model"]\ninput = 1\n')
    with pytest.raises(ValueError, match=r"overrides\.toml"):
        load_catalog(overrides_path=overrides)


def test_default_load_is_cached():
    assert load_catalog() is load_catalog()


def test_the_shipped_file_passes_its_schema_and_reads_the_same_either_way():
    """The app reads the shipped file without its schema (pydantic stays off the start-up):
    this is where that file is checked, and where a field the plain reader would miss shows."""
    shipped = resource("models.toml")
    checked = load_catalog(shipped)  # a named file: every table through the schema
    assert checked is not load_catalog()
    assert checked.models() == load_catalog().models()
    assert len(checked) >= 20


def test_an_unchecked_file_still_names_what_the_reader_misses(tmp_path: Path):
    """Read as the shipped file is (no schema), a missing field still fails, named."""
    from workbench.core.models.catalog import _load

    path = _write(tmp_path, GOOD.replace("context_window = 4096", ""))
    with pytest.raises(ValueError, match=r"model #1 \(m\): field 'context_window': missing"):
        _load(path, check=False)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


GOOD = """
[[model]]
id = "m"
total_params = 1e9
active_params = 1e9
context_window = 4096
[model.shape]
kind = "GQA"
layers = 2
q_heads = 4
kv_heads = 2
head_dim = 64
"""


def test_a_small_valid_file_loads(tmp_path: Path):
    cat = load_catalog(_write(tmp_path, GOOD))
    assert len(cat) == 1 and _get(cat, "M").total_params == 1_000_000_000


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[model]\nid=", "not valid TOML"),
        ("[meta]\nschema = 1\n", "no \\[\\[model\\]\\] entries"),
        (GOOD.replace('kind = "GQA"', 'kind = "XQA"'), "unknown attention kind"),
        (GOOD.replace("context_window = 4096", ""), "'context_window': missing"),
        (
            GOOD.replace("total_params = 1e9", "total_params = 1e9\ncolour = 1"),
            "line 5: model #1 \\(m\\): field 'colour': unknown field",
        ),
        (GOOD + GOOD, "appears twice"),
        (GOOD.replace('id = "m"', 'id = "m"\nlike = "x"'), "names no model"),
        (GOOD.replace("active_params = 1e9", "active_params = 2e9"), "exceeds total_params"),
        (GOOD + '[model.deployment]\ngpu = "TPU"\n', "unknown GPU profile"),
        (GOOD.replace('id = "m"', 'id = "m"\nsimulated = true'), "needs a \\[model.deployment\\]"),
        (GOOD + '[model.prices]\ninput = "cheap"\n', "prices.input"),
    ],
)
def test_broken_file_raises_naming_file_and_problem(tmp_path: Path, text: str, problem: str):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError, match=problem) as err:
        load_catalog(path)
    assert str(path) in str(err.value)


def test_alias_collision_is_rejected(tmp_path: Path):
    text = GOOD.replace('id = "m"', 'id = "m"\naliases = ["n"]') + GOOD.replace(
        'id = "m"', 'id = "n"'
    )
    with pytest.raises(ValueError, match="used by both"):
        load_catalog(_write(tmp_path, text))


def test_missing_file_raises(tmp_path: Path):
    with pytest.raises(ValueError, match="cannot read"):
        load_catalog(tmp_path / "absent.toml")


def test_catalog_imports_no_qt_and_no_torch():
    code = (
        "import sys, workbench.core.models.catalog, kernels_bridge.analytic\n"
        "import workbench.local.costmodel\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'PyQt5', 'PyQt6', 'torch', 'triton')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_shipped_file_is_where_resources_say():
    assert resource("models.toml").is_file()
    assert resource("hardware.toml").is_file()
