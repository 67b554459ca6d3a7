"""The GPU sweep's report: the issue's four goals checked against the rows, and the markdown."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

BW_GOAL = 0.85  # of the measured copy bandwidth
SDPA_GOAL = 1.25  # Triton GQA latency over torch SDPA's
SPARSE_TOLERANCE = 0.15


def _mark(met: bool) -> str:
    return "MET " if met else "MISS"


def _copy_gbps(meta: dict[str, Any]) -> float | None:
    copy = meta.get("copy") or {}
    return copy.get("gbps")


def _ok(rows: list[Any]) -> list[Any]:
    return [r for r in rows if not r.error and r.latency_us]


def _bandwidth_goal(rows: list[Any], copy: float | None) -> list[dict[str, Any]]:
    out = []
    if not copy:
        return [
            {"goal": "bandwidth", "met": None, "text": "bandwidth goal: no copy bandwidth measured"}
        ]
    for r in _ok(rows):
        if (
            r.variant in ("gqa", "mla")
            and r.backend == "triton"
            and r.batch == 128
            and r.kv_len >= 16384
        ):
            frac = r.achieved_gbps / copy
            out.append(
                {
                    "goal": "bandwidth",
                    "shape": r.shape,
                    "kv_len": r.kv_len,
                    "fraction": frac,
                    "met": frac >= BW_GOAL,
                    "text": f"{_mark(frac >= BW_GOAL)} Triton {r.shape} b128 kv{r.kv_len}: "
                    f"{r.achieved_gbps:.0f} GB/s = {100 * frac:.0f}% of copy {copy:.0f} GB/s "
                    f"(goal ≥ {100 * BW_GOAL:.0f}%)",
                }
            )
    return out


def _gla_vs_mla(rows: list[Any], meta: dict[str, Any]) -> list[dict[str, Any]]:
    names = {s["key"]: s["names"] for s in meta.get("shapes", [])}
    by_name: dict[str, str] = {n: key for key, ns in names.items() for n in ns}
    pairs = [("sim-70b-gla", "sim-70b-mla"), ("sim-deepseek-v3-gla", "sim-deepseek-v3")]
    lat = {(r.shape, r.batch, r.kv_len): r.latency_us for r in _ok(rows) if r.backend == "triton"}
    out = []
    for gla, mla in pairs:
        if gla not in by_name or mla not in by_name:
            continue
        for (shape, batch, kv), t_gla in sorted(lat.items()):
            if shape != by_name[gla]:
                continue
            t_mla = lat.get((by_name[mla], batch, kv))
            if t_mla is None:
                continue
            out.append(
                {
                    "goal": "gla_faster",
                    "pair": f"{gla} vs {mla}",
                    "batch": batch,
                    "kv_len": kv,
                    "speedup": t_mla / t_gla,
                    "met": t_gla < t_mla,
                    "text": f"{_mark(t_gla < t_mla)} {gla} {t_gla:.1f} µs vs {mla} "
                    f"{t_mla:.1f} µs "
                    f"at b{batch} kv{kv}: {t_mla / t_gla:.2f}× (goal: GLA faster)",
                }
            )
    return out


def _triton_vs_sdpa(rows: list[Any]) -> list[dict[str, Any]]:
    lat: dict[tuple[str, int, int], dict[str, float]] = defaultdict(dict)
    for r in _ok(rows):
        if r.variant == "gqa":
            lat[(r.shape, r.batch, r.kv_len)][r.backend] = r.latency_us
    out = []
    for (shape, batch, kv), by in sorted(lat.items()):
        if "triton" in by and "torch-sdpa" in by:
            ratio = by["triton"] / by["torch-sdpa"]
            out.append(
                {
                    "goal": "triton_vs_sdpa",
                    "shape": shape,
                    "batch": batch,
                    "kv_len": kv,
                    "ratio": ratio,
                    "met": ratio <= SDPA_GOAL,
                    "text": f"{_mark(ratio <= SDPA_GOAL)} Triton/SDPA {shape} b{batch} kv{kv}: "
                    f"{by['triton']:.1f} / {by['torch-sdpa']:.1f} µs = {ratio:.2f}× "
                    f"(goal ≤ {SDPA_GOAL})",
                }
            )
    return out


def _sparse(meta: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for s in meta.get("sparse", []):
        rel = s.get("kernels_fraction", s["time_fraction"]) / s["predicted_fraction"]
        met = abs(rel - 1) <= SPARSE_TOLERANCE
        out.append(
            {
                "goal": "sparse_fraction",
                **s,
                "ratio": rel,
                "met": met,
                "text": f"{_mark(met)} {s['shape']} b{s['batch']} kv{s['kv_len']}: kernels "
                f"{s.get('kernels_fraction', float('nan')):.3f} (whole step with selection "
                f"{s['time_fraction']:.3f}) of a dense pass vs predicted "
                f"{s['predicted_fraction']:.3f} ({rel:.2f}×; goal within ±15%)",
            }
        )
    return out


def goals(rows: list[Any], meta: dict[str, Any]) -> list[dict[str, Any]]:
    return (
        _bandwidth_goal(rows, _copy_gbps(meta))
        + _gla_vs_mla(rows, meta)
        + _triton_vs_sdpa(rows)
        + _sparse(meta)
    )


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def markdown(rows: list[Any], meta: dict[str, Any]) -> str:
    env = meta.get("environment", {})
    copy = _copy_gbps(meta)
    names = {s["key"]: ", ".join(s["names"]) for s in meta.get("shapes", [])}
    out = [
        f"# Decode attention on {env.get('device', 'cpu')}",
        "",
        f"Command: `{meta.get('command', '')}`; {meta.get('elapsed_s', '?')} s. "
        f"torch {env.get('torch')}, CUDA {env.get('cuda')}, Triton {env.get('triton')}, "
        f"driver {env.get('driver', '')}, Python {env.get('python')}.",
        "",
        f"Measured copy bandwidth (read + write, 4 GiB bf16): {_fmt(copy, '.0f')} GB/s. "
        "One layer, bf16, query length 1; GB/s counts KV + q + out bytes once (decimal); "
        "%copy is of the copy bandwidth; rel err is ‖out − ref‖/‖ref‖ against the reference.",
        "",
        "Backends: " + "; ".join(f"{b}: {w}" for b, w in env.get("backends", {}).items()),
        "",
    ]
    if meta.get("stopped"):
        out += [f"**Stopped early:** {meta['stopped']}.", ""]
    out += ["## Goals", ""] + [f"- {g['text']}" for g in meta.get("goals", [])] + [""]
    if meta.get("probe"):
        out += [
            "## Triton launch settings tried (batch 128)",
            "",
            "| variant | KV | setting | µs | KV GB/s |",
            "| --- | ---: | --- | ---: | ---: |",
        ]
        for p in meta["probe"]:
            lat, gbps = _fmt(p.get("latency_us"), ".1f"), _fmt(p.get("kv_gbps"), ".0f")
            label = p.get("name", p["variant"])
            out.append(f"| {label} | {p['kv_len']} | {p['config']} | {lat} | {gbps} |")
        out.append("")
    out += [
        "## All rows",
        "",
        "| shape (models) | backend | batch | KV | µs | GB/s | %copy | roofline µs | rel err "
        "| note |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        pct = (
            ""
            if (copy is None or r.achieved_gbps is None)
            else f"{100 * r.achieved_gbps / copy:.0f}%"
        )
        out.append(
            f"| {r.shape} ({names.get(r.shape, '')}) | {r.backend} | {r.batch} | {r.kv_len} | "
            f"{_fmt(r.latency_us, '.1f')} | {_fmt(r.achieved_gbps, '.0f')} | {pct} | "
            f"{_fmt(r.roofline_us, '.1f')} | {_fmt(r.rel_err, '.1e')} | {r.error[:70]} |"
        )
    return "\n".join(out) + "\n"
