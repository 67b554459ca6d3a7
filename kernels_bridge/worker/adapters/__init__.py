"""Existing decode kernels behind one interface (worker side; imports torch).

Each adapter module exposes `availability(device_kind) -> str | None` (None = usable, else why
not) and `prepare(inp) -> Callable[[], Tensor]` that returns a zero-argument launch, raising
NotImplementedError (with a reason) for variants it does not cover.
"""
