"""A result file broken in any way is refused with ResultFileError (cause, field, fix), never a
crash: random changes to every fixture under tests/data/results/, and random bytes. What is
accepted must also go into a real history without error."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.history.result_import import store_run
from workbench.core.history.run_history import RunStore
from workbench.core.result_files import ResultFileError, read_result_file

DATA = Path(__file__).parent / "data" / "results"
FIXTURES = sorted(p.name for p in DATA.iterdir())

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([10**400, -(10**400), 2**63])  # beyond a double, beyond int64
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
FUZZ = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _mutate(doc: object, data: st.DataObject) -> object:
    """Drop keys, or replace any node with a random JSON value, all through the document."""
    if isinstance(doc, dict):
        out = {}
        for key, value in doc.items():
            choice = data.draw(st.integers(0, 19))
            if choice == 0:
                continue
            out[key] = data.draw(values) if choice == 1 else _mutate(value, data)
        return out
    if isinstance(doc, list):
        return [_mutate(v, data) for v in doc]
    return data.draw(values) if data.draw(st.integers(0, 9)) == 0 else doc


def _load(name: str) -> object:
    text = (DATA / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def _read_and_store(path: Path, tmp: str) -> None:
    try:
        runs = read_result_file(path)
    except ResultFileError as error:
        assert path.name in str(error)  # the message names the file
        return
    with RunStore(Path(tmp) / "history.sqlite3") as store:
        for run in runs:
            try:  # a vLLM file's requests are streamed: a broken one is found as it is stored
                store_run(store, run)
            except ResultFileError as error:
                assert path.name in str(error)
                return


@FUZZ
@given(name=st.sampled_from(FIXTURES), data=st.data())
def test_a_mutated_result_file_is_read_or_refused_with_a_named_cause(name: str, data) -> None:
    doc = _mutate(_load(name), data)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        if isinstance(doc, list) and name.endswith(".jsonl"):
            path.write_text("\n".join(json.dumps(r) for r in doc), encoding="utf-8")
        else:
            path.write_text(json.dumps(doc), encoding="utf-8")
        _read_and_store(path, tmp)


@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes_are_refused_with_a_named_cause(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.json"
        path.write_bytes(data)
        _read_and_store(path, tmp)
