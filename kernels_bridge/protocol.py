"""Versioned JSON-lines messages between the kernel client and the worker. Pure Python.

One message per line, a JSON object with `type` (hello, run, progress, result, done, error,
cancel, bye, auth) and `v` (PROTOCOL_VERSION). A message of another version is refused with a
ProtocolError that says both versions; so is an unknown type, and so is a known field whose
value has the wrong type (`"token": null`, `"kv_lens": "4096"`): every message is checked
against its dataclass's annotations before it is built. Unknown fields of a known type are
ignored (a newer peer of the same version may add optional fields).

RESULT_COLUMNS is the one home of the kernel CSV's column list (docs/architecture.md, rule 6).
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

PROTOCOL_VERSION = 1
# The TCP worker's shared token: from this environment variable or a file, never from argv,
# where every user of the machine can read it (`ps`).
TOKEN_ENV = "WORKBENCH_KERNEL_TOKEN"
MIN_TOKEN_BYTES = 16  # shorter shared secrets are guessable; the worker refuses to start with one
TOKEN_RECIPE = "python -c 'import secrets; print(secrets.token_urlsafe(24))'"


class ProtocolError(ValueError):
    """A line that is not a message this side understands; `job_id` when the line named one."""

    def __init__(self, message: str, job_id: str | None = None) -> None:
        super().__init__(message)
        self.job_id = job_id


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
    "shape",
    "rel_err",
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
    shape: str = ""  # shape_sets.shape_key of a per-device shape; "" = the variant's default
    rel_err: float | None = None  # ‖out − ref‖ / ‖ref‖ against the reference

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


def read_token_file(path: str) -> str:
    """The token in a file (surrounding whitespace dropped); ValueError saying what is wrong."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read(4096).strip()
        mode = os.stat(path).st_mode
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the token file {path}: {exc}") from None
    if not token:
        raise ValueError(f"the token file {path} is empty; write the shared token into it")
    if len(token.encode()) < MIN_TOKEN_BYTES:
        raise ValueError(
            f"the token in {path} is {len(token.encode())} bytes, under the {MIN_TOKEN_BYTES} a "
            f"shared token needs; write a longer one: umask 077; {TOKEN_RECIPE} > {path}"
        )
    if mode & 0o077:
        print(
            f"warning: the token file {path} is readable by other users; `chmod 600 {path}`",
            file=sys.stderr,
        )
    return token


def _conforms(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a field's annotation (the few shapes messages use)."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin is typing.Union or origin is types.UnionType:
        return any(_conforms(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_conforms(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(
            _conforms(k, key) and _conforms(v, item) for k, v in value.items()
        )
    return False


def _hint_name(hint: Any) -> str:
    if typing.get_args(hint):  # list[int], str | None
        return str(hint).replace("typing.", "")
    return getattr(hint, "__name__", str(hint))


def from_json(line: str | bytes) -> Message:
    """Parse one line; ProtocolError names what is wrong (not JSON, version, type, fields)."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, absurd nesting
        raise ProtocolError(f"not a JSON message: {str(exc)[:200]}") from exc
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object")
    version = data.pop("v", None)
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"unsupported protocol version {repr(version)[:40]}; this side speaks "
            f"v{PROTOCOL_VERSION} (update the worker and the app together)"
        )
    kind = data.pop("type", None)
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(f"unknown message type {repr(kind)[:40]}")
    job_id = data.get("job_id") if isinstance(data.get("job_id"), str) else None
    hints = typing.get_type_hints(cls)
    fields = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        if not _conforms(data[f.name], hints[f.name]):
            got = type(data[f.name]).__name__
            raise ProtocolError(
                f"bad {kind} message: {f.name} must be {_hint_name(hints[f.name])}, not {got}",
                job_id,
            )
        fields[f.name] = data[f.name]
    return cls(**fields)


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
