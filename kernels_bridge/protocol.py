"""Versioned JSON-lines messages between the kernel client and the worker. Pure Python.

One message per line, a JSON object with `type` (hello, run, progress, result, done, error,
cancel, bye, auth) and `v` (PROTOCOL_VERSION). A message of another version is refused with a
ProtocolError that says both versions; so is an unknown type. Unknown fields of a known type
are ignored (a newer peer of the same version may add optional fields).

RESULT_COLUMNS is the one home of the kernel CSV's column list (docs/architecture.md, rule 6).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

PROTOCOL_VERSION = 1


class ProtocolError(ValueError):
    """A line that is not a message this side understands."""


@dataclass
class Message:
    TYPE: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "v": PROTOCOL_VERSION, **dataclasses.asdict(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False)


@dataclass
class Auth(Message):
    """First line a TCP client sends: the shared token."""

    TYPE: ClassVar[str] = "auth"
    token: str = ""


@dataclass
class Hello(Message):
    """The worker introduces itself: versions, devices and which backends it can run."""

    TYPE: ClassVar[str] = "hello"
    worker_version: str = ""
    protocol: int = PROTOCOL_VERSION
    python: str = ""
    torch_version: str | None = None
    triton_version: str | None = None
    cuda_available: bool = False
    # [{"index": 0, "name": "NVIDIA H200", "kind": "cuda", "memory_gib": 139.8, "profile": "H200"}]
    devices: list[dict[str, Any]] = field(default_factory=list)
    default_device: str = "cpu"
    backends: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)  # backend -> why not
    notes: list[str] = field(default_factory=list)


@dataclass
class Run(Message):
    """A sweep: variants × kv_lens × batches × q_lens × dtypes × backends."""

    TYPE: ClassVar[str] = "run"
    job_id: str = ""
    variants: list[str] = field(default_factory=list)
    kv_lens: list[int] = field(default_factory=list)
    batches: list[int] = field(default_factory=lambda: [1])
    q_lens: list[int] = field(default_factory=lambda: [1])
    dtypes: list[str] = field(default_factory=lambda: ["bf16"])
    backends: list[str] = field(default_factory=lambda: ["reference"])
    warmup: int = 3
    iters: int = 20
    device: str = "auto"  # auto | cpu | cuda | cuda:N
    shapes: dict[str, dict[str, Any]] = field(default_factory=dict)  # variant -> shape override
    check: bool = False  # compare each backend with the reference (max abs error column)
    gpu_profile: str | None = None  # roofline profile when the device has none (e.g. CPU)
    flush_l2: bool = True
    cuda_graphs: bool = True
    seed: int = 0

    def combos(self) -> int:
        return (
            len(self.variants)
            * len(self.kv_lens)
            * len(self.batches)
            * len(self.q_lens)
            * len(self.dtypes)
            * len(self.backends)
        )


@dataclass
class Progress(Message):
    TYPE: ClassVar[str] = "progress"
    job_id: str = ""
    done: int = 0
    total: int = 0
    message: str = ""


RESULT_COLUMNS: tuple[str, ...] = (
    "variant",
    "backend",
    "device",
    "dtype",
    "batch",
    "kv_len",
    "q_len",
    "latency_us",
    "achieved_gbps",
    "achieved_tflops",
    "kv_bytes_per_token",
    "roofline_us",
    "frac_peak_bw",
    "frac_peak_tflops",
    "profile",
    "bytes",
    "flops",
    "timing",
    "max_abs_err",
    "error",
)


@dataclass
class ResultRow:
    """One measured (or failed) combination; the CSV row of `workbench kernels`.

    kv_bytes_per_token is per layer (the benchmark times one layer) in the row's dtype;
    bytes/flops are the algorithmic figures of variants.decode_bytes_and_flops(layers=1);
    roofline_us is max(bytes/BW, flops/peak) on `profile`; frac_* are achieved / that peak.
    """

    variant: str
    backend: str
    device: str
    dtype: str
    batch: int
    kv_len: int
    q_len: int
    latency_us: float | None = None
    achieved_gbps: float | None = None
    achieved_tflops: float | None = None
    kv_bytes_per_token: int = 0
    roofline_us: float | None = None
    frac_peak_bw: float | None = None
    frac_peak_tflops: float | None = None
    profile: str = ""
    bytes: float = 0.0
    flops: float = 0.0
    timing: str = ""  # cuda-events | cuda-graph | wall-clock
    max_abs_err: float | None = None
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ResultRow:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def csv_values(self) -> list[str]:
        out = []
        for name in RESULT_COLUMNS:
            value = getattr(self, name)
            if value is None:
                out.append("")
            elif isinstance(value, float):
                out.append(f"{value:.6g}")
            else:
                out.append(str(value))
        return out


@dataclass
class Result(Message):
    TYPE: ClassVar[str] = "result"
    job_id: str = ""
    row: dict[str, Any] = field(default_factory=dict)

    @property
    def result_row(self) -> ResultRow:
        return ResultRow.from_dict(self.row)


@dataclass
class Done(Message):
    """A job ended: all rows sent, or cancelled."""

    TYPE: ClassVar[str] = "done"
    job_id: str = ""
    rows: int = 0
    cancelled: bool = False
    seconds: float = 0.0


@dataclass
class Error(Message):
    """Something failed. `fatal` means the worker is about to exit; otherwise it stays up."""

    TYPE: ClassVar[str] = "error"
    message: str = ""
    job_id: str | None = None
    fatal: bool = False


@dataclass
class Cancel(Message):
    TYPE: ClassVar[str] = "cancel"
    job_id: str | None = None  # None: whatever runs


@dataclass
class Bye(Message):
    TYPE: ClassVar[str] = "bye"
    reason: str = ""


MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.TYPE: cls for cls in (Auth, Hello, Run, Progress, Result, Done, Error, Cancel, Bye)
}


def from_json(line: str | bytes) -> Message:
    """Parse one line; ProtocolError names what is wrong (not JSON, version, type, fields)."""
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not a JSON message: {exc}") from exc
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object")
    version = data.pop("v", None)
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"unsupported protocol version {version!r}; this side speaks v{PROTOCOL_VERSION} "
            "(update the worker and the app together)"
        )
    kind = data.pop("type", None)
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(f"unknown message type {kind!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    try:
        return cls(**{k: v for k, v in data.items() if k in names})
    except TypeError as exc:
        raise ProtocolError(f"bad {kind} message: {exc}") from exc


def validate_run(run: Run) -> list[str]:
    """Problems with a run message (empty list = fine); checked before any work starts."""
    from kernels_bridge.specs import DTYPES, canonical_dtype, shape_for

    problems = []
    if not run.job_id:
        problems.append("job_id is empty")
    for name, values in (
        ("variants", run.variants),
        ("kv_lens", run.kv_lens),
        ("batches", run.batches),
        ("q_lens", run.q_lens),
        ("dtypes", run.dtypes),
        ("backends", run.backends),
    ):
        if not isinstance(values, list) or not values:
            problems.append(f"{name} must be a non-empty list")
    for v in run.variants if isinstance(run.variants, list) else []:
        try:
            shape_for(str(v), run.shapes)
        except ValueError as exc:
            problems.append(str(exc))
    for d in run.dtypes if isinstance(run.dtypes, list) else []:
        try:
            canonical_dtype(str(d))
        except ValueError:
            problems.append(f"unknown dtype {d!r}; expected one of {', '.join(DTYPES)}")
    for name, values in (
        ("kv_lens", run.kv_lens),
        ("batches", run.batches),
        ("q_lens", run.q_lens),
    ):
        for x in values if isinstance(values, list) else []:
            if not isinstance(x, int) or isinstance(x, bool) or x < 1:
                problems.append(f"{name} must hold integers >= 1, got {x!r}")
    if not isinstance(run.iters, int) or run.iters < 1 or not isinstance(run.warmup, int):
        problems.append("iters must be >= 1 and warmup an integer")
    return problems
