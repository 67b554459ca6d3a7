"""Reading a request's JSON body within two bounds: one request's size, and all requests' together.

A per-request cap alone lets N parallel uploads hold N times it in memory, so the server also
keeps a budget of body bytes being read across connections: a request that would overrun it is
answered 503 with Retry-After before its body is read. A body nested deeper than the JSON reader
follows is a 400, not an unhandled RecursionError. See docs/local-provider.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.system.bounded_read import TooDeep, json_loads

if TYPE_CHECKING:  # aiohttp is imported where a server runs, not by every CLI start
    from aiohttp import web

    from workbench.local.faults import ApiError

MAX_BODY_BYTES = 256 * 1024**2  # one request
DEFAULT_TOTAL_BODY_BYTES = 512 * 1024**2  # all requests whose bodies are being read at once
RETRY_AFTER_S = 1


class BodyBudget:
    """Body bytes reserved by the requests being read now, against a total."""

    def __init__(self, total: int) -> None:
        if total < 1:
            raise ValueError("the total body budget must be at least 1 byte")
        self.total = total
        self.in_flight = 0

    def reserve(self, n: int) -> bool:
        if self.in_flight + n > self.total:
            return False
        self.in_flight += n
        return True

    def release(self, n: int) -> None:
        self.in_flight -= n


def _busy(budget: BodyBudget) -> ApiError:
    from workbench.local.faults import ApiError

    return ApiError(
        503,
        f"The server is reading {budget.total // 1024**2} MiB of request bodies at once, its "
        f"limit; retry after {RETRY_AFTER_S} s.",
        type="server_error",
        code="server_busy",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


def _too_large(limit: int) -> ApiError:
    from workbench.local.faults import ApiError

    return ApiError(
        413, f"The request body is over {limit // 1024**2} MiB.", code="request_too_large"
    )


async def _read(
    request: web.Request, budget: BodyBudget, limit: int
) -> tuple[bytes, int] | ApiError:
    """The raw body and the bytes it reserved, or the refusal."""
    declared = request.content_length
    if declared is not None:
        if declared > limit:
            return _too_large(limit)
        if not budget.reserve(declared):
            return _busy(budget)
        try:
            return await request.content.readexactly(declared), declared
        except BaseException:
            budget.release(declared)
            raise
    parts: list[bytes] = []  # chunked: reserved as it arrives
    reserved = 0
    try:
        async for chunk in request.content.iter_any():
            if reserved + len(chunk) > limit:
                budget.release(reserved)
                return _too_large(limit)
            if not budget.reserve(len(chunk)):
                budget.release(reserved)
                return _busy(budget)
            reserved += len(chunk)
            parts.append(chunk)
    except BaseException:
        budget.release(reserved)
        raise
    return b"".join(parts), reserved


async def read_json(request: web.Request, budget: BodyBudget, limit: int = MAX_BODY_BYTES) -> Any:
    """The parsed body, or the ApiError that refuses it (413, 503, or 400 for bad JSON)."""
    from workbench.local.faults import ApiError
    from workbench.local.wire import invalid

    got = await _read(request, budget, limit)
    if isinstance(got, ApiError):
        return got
    raw, reserved = got
    try:
        return json_loads(raw.decode("utf-8"))
    except TooDeep:
        return invalid("The request body is nested too deeply to read; send a flatter JSON object.")
    except (ValueError, UnicodeDecodeError):
        return invalid("The request body is not valid JSON.")
    finally:
        budget.release(reserved)
