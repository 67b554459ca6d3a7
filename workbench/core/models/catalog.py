"""Known models: attention shape, context window, parameters, prices, simulated deployments.

Read from `resources/models.toml` (the one home of model facts). No Qt, no torch: this module
only needs the pure-Python shapes of `kernels_bridge.variants` and `analytic.Deployment`. Each
[[model]] table of a file the user names, and each override, is checked by a schema
(`catalog_schema`); an error names the file, the line where it finds one, the model and the
field. The shipped file is checked by the test suite instead, once, not at each launch.

Overrides (a user's TOML file or a dict) change prices and context windows per model:

    [deepseek-v3]              # an id or an alias
    input = 0.27               # USD per million prompt tokens
    output = 1.10
    cached_input = 0.07
    context_window = 65536
"""

from __future__ import annotations

import dataclasses
import functools
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernels_bridge.analytic import Deployment
from kernels_bridge.variants import AttentionShape
from workbench.core.foundation.results import Prices

_INHERITED = ("shape", "total_params", "active_params", "context_window", "prices")
_SHAPE_KEYS = frozenset(f.name for f in dataclasses.fields(AttentionShape))
_DEPLOYMENT_KEYS = frozenset(f.name for f in dataclasses.fields(Deployment))
# Characters that may follow a known name in a longer served name ("llama-3-70b-instruct").
_SUFFIX_BOUNDARY = "-_:@ "


@dataclass(frozen=True)
class ModelInfo:
    """One catalog entry."""

    id: str
    display_name: str
    aliases: tuple[str, ...]
    attention: str
    shape: AttentionShape
    total_params: int
    active_params: int
    context_window: int
    prices: Prices
    deployment: Deployment | None
    simulated: bool
    notes: str


def _norm(name: str) -> str:
    return name.strip().lower()


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class Catalog:
    """An immutable set of models with forgiving look-up by id or alias."""

    def __init__(self, models: Iterable[ModelInfo]) -> None:
        self._models: dict[str, ModelInfo] = {}
        self._index: dict[str, str] = {}
        squashed: dict[str, set[str]] = {}
        for model in models:
            if model.id in self._models:
                raise ValueError(f"model id {model.id!r} appears twice")
            self._models[model.id] = model
            for name in (model.id, *model.aliases):
                key = _norm(name)
                owner = self._index.get(key)
                if owner is not None and owner != model.id:
                    raise ValueError(f"name {name!r} is used by both {owner!r} and {model.id!r}")
                self._index[key] = model.id
                squashed.setdefault(_squash(name), set()).add(model.id)
        # A punctuation-free key only resolves when exactly one model owns it.
        self._squashed = {k: next(iter(v)) for k, v in squashed.items() if len(v) == 1}

    def __len__(self) -> int:
        return len(self._models)

    def __contains__(self, model_id: object) -> bool:
        return isinstance(model_id, str) and self.get(model_id) is not None

    def models(self) -> list[ModelInfo]:
        """All entries in file order."""
        return list(self._models.values())

    def simulated(self) -> list[ModelInfo]:
        """The entries the built-in local provider serves."""
        return [m for m in self._models.values() if m.simulated]

    def get(self, model_id: str) -> ModelInfo | None:
        """The entry for an id or alias: exact, then case-insensitive, then without a vendor
        prefix ("deepseek-ai/DeepSeek-V3"), then ignoring punctuation ("llama3-70b"), then the
        longest known name followed by a suffix ("Llama-3-70B-Instruct"). None when unknown."""
        if model_id in self._models:
            return self._models[model_id]
        name = _norm(model_id)
        if not name:
            return None
        candidates = [name]
        if "/" in name:
            candidates.append(name.rsplit("/", 1)[1])
        for cand in candidates:
            if cand in self._index:
                return self._models[self._index[cand]]
        for cand in candidates:
            hit = self._squashed.get(_squash(cand))
            if hit is not None:
                return self._models[hit]
        for cand in candidates:
            hit = self._longest_prefix(cand)
            if hit is not None:
                return self._models[hit]
        return None

    def _longest_prefix(self, name: str) -> str | None:
        best: tuple[int, str] | None = None
        for key, model_id in self._index.items():
            if (
                len(name) > len(key)
                and name.startswith(key)
                and name[len(key)] in _SUFFIX_BOUNDARY
                and (best is None or len(key) > best[0])
            ):
                best = (len(key), model_id)
        return None if best is None else best[1]

    def suggest(self, model_id: str, n: int = 3, *, simulated: bool = True) -> list[str]:
        """Up to n ids whose id or alias is close to model_id (difflib), best first;
        simulated=False leaves out the models only the built-in provider serves."""
        import difflib  # only when an id is not found: not at the window's start

        name = _norm(model_id).rsplit("/", 1)[-1]
        keys = [k for k in self._index if simulated or not self._models[self._index[k]].simulated]
        matches = difflib.get_close_matches(name, keys, n=n * 4, cutoff=0.5)
        out: list[str] = []
        for key in matches:
            owner = self._index[key]
            if owner not in out:
                out.append(owner)
        return out[:n]

    def with_overrides(self, overrides: Mapping[str, Mapping[str, Any]]) -> Catalog:
        """A new catalog with the user's prices and context windows applied.

        Keys are ids or aliases; values may hold input, output, cached_input (USD per million
        tokens, or a nested "prices" table of them) and context_window. An unknown model or
        field raises ValueError naming it.
        """
        replaced: dict[str, ModelInfo] = {}
        for name, fields in overrides.items():
            model = self.get(name)
            if model is None:
                hint = ", ".join(self.suggest(name)) or "none"
                raise ValueError(f"override for unknown model {name!r} (close: {hint})")
            if not isinstance(fields, Mapping):
                raise ValueError(f"override for {name!r} must be a table of fields")
            replaced[model.id] = _apply_override(replaced.get(model.id, model), name, fields)
        return Catalog(replaced.get(m.id, m) for m in self._models.values())


def _apply_override(model: ModelInfo, name: str, fields: Mapping[str, Any]) -> ModelInfo:
    from workbench.core.models.catalog_schema import checked_override

    override = checked_override(name, fields)
    flat = {k: getattr(override, k) for k in _PRICE_FIELDS if getattr(override, k) is not None}
    changes: dict[str, Any] = {**override.prices.changes(), **flat}
    return dataclasses.replace(
        model,
        prices=dataclasses.replace(model.prices, **changes),
        context_window=override.context_window or model.context_window,
    )


_PRICE_FIELDS = ("input", "output", "cached_input")


# ---------------------------------------------------------------------------------------------
# Loading models.toml
# ---------------------------------------------------------------------------------------------


def _parse_models(
    path: Path, data: Mapping[str, Any], text: str = "", check: bool = True
) -> list[ModelInfo]:
    raw_models = data.get("model")
    if not isinstance(raw_models, list) or not raw_models:
        raise ValueError(f"{path}: no [[model]] entries")
    unknown_top = set(data) - {"meta", "model"}
    if unknown_top:
        raise ValueError(f"{path}: unknown top-level keys {sorted(unknown_top)}")
    checked = _checker(path, text) if check else None
    by_id: dict[str, dict[str, Any]] = {}
    for i, raw in enumerate(raw_models, start=1):
        if checked is not None:
            checked(i, raw)
        if raw["id"] in by_id:
            raise ValueError(f"{path}: model #{i}: id {raw['id']!r} appears twice")
        by_id[raw["id"]] = raw
    models = []
    for i, model_id in enumerate(by_id, start=1):
        entry = _resolve_like(path, by_id[model_id], by_id)
        if checked is not None:
            checked(i, entry)
        models.append(_build(f"{path}: model #{i} ({model_id})", entry))
    return models


def _checker(path: Path, text: str) -> Callable[[int, object], None]:
    """Checks a [[model]] table against its schema (imported here: pydantic takes ~0.1 s)."""
    from workbench.core.models.catalog_schema import check_entry

    return lambda index, raw: check_entry(path, text, index, raw)


def _resolve_like(
    path: Path, raw: dict[str, Any], by_id: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    """raw with the inherited keys of its `like` chain filled in; shape tables merge."""
    merged = dict(raw)
    seen = [raw["id"]]
    current = raw
    while "like" in current:
        parent_id = current["like"]
        where = f"{path}: model {raw['id']!r}"
        if not isinstance(parent_id, str) or parent_id not in by_id:
            raise ValueError(f"{where}: like = {parent_id!r} names no model in the file")
        if parent_id in seen:
            raise ValueError(f"{where}: 'like' chain loops through {parent_id!r}")
        seen.append(parent_id)
        current = by_id[parent_id]
        for key in _INHERITED:
            if key not in current:
                continue
            if key == "shape" and isinstance(current[key], dict):
                merged["shape"] = {**current[key], **merged.get("shape", {})}
            else:
                merged.setdefault(key, current[key])
    return merged


def _build(where: str, entry: Mapping[str, Any]) -> ModelInfo:
    """A model from its table, `like` resolved (and checked by its schema when read from a
    file other than the shipped one)."""
    for key in ("shape", "total_params", "active_params", "context_window"):
        if entry.get(key) is None:
            raise ValueError(f"{where}: field '{key}': missing, here or in its 'like' model")
    shape = _shape(where, entry["shape"])
    # counts may be written as floats (671e9): whole numbers, as the schema's Count checks
    total, active = int(entry["total_params"]), int(entry["active_params"])
    if active > total:
        raise ValueError(f"{where}: active_params {active} exceeds total_params {total}")
    raw_deployment = entry.get("deployment")
    deployment = None if raw_deployment is None else _deployment(where, raw_deployment)
    simulated = bool(entry.get("simulated", False))
    if simulated and deployment is None:
        raise ValueError(f"{where}: a simulated model needs a [model.deployment] table")
    prices = entry.get("prices") or {}
    cached = prices.get("cached_input")
    return ModelInfo(
        id=entry["id"],
        display_name=entry.get("display_name") or entry["id"],
        aliases=tuple(entry.get("aliases", ())),
        attention=shape.kind,
        shape=shape,
        total_params=total,
        active_params=active,
        context_window=int(entry["context_window"]),
        prices=Prices(
            input=float(prices.get("input") or 0.0),
            output=float(prices.get("output") or 0.0),
            cached_input=None if cached is None else float(cached),
        ),
        deployment=deployment,
        simulated=simulated,
        notes=entry.get("notes", ""),
    )


def _shape(where: str, raw: Any) -> AttentionShape:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: shape must be a table")
    unknown = set(raw) - _SHAPE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown shape fields {sorted(unknown)}")
    try:
        return AttentionShape(**raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: bad shape: {exc}") from exc


def _deployment(where: str, raw: Any) -> Deployment:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: deployment must be a table")
    unknown = set(raw) - _DEPLOYMENT_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown deployment fields {sorted(unknown)}")
    try:
        deployment = Deployment(**raw)
        deployment.profile  # noqa: B018 - validates the GPU name against hardware.toml
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: bad deployment: {exc}") from exc
    return deployment


def _read_toml(path: Path, what: str) -> tuple[dict[str, Any], str]:
    """The parsed file and its text."""
    try:
        text = path.read_text(encoding="utf-8")
        return tomllib.loads(text), text
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the {what} ({exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: the {what} is not valid TOML ({exc})") from exc


def _load(path: Path, check: bool = True) -> Catalog:
    data, text = _read_toml(path, "model catalog")
    models = _parse_models(path, data, text, check)
    try:
        return Catalog(models)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc


@functools.cache
def _default_catalog() -> Catalog:
    from workbench.resources import resource

    # The shipped file is checked against the schema by the test suite (test_catalog.py), not
    # at each launch: that keeps pydantic (~0.1 s) out of the window's start.
    return _load(resource("models.toml"), check=False)


def load_catalog(
    path: Path | str | None = None, overrides_path: Path | str | None = None
) -> Catalog:
    """The catalog from `path` (default: the shipped resources/models.toml, loaded once).

    `overrides_path` is a user's TOML file of per-model prices and context windows; a file
    that does not exist yet means no overrides. A broken file raises ValueError naming it.
    """
    catalog = _default_catalog() if path is None else _load(Path(path))
    if overrides_path is not None:
        opath = Path(overrides_path)
        if opath.exists():
            overrides, _ = _read_toml(opath, "model overrides")
            try:
                catalog = catalog.with_overrides(overrides)
            except ValueError as exc:
                raise ValueError(f"{opath}: {exc}") from exc
    return catalog
