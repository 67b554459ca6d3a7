"""Fault modes of the local provider, and the errors they (and the server) answer.

A request picks faults by header `X-Sim-Fault: mode[,mode...]` or by a model-id suffix
`<model>+mode[+mode...]`, e.g. `sim-70b-gqa+429` or `sim-70b-gqa+reasoning+pack`.
An error is an `ApiError` (status, message, OpenAI type and code); each protocol's wire module
renders it in its own shape (`error_response` is the OpenAI one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aiohttp import web

FAULT_HEADER = "X-Sim-Fault"

# Faults that answer at once with an error status instead of a completion.
STATUS_FAULTS = frozenset({"401", "404", "429", "500", "503", "529", "html", "html200"})
# Faults that change how a completion is streamed.
STREAM_FAULTS = frozenset({"stall", "drop", "malformed", "error", "no-usage", "reasoning", "pack"})
FAULT_MODES = STATUS_FAULTS | STREAM_FAULTS

TOKENS_BEFORE_FAULT = 3  # content tokens streamed before stall / drop / malformed / error
TOKENS_PER_PACK = 4  # tokens per SSE event in `pack` mode

_HTML_PAGE = (
    "<html>\r\n<head><title>{status}</title></head>\r\n<body>\r\n<center><h1>{status}</h1></center>"
    "\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)


class UnknownFault(ValueError):
    """A fault name the server does not know."""


@dataclass(frozen=True)
class ApiError:
    """An error answer before any protocol's shape: status, message, OpenAI `type` and `code`."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = None
    headers: Mapping[str, str] | None = None


# The error a stream reports in the middle (`error` mode): the server became overloaded.
MIDSTREAM_ERROR = ApiError(
    529, "Overloaded (simulated).", type="server_error", code="server_is_overloaded"
)


def split_model(model: str) -> tuple[str, list[str]]:
    """'sim-70b-gqa+429+pack' -> ('sim-70b-gqa', ['429', 'pack'])."""
    base, *modes = model.split("+")
    return base, modes


def parse_faults(header: str | None, suffix_modes: list[str]) -> frozenset[str]:
    modes = [m.strip().lower() for m in (header or "").split(",") if m.strip()]
    modes += [m.strip().lower() for m in suffix_modes]
    unknown = sorted(set(modes) - FAULT_MODES)
    if unknown:
        raise UnknownFault(
            f"Unknown simulated fault {', '.join(unknown)}; valid modes: "
            + ", ".join(sorted(FAULT_MODES))
        )
    return frozenset(modes)


def error_response(
    status: int,
    message: str,
    *,
    type_: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    """An OpenAI-style error: {"error": {"message", "type", "param", "code"}}."""
    body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return web.json_response(body, status=status, headers=headers)


def openai_error(error: ApiError) -> web.Response:
    """`error` in OpenAI's shape (chat completions and Responses answer errors alike)."""
    headers = dict(error.headers) if error.headers else None
    return error_response(
        error.status,
        error.message,
        type_=error.type,
        code=error.code,
        param=error.param,
        headers=headers,
    )


def status_fault(modes: frozenset[str]) -> ApiError | web.Response | None:
    """The error of the first status fault in `modes` (an HTML page as it is), else None."""
    if "401" in modes:
        return ApiError(401, "Incorrect API key provided (simulated).", code="invalid_api_key")
    if "404" in modes:
        return ApiError(404, "Not found (simulated).", code="not_found")
    if "429" in modes:
        return ApiError(
            429,
            "Rate limit reached for requests (simulated). Please retry after 1 second.",
            type="rate_limit_error",
            code="rate_limit_exceeded",
            headers={"Retry-After": "1"},
        )
    if "500" in modes:
        return ApiError(
            500, "The server had an error (simulated).", type="server_error", code="server_error"
        )
    if "503" in modes:
        return ApiError(
            503,
            "The engine is currently overloaded (simulated). Please try again later.",
            type="server_error",
            code="service_unavailable",
            headers={"Retry-After": "1"},
        )
    if "529" in modes:
        return ApiError(529, "Overloaded (simulated).", type="server_error", code="overloaded")
    if "html" in modes:
        page = _HTML_PAGE.format(status="502 Bad Gateway")
        return web.Response(status=502, text=page, content_type="text/html")
    if "html200" in modes:
        page = _HTML_PAGE.format(status="Welcome to nginx!")
        return web.Response(status=200, text=page, content_type="text/html")
    return None


def status_fault_response(modes: frozenset[str]) -> web.Response | None:
    """The OpenAI-shaped answer of the first status fault in `modes`, or None."""
    fault = status_fault(modes)
    return openai_error(fault) if isinstance(fault, ApiError) else fault
